/*
 * The daemon's copies of stacks.  Stack ids are hashes of the frames,
 * so a copy never goes stale.
 *
 * Native stacks come from BPF's stack ring (bpf/profile.bpf.c), each
 * once a generation, and the daemon bumps the generation at each
 * round's start: a stack sampled in a round is sent in that round,
 * before the sample's count is added, and whoever counts it finds it
 * here (stacks_add()).  Nothing is read from or deleted in a BPF map.
 * A copy that comes is kept through the end of the next round, for
 * its count to come (a sample after the round's drain is counted in
 * the next); a copy that is counted, through the end of the round
 * after.  A stack sampled again is sent again the next round; a copy
 * of it held already is only kept longer.  A count whose stack is not
 * here lost it (a full ring: BPF counts the sample without the stack).
 *
 * Python stacks (stacks_create_map()) stay in their BPF map: a stack
 * is looked up when first needed; one sampled this round stays in the
 * kernel map, one not sampled is deleted from it and its copy kept one
 * round more, for a sample that raced with the delete; every 10 rounds
 * the kernel map is swept for ids the daemon does not know (their count
 * was lost to a full counts map).
 *
 * The copies' frames are cut from an arena of large chunks, not
 * allocated one by one: a round copies thousands of stacks and frees as
 * many.  The arena is compacted at a round's end when most of it is
 * frames of stacks forgotten.
 */
#include <stdlib.h>
#include <string.h>

#include "stacks.h"
#include "util/xmalloc.h"

#define STACKS_SWEEP_ROUNDS	10
/* u64 words of an arena chunk (64 KiB). */
#define STACKS_CHUNK_WORDS	8192

struct stacks_entry {
	uint64_t	 id;		/* 0: empty slot */
	uint64_t	*ip;
	uint32_t	 n;
	uint8_t		 in_bpf;	/* Python's: the map holds it */
	uint64_t	 used;		/* round last used */
};

/* Frames of the copies, cut one after the other. */
struct stacks_chunk {
	struct stacks_chunk	*next;
	size_t			 used, cap;	/* u64 words */
	uint64_t		 w[];
};

struct stacks {
	const struct stacks_map	*map;	/* BPF map of stacks, or NULL */
	uint64_t		*del;	/* ids to delete at round end */
	size_t			 ndel, delcap;
	size_t			 vwords;	/* of a value */
	size_t			(*len)(const uint64_t *, size_t);
	uint64_t		*buf;	/* one value */
	struct stacks_chunk	*chunks;	/* the newest first */
	size_t			 arena_words;	/* cut from the chunks */
	size_t			 live_words;	/* of copies kept */
	struct stacks_entry	*v;
	size_t			 size;	/* power of 2 */
	size_t			 count;
	uint64_t		 round;
	struct stacks_stats	 st;
};

/* Native stacks: those stacks_add() is given. */
struct stacks *
stacks_create(void)
{
	return stacks_create_map(NULL, 0, NULL);
}

/*
 * A map of other stacks (Python's): values of vwords u64 words, of
 * which len() tells how many to keep.
 */
struct stacks *
stacks_create_map(const struct stacks_map *map, size_t vwords,
    size_t (*len)(const uint64_t *, size_t))
{
	struct stacks	*s;

	s = xcalloc(1, sizeof(*s));
	s->map = map;
	s->vwords = vwords;
	s->len = len;
	if (map != NULL)
		s->buf = xcalloc(vwords, sizeof(*s->buf));
	s->size = 1024;
	s->v = xcalloc(s->size, sizeof(*s->v));
	s->round = 1;
	return s;
}

static void
stacks_chunks_free(struct stacks_chunk *c)
{
	struct stacks_chunk	*next;

	for (; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
}

void
stacks_free(struct stacks *s)
{
	if (s == NULL)
		return;
	stacks_chunks_free(s->chunks);
	free(s->v);
	free(s->buf);
	free(s->del);
	free(s);
}

static struct stacks_entry *
stacks_slot(struct stacks_entry *v, size_t size, uint64_t id)
{
	size_t	 i;

	/* Ids are already well-mixed hashes. */
	for (i = id & (size - 1);; i = (i + 1) & (size - 1)) {
		if (v[i].id == id || v[i].id == 0)
			return &v[i];
	}
}

static void
stacks_grow(struct stacks *s)
{
	struct stacks_entry	*v, *e;
	size_t			 i, size = s->size * 2;

	v = xcalloc(size, sizeof(*v));
	for (i = 0; i < s->size; i++) {
		if (s->v[i].id == 0)
			continue;
		e = stacks_slot(v, size, s->v[i].id);
		*e = s->v[i];
	}
	free(s->v);
	s->v = v;
	s->size = size;
}

/* A copy of n frames, in the arena. */
static uint64_t *
stacks_copy(struct stacks *s, const uint64_t *ip, size_t n)
{
	struct stacks_chunk	*c = s->chunks;
	uint64_t		*p;
	size_t			 cap;

	if (c == NULL || c->cap - c->used < n) {
		cap = n > STACKS_CHUNK_WORDS ? n : STACKS_CHUNK_WORDS;
		c = xmalloc(sizeof(*c) + cap * sizeof(c->w[0]));
		c->used = 0;
		c->cap = cap;
		c->next = s->chunks;
		s->chunks = c;
	}
	p = c->w + c->used;
	c->used += n;
	s->arena_words += n;
	s->live_words += n;
	memcpy(p, ip, n * sizeof(*p));
	return p;
}

/*
 * Copy the frames kept into a new arena when those of stacks forgotten
 * make most of the old one: a round that forgets thousands of stacks
 * frees their room in one go.
 */
static void
stacks_compact(struct stacks *s)
{
	struct stacks_chunk	*old = s->chunks;
	size_t			 i;

	if (s->arena_words <= 2 * s->live_words ||
	    s->arena_words <= STACKS_CHUNK_WORDS)
		return;
	s->chunks = NULL;
	s->arena_words = s->live_words = 0;
	for (i = 0; i < s->size; i++) {
		if (s->v[i].ip != NULL)
			s->v[i].ip = stacks_copy(s, s->v[i].ip, s->v[i].n);
	}
	stacks_chunks_free(old);
}

/* Remove an entry, re-placing the run of entries after it. */
static void
stacks_remove(struct stacks *s, struct stacks_entry *e)
{
	struct stacks_entry	 tmp, *slot;
	size_t			 i;

	if (e->ip != NULL)
		s->live_words -= e->n;
	memset(e, 0, sizeof(*e));
	s->count--;
	i = (e - s->v + 1) & (s->size - 1);
	while (s->v[i].id != 0) {
		tmp = s->v[i];
		memset(&s->v[i], 0, sizeof(s->v[i]));
		slot = stacks_slot(s->v, s->size, tmp.id);
		*slot = tmp;
		i = (i + 1) & (s->size - 1);
	}
}

const uint64_t *
stacks_get(struct stacks *s, uint64_t id, size_t *n)
{
	struct stacks_entry	*e;
	size_t			 i;

	*n = 0;
	if (id == 0)
		return NULL;
	e = stacks_slot(s->v, s->size, id);
	if (e->id == id && e->ip != NULL) {
		s->st.hits++;
		e->used = s->round;
		/* Sampled again: a map of stacks holds it again. */
		e->in_bpf = s->map != NULL;
		*n = e->n;
		return e->ip;
	}
	s->st.misses++;
	if (s->map == NULL || s->map->lookup(s->map->arg, id, s->buf) != 0) {
		s->st.lost++;
		return NULL;
	}
	i = s->len(s->buf, s->vwords);
	if (i == 0)
		return NULL;
	if (e->id != id && (s->count + 1) * 2 > s->size) {
		stacks_grow(s);
		e = stacks_slot(s->v, s->size, id);
	}
	if (e->id != id)
		s->count++;
	e->id = id;
	e->n = i;
	e->ip = stacks_copy(s, s->buf, i);
	e->in_bpf = 1;
	e->used = s->round;
	*n = e->n;
	return e->ip;
}

/* The frames held of a stack, or NULL; its lifetime left as it is. */
const uint64_t *
stacks_peek(struct stacks *s, uint64_t id, size_t *n)
{
	struct stacks_entry	*e;

	*n = 0;
	if (id == 0)
		return NULL;
	e = stacks_slot(s->v, s->size, id);
	if (e->id != id || e->ip == NULL)
		return NULL;
	*n = e->n;
	return e->ip;
}

/*
 * A stack record of BPF's ring.  A new copy is not counted yet, for all
 * we know: it is kept through the end of the next round, when the
 * count of a sample taken after this round's drain comes.  A copy held
 * already is kept as long at least: the stack was sampled again.
 */
void
stacks_add(struct stacks *s, uint64_t id, const uint64_t *ip, size_t n)
{
	struct stacks_entry	*e;

	s->st.records++;
	if (id == 0 || n == 0)
		return;
	e = stacks_slot(s->v, s->size, id);
	if (e->id == id && e->ip != NULL) {
		s->st.again++;
		if (e->used + 1 < s->round)
			e->used = s->round - 1;
		return;
	}
	if (e->id != id && (s->count + 1) * 2 > s->size) {
		stacks_grow(s);
		e = stacks_slot(s->v, s->size, id);
	}
	if (e->id != id) {
		s->count++;
		e->id = id;
		e->used = s->round - 1;
	} else if (e->used + 1 < s->round)
		e->used = s->round - 1;
	e->n = n;
	e->ip = stacks_copy(s, ip, n);
}

/*
 * A stack sampled this round whose frames the caller does not need
 * (it knows their names): it is kept as if read, and a map of stacks
 * holds it, to delete like the others, without reading it.
 */
void
stacks_touch(struct stacks *s, uint64_t id)
{
	struct stacks_entry	*e;

	if (id == 0)
		return;
	e = stacks_slot(s->v, s->size, id);
	if (e->id != id) {
		if ((s->count + 1) * 2 > s->size) {
			stacks_grow(s);
			e = stacks_slot(s->v, s->size, id);
		}
		e->id = id;
		s->count++;
	}
	s->st.touched++;
	e->in_bpf = s->map != NULL;
	e->used = s->round;
}

static int
stacks_known(struct stacks *s, uint64_t id)
{
	return stacks_slot(s->v, s->size, id)->id == id;
}

/* Delete the kernel's ids the daemon does not know. */
static void
stacks_sweep(struct stacks *s)
{
	uint64_t	 key, next, *dead = NULL, *prev = NULL;
	size_t		 ndead = 0;

	while (s->map->next_key(s->map->arg, prev, &next) == 0) {
		if (!stacks_known(s, next)) {
			dead = xreallocarray(dead, ndead + 1, sizeof(*dead));
			dead[ndead++] = next;
		}
		key = next;
		prev = &key;
	}
	if (ndead > 0)
		s->st.swept += s->map->delete(s->map->arg, dead, ndead);
	free(dead);
}

void
stacks_round_end(struct stacks *s)
{
	struct stacks_entry	*e;
	size_t			 i;

	for (i = 0; i < s->size;) {
		e = &s->v[i];
		if (e->id == 0 || e->used == s->round) {
			i++;
			continue;
		}
		if (e->in_bpf) {
			if (s->ndel == s->delcap) {
				s->delcap = s->delcap ? s->delcap * 2 : 1024;
				s->del = xreallocarray(s->del, s->delcap,
				    sizeof(*s->del));
			}
			s->del[s->ndel++] = e->id;
			e->in_bpf = 0;
			i++;
			continue;
		}
		if (e->used + 1 < s->round) {
			/* Removal shifts entries into slot i: look again. */
			stacks_remove(s, e);
			continue;
		}
		i++;
	}
	if (s->ndel > 0)
		s->st.deleted += s->map->delete(s->map->arg, s->del, s->ndel);
	s->ndel = 0;
	if (s->map != NULL && s->round % STACKS_SWEEP_ROUNDS == 0)
		stacks_sweep(s);
	stacks_compact(s);
	s->round++;
}

void
stacks_stats(struct stacks *s, struct stacks_stats *st)
{
	struct stacks_chunk	*c;

	*st = s->st;
	st->entries = s->count;
	st->bytes = s->size * sizeof(*s->v);
	for (c = s->chunks; c != NULL; c = c->next)
		st->bytes += sizeof(*c) + c->cap * sizeof(c->w[0]);
}
