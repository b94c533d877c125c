/*
 * The names of stacks, kept across rounds.
 *
 * Stack ids are hashes of the frames (bpf/profile.bpf.c), so a stack
 * id stands for the same addresses in every round.  What those
 * addresses are named depends on the process's mappings and on the
 * kernel's symbols: the caller keys each stack by a generation that
 * changes whenever they change (resolve_proc_gen(), resolve_kernel_gen()
 * -- a process that execs or maps a library gets a new one), so a stack
 * is never given the names of another program.  Names that could change
 * without a new generation (perf maps, addresses in no mapping) are not
 * kept at all: the caller does not put such stacks.
 *
 * A stack is kept from the second time it is named in a round or two
 * (stacknames_put()).  Frames are kept too, under (generation,
 * address), from the first time: stack ids rarely repeat where leaf
 * addresses vary, but return addresses do, so a new stack of known
 * frames costs a lookup per frame, not a symbol search and an interning
 * of each name.
 *
 * Stacks and frames are kept as lists of locations (frametab.c): the
 * name of a frame with what pprof says of it besides, its mapping and
 * address, so that two programs' "main" stay apart in pprof files.
 *
 * A stack or frame unused for `rounds' rounds is dropped; past `max'
 * stacks or frames, or STACKNAMES_NAME_BYTES of names, everything is.
 * Names are not freed one by one (their ids must stay valid while a
 * stack holds them): with programs that come and go, the names of those
 * gone piled up for good, a few MB an hour.  So when the names and
 * their locations have doubled since they were last counted (and hold
 * STACKNAMES_NAME_MIN at least), they are copied at the round's end
 * into new tables, only those the stacks and frames kept still use, and
 * the ids renumbered (stacknames_compact()).  The locations count: at
 * some 56 bytes each against some 30 for a name, they were two thirds
 * of what piled up (2.6 MB of locations in a 12-minute soak, names
 * counted alone).  The tables are stacknames_tab.c's, the names
 * an intern.c table.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/frametab.h"
#include "util/intern.h"
#include "util/log.h"
#include "stacknames.h"
#include "stacknames_int.h"
#include "util/xmalloc.h"

#define STACKNAMES_NAME_BYTES	(32 << 20)	/* all names, then clear */
#define STACKNAMES_NAME_MIN	(512 << 10)	/* and locations: never
						   compacted */
/* Stacks put lately: the round, in a byte per hash of their keys. */
#define STACKNAMES_SEEN_SHIFT	18

struct stacknames {
	unsigned int		 rounds;
	size_t			 max;
	uint64_t		 round;

	struct intern		*names;
	struct frametab		*frames_info;	/* pprof details, by name */

	struct stacknames_tab	 stacks;	/* by (gen, stack id) */
	uint8_t			*seen;		/* round put, low bits */
	struct stacknames_tab	 frames;	/* by (gen, address) */

	uint64_t		 cleared;
	uint64_t		 compacted;
	size_t			 live_bytes;	/* names and locations at
						   the last count */
	uint32_t		*map;		/* old id -> new id + 1 */
	size_t			 nmap;
	uint32_t		*lmap;		/* old location -> new + 1 */
	struct intern		*next;		/* names being copied */
	struct frametab		*next_info;	/* locations being copied */
};

struct stacknames *
stacknames_create(unsigned int rounds, size_t max)
{
	struct stacknames	*sn;

	sn = xcalloc(1, sizeof(*sn));
	stacknames_configure(sn, rounds, max);
	sn->names = intern_create();
	/* Name id 0 is "": a location's strings use it for none. */
	intern_add(sn->names, "");
	sn->frames_info = frametab_create();
	stacknames_tab_init(&sn->stacks);
	stacknames_tab_init(&sn->frames);
	sn->seen = xcalloc(1U << STACKNAMES_SEEN_SHIFT, sizeof(*sn->seen));
	sn->round = 1;
	return sn;
}

void
stacknames_configure(struct stacknames *sn, unsigned int rounds, size_t max)
{
	sn->rounds = rounds > 0 ? rounds : 1;
	sn->max = max > 0 ? max : 1;
}

void
stacknames_free(struct stacknames *sn)
{
	if (sn == NULL)
		return;
	stacknames_tab_free(&sn->stacks);
	stacknames_tab_free(&sn->frames);
	intern_free(sn->names);
	frametab_free(sn->frames_info);
	free(sn->seen);
	free(sn);
}

uint32_t
stacknames_intern(struct stacknames *sn, const char *s)
{
	return intern_add(sn->names, s);
}

const char *
stacknames_name(const struct stacknames *sn, uint32_t id)
{
	const char	*s;

	return (s = intern_name(sn->names, id)) != NULL ? s : "";
}

/* The names, for profile_add_ids(). */
const struct intern *
stacknames_names(const struct stacknames *sn)
{
	return sn->names;
}

/* The locations: frames named, with their pprof details. */
struct frametab *
stacknames_frames(const struct stacknames *sn)
{
	return sn->frames_info;
}

uint32_t
stacknames_loc(struct stacknames *sn, const char *name,
    const struct frametab_frame *f)
{
	return frametab_loc_add(sn->frames_info, intern_add(sn->names, name),
	    f);
}

const char *
stacknames_loc_name(const struct stacknames *sn, uint32_t id)
{
	const struct frametab_loc	*l;

	if ((l = frametab_loc(sn->frames_info, id)) == NULL)
		return "";
	return stacknames_name(sn, l->name);
}

const uint32_t *
stacknames_get(struct stacknames *sn, uint64_t gen, uint64_t id, size_t *n,
    size_t *nextra)
{
	return stacknames_tab_get(&sn->stacks, gen, id, sn->round, n, nextra);
}

/*
 * Was the stack put before, this round or the last?  Marks it put in
 * this one.  A byte per hash holds the round, 1 to 255 (0: never),
 * so that it costs one access; now and then another stack's byte, or
 * one 255 rounds old, says yes.
 */
static int
stacknames_seen(struct stacknames *sn, uint64_t gen, uint64_t id)
{
	uint8_t		*b, now, last;
	int		 seen;

	now = sn->round % 255 + 1;
	last = now == 1 ? 255 : now - 1;
	b = &sn->seen[stacknames_key_hash(gen, id) >>
	    (64 - STACKNAMES_SEEN_SHIFT)];
	seen = *b == now || (*b == last && sn->round > 1);
	*b = now;
	return seen;
}

/*
 * A stack is kept the second time it is put within a round or two: in
 * a busy round most stacks are never sampled again, and keeping each
 * costs more than naming it again from its frames' names.
 */
void
stacknames_put(struct stacknames *sn, uint64_t gen, uint64_t id,
    const uint32_t *ids, size_t n, const uint32_t *extra, size_t nextra)
{
	if (id == 0 || !stacknames_seen(sn, gen, id))
		return;
	stacknames_tab_put(&sn->stacks, gen, id, sn->round, ids, n, extra,
	    nextra);
}

/* A frame's names; its flags are kept as the one extra id. */
const uint32_t *
stacknames_frame_get(struct stacknames *sn, uint64_t gen, uint64_t addr,
    size_t *n, uint32_t *flags)
{
	const uint32_t	*ids;
	size_t		 nextra;

	*flags = 0;
	ids = stacknames_tab_get(&sn->frames, gen, addr, sn->round, n,
	    &nextra);
	if (ids == NULL || nextra != 1)
		return NULL;
	*flags = ids[*n];
	return ids;
}

void
stacknames_frame_put(struct stacknames *sn, uint64_t gen, uint64_t addr,
    const uint32_t *ids, size_t n, uint32_t flags)
{
	stacknames_tab_put(&sn->frames, gen, addr, sn->round, ids, n, &flags,
	    1);
}

void
stacknames_clear(struct stacknames *sn)
{
	stacknames_tab_clear(&sn->stacks);
	stacknames_tab_clear(&sn->frames);
	intern_clear(sn->names);
	intern_add(sn->names, "");
	frametab_clear(sn->frames_info);
	sn->live_bytes = 0;
	sn->cleared++;
}

/* What compaction gives back: names and their locations. */
static size_t
stacknames_names_bytes(const struct stacknames *sn)
{
	return intern_bytes(sn->names) + frametab_bytes(sn->frames_info);
}

/* A name id of the old table, as an id of the new one. */
static uint32_t
stacknames_name_remap(struct stacknames *sn, uint32_t id)
{
	const char	*s;

	if (id >= sn->nmap)
		return 0;
	if (sn->map[id] == 0) {
		s = intern_name(sn->names, id);
		sn->map[id] = intern_add(sn->next, s != NULL ? s : "") + 1;
	}
	return sn->map[id] - 1;
}

/*
 * A location of the old frametab, as one of the new: its name, its
 * function's names and source file, and its mapping's path and build
 * id renumbered.
 */
static uint32_t
stacknames_loc_remap(void *arg, uint32_t id)
{
	struct stacknames		*sn = arg;
	const struct frametab_loc	*l;
	const struct frametab_map	*om;
	struct frametab_frame		 f;
	struct frametab_map		 m;

	if ((l = frametab_loc(sn->frames_info, id)) == NULL)
		return frametab_loc_add(sn->next_info,
		    stacknames_name_remap(sn, 0), NULL);
	if (sn->lmap[id] != 0)
		return sn->lmap[id] - 1;
	f = l->f;
	f.func = stacknames_name_remap(sn, f.func);
	f.system = stacknames_name_remap(sn, f.system);
	f.file = stacknames_name_remap(sn, f.file);
	if ((om = frametab_map(sn->frames_info, f.map)) != NULL) {
		m = *om;
		m.file = stacknames_name_remap(sn, m.file);
		m.build_id = stacknames_name_remap(sn, m.build_id);
		f.map = frametab_map_add(sn->next_info, &m);
	} else
		f.map = 0;
	sn->lmap[id] = frametab_loc_add(sn->next_info,
	    stacknames_name_remap(sn, l->name), &f) + 1;
	return sn->lmap[id] - 1;
}

/*
 * Keep only the names still used, renumbered, and the locations that
 * hold them.  The round's profiles were built from the old ids; they
 * keep names and locations of their own (profile_add_ids()) and are
 * rebuilt next round.
 */
static void
stacknames_compact(struct stacknames *sn)
{
	size_t	 before = stacknames_names_bytes(sn);

	sn->nmap = intern_count(sn->names);
	sn->map = xcalloc(sn->nmap, sizeof(*sn->map));
	sn->lmap = xcalloc(frametab_nlocs(sn->frames_info) + 1,
	    sizeof(*sn->lmap));
	sn->next = intern_create();
	intern_add(sn->next, "");		/* 0: none, as in the old */
	sn->map[0] = 1;
	sn->next_info = frametab_create();
	stacknames_tab_remap(&sn->stacks, 1, stacknames_loc_remap, sn);
	stacknames_tab_remap(&sn->frames, 0, stacknames_loc_remap, sn);
	free(sn->map);
	free(sn->lmap);
	sn->map = sn->lmap = NULL;
	intern_free(sn->names);
	frametab_free(sn->frames_info);
	sn->names = sn->next;
	sn->frames_info = sn->next_info;
	sn->next = NULL;
	sn->next_info = NULL;
	sn->live_bytes = stacknames_names_bytes(sn);
	sn->compacted++;
	log_debug("stacknames: names compacted, %zu bytes of %zu kept",
	    sn->live_bytes, before);
}

void
stacknames_round_end(struct stacknames *sn)
{
	size_t	 bytes;

	stacknames_tab_age(&sn->stacks, sn->round, sn->rounds);
	stacknames_tab_age(&sn->frames, sn->round, sn->rounds);
	bytes = intern_bytes(sn->names);
	if (sn->stacks.count > sn->max || sn->frames.count > sn->max ||
	    bytes > STACKNAMES_NAME_BYTES) {
		log_debug("stacknames: %zu stacks, %zu frames, %zu bytes of "
		    "names: cleared", sn->stacks.count, sn->frames.count,
		    bytes);
		stacknames_clear(sn);
	} else if ((bytes = stacknames_names_bytes(sn)) >=
	    STACKNAMES_NAME_MIN && bytes >= 2 * sn->live_bytes)
		stacknames_compact(sn);
	sn->round++;
}

void
stacknames_stats(const struct stacknames *sn, struct stacknames_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->stacks = sn->stacks.count;
	st->frames = sn->frames.count;
	st->names = intern_count(sn->names) - 1;	/* not "" */
	st->bytes = stacknames_tab_bytes(&sn->stacks) +
	    stacknames_tab_bytes(&sn->frames) + intern_bytes(sn->names) +
	    frametab_bytes(sn->frames_info) +
	    (1U << STACKNAMES_SEEN_SHIFT) * sizeof(*sn->seen);
	st->hits = sn->stacks.hits;
	st->misses = sn->stacks.misses;
	st->frame_hits = sn->frames.hits;
	st->frame_misses = sn->frames.misses;
	st->cleared = sn->cleared;
	st->compacted = sn->compacted;
}
