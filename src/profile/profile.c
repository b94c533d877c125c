/*
 * The in-memory profile of one target and type for one round.  A round
 * can bring tens of thousands of distinct stacks, so both frame names
 * (intern.c) and stacks are interned in open-addressing hash tables:
 * adding a sample costs one lookup per frame and one per stack, and
 * allocates only when it brings a name or a stack not seen before.
 * Stacks live in one array of string ids, so freeing a profile is a
 * handful of free() calls whatever its size.  Frames that come as
 * locations (a round's, frametab.c) bring their pprof details, copied
 * into a frametab of ours: such a stack keeps, after its names, the
 * location of each frame, and is one stack per address sampled, not
 * per name (folded files and flame graphs add up those of one name;
 * pprof has one Location per address).  The first details a name gets
 * stay its own, for the frames that come by name only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frametab.h"
#include "util/hash.h"
#include "util/intern.h"
#include "util/log.h"
#include "profile.h"
#include "util/xmalloc.h"

#define PROFILE_TAB_MIN		64		/* first hash table size */

struct profile_stack {
	size_t		 off;		/* into frames */
	size_t		 n;
	uint32_t	 nlabels;	/* name, value id pairs after frames */
	uint32_t	 locs;		/* n location ids after the names */
	uint64_t	 value;
	uint64_t	 hash;
};

struct profile_label {
	char		*name;
	char		*value;
};

struct profile {
	enum profile_type	 type;
	uint64_t		 period_ns;
	int64_t			 time_ns;
	int64_t			 duration_ns;
	uint64_t		 total;

	struct intern		*strs;		/* names: id 0 is "" */

	/*
	 * Distinct stacks; stacktab holds index + 1 in its low half, 0 is
	 * empty, and the high half of the stack's hash in the other, so
	 * that a probe rarely reads a stack that is not the one.
	 */
	struct profile_stack	*stacks;
	size_t			 nstacks, stackcap;
	uint64_t		*stacktab;
	size_t			 stacktabsz;
	uint32_t		*frames;
	size_t			 nframes, framecap;

	/* profile_add() translates names to ids here, reused. */
	uint32_t		*scratch;
	size_t			 scratchcap;

	/* profile_add_ids(): an id of xsrc -> our id + 1, 0 unknown. */
	const struct intern	*xsrc;
	uint32_t		*xlate;
	size_t			 xlatecap;
	/* ...a location id of theirs -> our name id + 1, 0 unknown... */
	uint32_t		*xloc;
	size_t			 xloccap;
	/* ...and our location id (xloc's cap). */
	uint32_t		*xlid;
	/* Its frames' pprof details: our name id -> location + 1. */
	struct frametab		*frames_info;
	uint32_t		*locof;
	size_t			 locofcap;
	uint32_t		*xmap;		/* their mapping -> ours */
	size_t			 xmapcap;

	struct profile_label	*labels;
	size_t			 nlabels;
};

static void	 profile_stacktab_grow(struct profile *);
static void	 profile_scratch_reserve(struct profile *, size_t);
static size_t	 profile_add_scratch(struct profile *, size_t, int, size_t,
		    uint64_t);

struct profile *
profile_create(enum profile_type type, uint64_t period_ns, int64_t time_ns,
    int64_t duration_ns)
{
	struct profile	*p;

	p = xcalloc(1, sizeof(*p));
	p->type = type;
	p->period_ns = period_ns;
	p->time_ns = time_ns;
	p->duration_ns = duration_ns;

	p->strs = intern_create();
	p->frames_info = frametab_create();
	p->stacktabsz = PROFILE_TAB_MIN;
	p->stacktab = xcalloc(p->stacktabsz, sizeof(*p->stacktab));

	/* pprof wants "" first in its string table; so do we. */
	intern_add(p->strs, "");
	return p;
}

void
profile_free(struct profile *p)
{
	size_t	 i;

	if (p == NULL)
		return;
	intern_free(p->strs);
	free(p->stacks);
	free(p->stacktab);
	free(p->frames);
	free(p->scratch);
	free(p->xlate);
	free(p->xmap);
	free(p->xloc);
	free(p->xlid);
	free(p->locof);
	frametab_free(p->frames_info);
	for (i = 0; i < p->nlabels; i++) {
		free(p->labels[i].name);
		free(p->labels[i].value);
	}
	free(p->labels);
	free(p);
}

enum profile_type
profile_type(const struct profile *p)
{
	return p->type;
}

const char *
profile_type_name(enum profile_type type)
{
	switch (type) {
	case PROFILE_TYPE_CPU:
		return "cpu";
	case PROFILE_TYPE_OFFCPU:
		return "offcpu";
	}
	return "unknown";
}

/* A stacktab entry: stack i of hash h. */
static uint64_t
profile_stacktab_entry(uint64_t h, size_t i)
{
	return (h >> 32) << 32 | (i + 1);
}

static void
profile_stacktab_grow(struct profile *p)
{
	size_t	 sz = p->stacktabsz * 2, mask = sz - 1, i, j;

	free(p->stacktab);
	p->stacktab = xcalloc(sz, sizeof(*p->stacktab));
	p->stacktabsz = sz;
	for (i = 0; i < p->nstacks; i++) {
		for (j = p->stacks[i].hash & mask; p->stacktab[j] != 0;
		    j = (j + 1) & mask)
			;
		p->stacktab[j] = profile_stacktab_entry(p->stacks[i].hash, i);
	}
}

static void
profile_scratch_reserve(struct profile *p, size_t all)
{
	if (all > p->scratchcap) {
		p->scratchcap = all < 128 ? 128 : all;
		p->scratch = xreallocarray(p->scratch, p->scratchcap,
		    sizeof(*p->scratch));
	}
}

/*
 * An empty stack carries no information a profile viewer can show, so
 * it is not recorded: the caller names at least the process.
 */
void
profile_add(struct profile *p, const char *const *frames, size_t n,
    uint64_t value)
{
	profile_add_labels(p, frames, n, value, NULL, 0);
}

/* profile_add() of a stack of n > 0 frames, returning its index. */
size_t
profile_add_stack(struct profile *p, const char *const *frames, size_t n,
    uint64_t value)
{
	size_t	 i;

	if (n == 0)
		fatalx("profile: empty stack");
	profile_scratch_reserve(p, n);
	for (i = 0; i < n; i++)
		p->scratch[i] = intern_add(p->strs, frames[i] != NULL ?
		    frames[i] : "");
	return profile_add_scratch(p, n, 0, 0, value);
}

/*
 * Take value off stack i, which holds at least that much.  A stack at
 * zero stays where it is, a hole the flame graph skips, so that the
 * indices of the others do not move.
 */
void
profile_stack_sub(struct profile *p, size_t i, uint64_t value)
{
	if (i >= p->nstacks || p->stacks[i].value < value)
		fatalx("profile: stack %zu holds less than %llu", i,
		    (unsigned long long)value);
	p->stacks[i].value -= value;
	p->total -= value;
}

/*
 * Add value to a stack with per-sample labels: nl name, value pairs in
 * labels[0 .. 2 * nl - 1].  The same stack with other labels is another
 * sample.  The label ids are kept after the stack's frame ids.
 */
void
profile_add_labels(struct profile *p, const char *const *frames, size_t n,
    uint64_t value, const char *const *labels, size_t nl)
{
	size_t			 i, all = n + 2 * nl;

	if (n == 0)
		return;
	profile_scratch_reserve(p, all);
	for (i = 0; i < n; i++)
		p->scratch[i] = intern_add(p->strs, frames[i] != NULL ?
		    frames[i] : "");
	for (i = 0; i < 2 * nl; i++)
		p->scratch[n + i] = intern_add(p->strs, labels[i] != NULL ?
		    labels[i] : "");
	profile_add_scratch(p, n, 0, nl, value);
}

/* Our id of a name of another table (names), interned if new. */
static uint32_t
profile_xlate(struct profile *p, const struct intern *names, uint32_t id)
{
	const char	*name;
	size_t		 cap;

	if (id >= p->xlatecap) {
		for (cap = p->xlatecap ? p->xlatecap : 1024; cap <= id;
		    cap *= 2)
			;
		p->xlate = xreallocarray(p->xlate, cap, sizeof(*p->xlate));
		memset(p->xlate + p->xlatecap, 0,
		    (cap - p->xlatecap) * sizeof(*p->xlate));
		p->xlatecap = cap;
	}
	if (p->xlate[id] == 0) {
		name = intern_name(names, id);
		p->xlate[id] = intern_add(p->strs, name != NULL ? name : "") +
		    1;
	}
	return p->xlate[id] - 1;
}

/* Our number of mapping m of frametab ft, 0 for none. */
static uint32_t
profile_xlate_map(struct profile *p, const struct intern *names,
    const struct frametab *ft, uint32_t m)
{
	const struct frametab_map	*sm;
	struct frametab_map		 om;
	size_t				 cap;

	if ((sm = frametab_map(ft, m)) == NULL)
		return 0;
	if (m >= p->xmapcap) {
		for (cap = p->xmapcap ? p->xmapcap : 64; cap <= m; cap *= 2)
			;
		p->xmap = xreallocarray(p->xmap, cap, sizeof(*p->xmap));
		memset(p->xmap + p->xmapcap, 0,
		    (cap - p->xmapcap) * sizeof(*p->xmap));
		p->xmapcap = cap;
	}
	if (p->xmap[m] == 0) {
		om = *sm;
		om.file = profile_xlate(p, names, sm->file);
		om.build_id = sm->build_id != 0 ? profile_xlate(p, names,
		    sm->build_id) : 0;
		p->xmap[m] = frametab_map_add(p->frames_info, &om);
	}
	return p->xmap[m];
}

/*
 * Location sl of ft came in as our name id ours: our location of it,
 * its details ours too; and the name's, unless it has some (the first
 * of a profile stay).
 */
static uint32_t
profile_xlate_frame(struct profile *p, const struct intern *names,
    const struct frametab *ft, const struct frametab_loc *sl, uint32_t ours)
{
	struct frametab_frame	 of;
	uint32_t		 id;
	size_t			 cap;

	of = sl->f;
	of.func = sl->f.func != 0 ? profile_xlate(p, names, sl->f.func) : 0;
	of.system = sl->f.system != 0 ? profile_xlate(p, names,
	    sl->f.system) : 0;
	of.file = sl->f.file != 0 ? profile_xlate(p, names, sl->f.file) : 0;
	of.map = profile_xlate_map(p, names, ft, sl->f.map);
	id = frametab_loc_add(p->frames_info, ours, &of);
	if (ours < p->locofcap && p->locof[ours] != 0)
		return id;
	if (ours >= p->locofcap) {
		for (cap = p->locofcap ? p->locofcap : 1024; cap <= ours;
		    cap *= 2)
			;
		p->locof = xreallocarray(p->locof, cap, sizeof(*p->locof));
		memset(p->locof + p->locofcap, 0,
		    (cap - p->locofcap) * sizeof(*p->locof));
		p->locofcap = cap;
	}
	p->locof[ours] = id + 1;
	return id;
}

/*
 * profile_add_labels() with the frames as ids of names interned in
 * names (the stacks' names kept across rounds), or, with ft, as ids of
 * its locations, whose names are in names: each is looked up in our
 * table once per profile, then translated by an array.  A location
 * brings its pprof details: the stack keeps our location of each frame
 * after its names.  An id names does not know is the empty name.
 */
void
profile_add_ids(struct profile *p, const struct intern *names,
    const struct frametab *ft, const uint32_t *ids, size_t n, uint64_t value,
    const char *const *labels, size_t nl)
{
	const struct frametab_loc	*sl;
	size_t				 i, all, cap, nloc;
	uint32_t			 id;

	if (n == 0)
		return;
	nloc = ft != NULL ? n : 0;
	all = n + nloc + 2 * nl;
	profile_scratch_reserve(p, all);
	if (p->xsrc != names) {
		/* Another table's ids: start again. */
		if (p->xlate != NULL)
			memset(p->xlate, 0, p->xlatecap * sizeof(*p->xlate));
		if (p->xloc != NULL)
			memset(p->xloc, 0, p->xloccap * sizeof(*p->xloc));
		if (p->xmap != NULL)
			memset(p->xmap, 0, p->xmapcap * sizeof(*p->xmap));
		p->xsrc = names;
	}
	for (i = 0; i < n; i++) {
		id = ids[i];
		if (ft == NULL) {
			p->scratch[i] = profile_xlate(p, names, id);
			continue;
		}
		if (id < p->xloccap && p->xloc[id] != 0) {
			p->scratch[i] = p->xloc[id] - 1;
			p->scratch[n + i] = p->xlid[id];
			continue;
		}
		if ((sl = frametab_loc(ft, id)) == NULL) {
			p->scratch[i] = 0;
			p->scratch[n + i] = frametab_loc_add(p->frames_info, 0,
			    NULL);
			continue;
		}
		p->scratch[i] = profile_xlate(p, names, sl->name);
		p->scratch[n + i] = profile_xlate_frame(p, names, ft, sl,
		    p->scratch[i]);
		if (id >= p->xloccap) {
			for (cap = p->xloccap ? p->xloccap : 1024; cap <= id;
			    cap *= 2)
				;
			p->xloc = xreallocarray(p->xloc, cap,
			    sizeof(*p->xloc));
			p->xlid = xreallocarray(p->xlid, cap,
			    sizeof(*p->xlid));
			memset(p->xloc + p->xloccap, 0,
			    (cap - p->xloccap) * sizeof(*p->xloc));
			p->xloccap = cap;
		}
		p->xloc[id] = p->scratch[i] + 1;
		p->xlid[id] = p->scratch[n + i];
	}
	for (i = 0; i < 2 * nl; i++)
		p->scratch[n + nloc + i] = intern_add(p->strs,
		    labels[i] != NULL ? labels[i] : "");
	profile_add_scratch(p, n, nloc != 0, nl, value);
}

/*
 * Add the stack of n frame ids (and their n locations, locs) and nl
 * label pairs in scratch: its index.
 */
static size_t
profile_add_scratch(struct profile *p, size_t n, int locs, size_t nl,
    uint64_t value)
{
	struct profile_stack	*st;
	size_t			 i, j, mask, all = n + (locs ? n : 0) + 2 * nl;
	uint64_t		 h;

	h = hash_u32s(p->scratch, all) + locs;
	p->total += value;

	mask = p->stacktabsz - 1;
	for (j = h & mask; p->stacktab[j] != 0; j = (j + 1) & mask) {
		if (p->stacktab[j] >> 32 != h >> 32)
			continue;
		i = (uint32_t)p->stacktab[j] - 1;
		st = &p->stacks[i];
		if (st->hash == h && st->n == n && st->nlabels == nl &&
		    st->locs == (uint32_t)locs && memcmp(p->frames + st->off, p->scratch,
		    all * sizeof(*p->scratch)) == 0) {
			st->value += value;
			return i;
		}
	}

	if (p->nstacks >= UINT32_MAX - 1)
		fatalx("profile: too many stacks");
	if (p->nframes + all > p->framecap) {
		while (p->nframes + all > p->framecap)
			p->framecap = p->framecap ? p->framecap * 2 : 256;
		p->frames = xreallocarray(p->frames, p->framecap,
		    sizeof(*p->frames));
	}
	if (p->nstacks == p->stackcap) {
		p->stackcap = p->stackcap ? p->stackcap * 2 : PROFILE_TAB_MIN;
		p->stacks = xreallocarray(p->stacks, p->stackcap,
		    sizeof(*p->stacks));
	}
	memcpy(p->frames + p->nframes, p->scratch, all * sizeof(*p->scratch));
	st = &p->stacks[p->nstacks];
	st->off = p->nframes;
	st->n = n;
	st->nlabels = nl;
	st->locs = locs;
	st->value = value;
	st->hash = h;
	p->nframes += all;
	p->stacktab[j] = profile_stacktab_entry(h, p->nstacks);
	p->nstacks++;
	if (p->nstacks * 2 > p->stacktabsz)
		profile_stacktab_grow(p);
	return p->nstacks - 1;
}

uint64_t
profile_total(const struct profile *p)
{
	return p->total;
}

/* The bytes it holds, its tables at their capacity: for memory bounds. */
size_t
profile_bytes(const struct profile *p)
{
	size_t	 i, n;

	n = sizeof(*p) + intern_bytes(p->strs) +
	    p->stackcap * sizeof(*p->stacks) +
	    p->stacktabsz * sizeof(*p->stacktab) +
	    p->framecap * sizeof(*p->frames) +
	    p->scratchcap * sizeof(*p->scratch) +
	    p->xlatecap * sizeof(*p->xlate) +
	    p->xmapcap * sizeof(*p->xmap) + frametab_bytes(p->frames_info) +
	    p->xloccap * (sizeof(*p->xloc) + sizeof(*p->xlid)) +
	    p->locofcap * sizeof(*p->locof) +
	    p->nlabels * sizeof(*p->labels);
	for (i = 0; i < p->nlabels; i++)
		n += strlen(p->labels[i].name) + strlen(p->labels[i].value) + 2;
	return n;
}

size_t
profile_nstacks(const struct profile *p)
{
	return p->nstacks;
}

uint64_t
profile_period(const struct profile *p)
{
	return p->period_ns;
}

int64_t
profile_time(const struct profile *p)
{
	return p->time_ns;
}

int64_t
profile_duration(const struct profile *p)
{
	return p->duration_ns;
}

size_t
profile_nstrings(const struct profile *p)
{
	return intern_count(p->strs);
}

const char *
profile_string(const struct profile *p, uint32_t id)
{
	return intern_name(p->strs, id);
}

/* The id of a name already interned: 0, or -1 when there is none. */
int
profile_string_find(const struct profile *p, const char *s, uint32_t *id)
{
	return intern_find(p->strs, s, id);
}

/*
 * For a sum built from other profiles (the flame graphs' hour): a name
 * interned, and a stack added by the ids of this profile's own names,
 * so that names looked up once serve every stack they are in.
 */
uint32_t
profile_string_intern(struct profile *p, const char *s)
{
	return intern_add(p->strs, s);
}

size_t
profile_add_stack_ids(struct profile *p, const uint32_t *ids, size_t n,
    uint64_t value)
{
	size_t	 i;

	if (n == 0)
		fatalx("profile: empty stack");
	profile_scratch_reserve(p, n);
	for (i = 0; i < n; i++) {
		if (ids[i] >= intern_count(p->strs))
			fatalx("profile: name %u of %zu", ids[i],
			    intern_count(p->strs));
		p->scratch[i] = ids[i];
	}
	return profile_add_scratch(p, n, 0, 0, value);
}

/* Stack i: its frames as string ids, root first; NULL past the end. */
const uint32_t *
profile_stack(const struct profile *p, size_t i, size_t *n, uint64_t *value)
{
	if (i >= p->nstacks)
		return NULL;
	*n = p->stacks[i].n;
	if (value != NULL)
		*value = p->stacks[i].value;
	return p->frames + p->stacks[i].off;
}

/* The per-sample labels of stack i: *nl name, value string id pairs. */
const uint32_t *
profile_stack_labels(const struct profile *p, size_t i, size_t *nl)
{
	if (i >= p->nstacks) {
		*nl = 0;
		return NULL;
	}
	*nl = p->stacks[i].nlabels;
	return p->frames + p->stacks[i].off +
	    (p->stacks[i].locs ? 2 : 1) * p->stacks[i].n;
}

/*
 * Stack i's locations (of profile_frames()), one per frame, root first;
 * NULL if it came by names only.
 */
const uint32_t *
profile_stack_locs(const struct profile *p, size_t i)
{
	if (i >= p->nstacks || !p->stacks[i].locs)
		return NULL;
	return p->frames + p->stacks[i].off + p->stacks[i].n;
}

/* Set a label, replacing its value; a NULL value removes it. */
void
profile_label_set(struct profile *p, const char *name, const char *value)
{
	size_t	 i;

	for (i = 0; i < p->nlabels; i++)
		if (strcmp(p->labels[i].name, name) == 0)
			break;
	if (i < p->nlabels) {
		free(p->labels[i].value);
		if (value != NULL) {
			p->labels[i].value = xstrdup(value);
			return;
		}
		free(p->labels[i].name);
		/* Keep the order the labels were set in. */
		memmove(&p->labels[i], &p->labels[i + 1],
		    (p->nlabels - i - 1) * sizeof(*p->labels));
		p->nlabels--;
		return;
	}
	if (value == NULL)
		return;
	p->labels = xreallocarray(p->labels, p->nlabels + 1,
	    sizeof(*p->labels));
	p->labels[p->nlabels].name = xstrdup(name);
	p->labels[p->nlabels].value = xstrdup(value);
	p->nlabels++;
}

/* The pprof details of the frame named by string id, or NULL. */
const struct frametab_frame *
profile_frame(const struct profile *p, uint32_t id)
{
	const struct frametab_loc	*l;

	if (id >= p->locofcap || p->locof[id] == 0 ||
	    (l = frametab_loc(p->frames_info, p->locof[id] - 1)) == NULL)
		return NULL;
	return &l->f;
}

/* Their mappings, numbered as profile_frame() gives them. */
const struct frametab *
profile_frames(const struct profile *p)
{
	return p->frames_info;
}

const char *
profile_label_get(const struct profile *p, const char *name)
{
	size_t	 i;

	for (i = 0; i < p->nlabels; i++)
		if (strcmp(p->labels[i].name, name) == 0)
			return p->labels[i].value;
	return NULL;
}

size_t
profile_nlabels(const struct profile *p)
{
	return p->nlabels;
}

const char *
profile_label_name(const struct profile *p, size_t i)
{
	return i < p->nlabels ? p->labels[i].name : NULL;
}

const char *
profile_label_value(const struct profile *p, size_t i)
{
	return i < p->nlabels ? p->labels[i].value : NULL;
}
