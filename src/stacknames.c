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
 * A stack unused for `rounds' rounds is dropped; past `max' stacks, or
 * STACKNAMES_NAME_BYTES of names, everything is (names are never freed
 * one by one: their ids must stay valid while a stack holds them).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "profile.h"
#include "stacknames.h"
#include "xmalloc.h"

#define STACKNAMES_CHUNK	(64 * 1024)	/* arena chunk for names */
#define STACKNAMES_NAME_BYTES	(32 << 20)	/* all names, then clear */
#define STACKNAMES_TAB_MIN	1024

struct stacknames_stack {
	uint64_t	 gen;
	uint64_t	 id;		/* 0: empty slot */
	uint32_t	*ids;		/* n names, then nextra */
	uint32_t	 n, nextra;
	uint64_t	 used;		/* round last used */
};

struct stacknames {
	unsigned int		 rounds;
	size_t			 max;
	uint64_t		 round;

	/* Interned names: strtab holds id + 1, 0 is empty. */
	const char		**strs;
	uint64_t		*strhash;
	size_t			 nstrs, strcap;
	uint32_t		*strtab;
	size_t			 strtabsz;	/* a power of two */
	char			**chunks;
	size_t			 nchunks, chunkused, strbytes;

	struct stacknames_stack	*v;
	size_t			 size;		/* a power of two */
	size_t			 count;
	size_t			 idbytes;

	uint64_t		 hits, misses, cleared;
};

struct stacknames *
stacknames_create(unsigned int rounds, size_t max)
{
	struct stacknames	*sn;

	sn = xcalloc(1, sizeof(*sn));
	stacknames_configure(sn, rounds, max);
	sn->strtabsz = STACKNAMES_TAB_MIN;
	sn->strtab = xcalloc(sn->strtabsz, sizeof(*sn->strtab));
	sn->size = STACKNAMES_TAB_MIN;
	sn->v = xcalloc(sn->size, sizeof(*sn->v));
	sn->round = 1;
	return sn;
}

void
stacknames_configure(struct stacknames *sn, unsigned int rounds, size_t max)
{
	sn->rounds = rounds > 0 ? rounds : 1;
	sn->max = max > 0 ? max : 1;
}

static void
stacknames_free_names(struct stacknames *sn)
{
	size_t	 i;

	for (i = 0; i < sn->nchunks; i++)
		free(sn->chunks[i]);
	free(sn->chunks);
	sn->chunks = NULL;
	sn->nchunks = sn->chunkused = sn->strbytes = 0;
	sn->nstrs = 0;
	memset(sn->strtab, 0, sn->strtabsz * sizeof(*sn->strtab));
}

static void
stacknames_free_stacks(struct stacknames *sn)
{
	size_t	 i;

	for (i = 0; i < sn->size; i++)
		free(sn->v[i].ids);
	memset(sn->v, 0, sn->size * sizeof(*sn->v));
	sn->count = 0;
	sn->idbytes = 0;
}

void
stacknames_free(struct stacknames *sn)
{
	if (sn == NULL)
		return;
	stacknames_free_stacks(sn);
	stacknames_free_names(sn);
	free(sn->v);
	free(sn->strs);
	free(sn->strhash);
	free(sn->strtab);
	free(sn);
}

static char *
stacknames_arena_dup(struct stacknames *sn, const char *s, size_t len)
{
	char	*d;

	if (sn->nchunks == 0 || len + 1 > STACKNAMES_CHUNK - sn->chunkused) {
		sn->chunks = xreallocarray(sn->chunks, sn->nchunks + 1,
		    sizeof(*sn->chunks));
		/* A long name gets a chunk of its own size. */
		sn->chunks[sn->nchunks++] = xmalloc(len + 1 > STACKNAMES_CHUNK ?
		    len + 1 : STACKNAMES_CHUNK);
		sn->chunkused = 0;
		sn->strbytes += len + 1 > STACKNAMES_CHUNK ? len + 1 :
		    STACKNAMES_CHUNK;
	}
	d = sn->chunks[sn->nchunks - 1] + sn->chunkused;
	sn->chunkused += len + 1;
	if (sn->chunkused > STACKNAMES_CHUNK)
		sn->chunkused = STACKNAMES_CHUNK;	/* full */
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

static void
stacknames_strtab_grow(struct stacknames *sn)
{
	size_t	 sz = sn->strtabsz * 2, mask = sz - 1, i, j;

	free(sn->strtab);
	sn->strtab = xcalloc(sz, sizeof(*sn->strtab));
	sn->strtabsz = sz;
	for (i = 0; i < sn->nstrs; i++) {
		for (j = sn->strhash[i] & mask; sn->strtab[j] != 0;
		    j = (j + 1) & mask)
			;
		sn->strtab[j] = i + 1;
	}
}

uint32_t
stacknames_intern(struct stacknames *sn, const char *s)
{
	size_t		 len = strlen(s), mask = sn->strtabsz - 1, j;
	uint64_t	 h = profile_hash_str(s, len);
	uint32_t	 id;

	for (j = h & mask; sn->strtab[j] != 0; j = (j + 1) & mask) {
		id = sn->strtab[j] - 1;
		if (sn->strhash[id] == h && strcmp(sn->strs[id], s) == 0)
			return id;
	}
	if (sn->nstrs >= UINT32_MAX - 1)
		fatalx("stacknames: too many names");
	if (sn->nstrs == sn->strcap) {
		sn->strcap = sn->strcap ? sn->strcap * 2 : STACKNAMES_TAB_MIN;
		sn->strs = xreallocarray(sn->strs, sn->strcap,
		    sizeof(*sn->strs));
		sn->strhash = xreallocarray(sn->strhash, sn->strcap,
		    sizeof(*sn->strhash));
	}
	sn->strs[sn->nstrs] = stacknames_arena_dup(sn, s, len);
	sn->strhash[sn->nstrs] = h;
	sn->strtab[j] = sn->nstrs + 1;
	sn->nstrs++;
	if (sn->nstrs * 2 > sn->strtabsz)
		stacknames_strtab_grow(sn);
	return sn->nstrs - 1;
}

const char *
stacknames_name(const struct stacknames *sn, uint32_t id)
{
	return id < sn->nstrs ? sn->strs[id] : "";
}

static struct stacknames_stack *
stacknames_slot(struct stacknames_stack *v, size_t size, uint64_t gen,
    uint64_t id)
{
	size_t	 i;

	/* Stack ids are well-mixed hashes already; gens are not. */
	for (i = (id ^ profile_hash_mix(gen)) & (size - 1);;
	    i = (i + 1) & (size - 1)) {
		if (v[i].id == 0 || (v[i].id == id && v[i].gen == gen))
			return &v[i];
	}
}

const uint32_t *
stacknames_get(struct stacknames *sn, uint64_t gen, uint64_t id, size_t *n,
    size_t *nextra)
{
	struct stacknames_stack	*e;

	*n = *nextra = 0;
	if (id == 0)
		return NULL;
	e = stacknames_slot(sn->v, sn->size, gen, id);
	if (e->id == 0) {
		sn->misses++;
		return NULL;
	}
	sn->hits++;
	e->used = sn->round;
	*n = e->n;
	*nextra = e->nextra;
	return e->ids;
}

/* Re-place every stack in a table of size slots, dropping the old. */
static void
stacknames_rehash(struct stacknames *sn, size_t size, int age)
{
	struct stacknames_stack	*v, *e, *o;
	size_t			 i;

	v = xcalloc(size, sizeof(*v));
	for (i = 0; i < sn->size; i++) {
		o = &sn->v[i];
		if (o->id == 0)
			continue;
		if (age && o->used + sn->rounds <= sn->round) {
			sn->idbytes -= (o->n + o->nextra) * sizeof(*o->ids);
			free(o->ids);
			sn->count--;
			continue;
		}
		e = stacknames_slot(v, size, o->gen, o->id);
		*e = *o;
	}
	free(sn->v);
	sn->v = v;
	sn->size = size;
}

void
stacknames_put(struct stacknames *sn, uint64_t gen, uint64_t id,
    const uint32_t *ids, size_t n, const uint32_t *extra, size_t nextra)
{
	struct stacknames_stack	*e;

	if (id == 0 || n + nextra > UINT32_MAX)
		return;
	if ((sn->count + 1) * 2 > sn->size)
		stacknames_rehash(sn, sn->size * 2, 0);
	e = stacknames_slot(sn->v, sn->size, gen, id);
	if (e->id != 0) {
		sn->idbytes -= (e->n + e->nextra) * sizeof(*e->ids);
		free(e->ids);
	} else
		sn->count++;
	e->gen = gen;
	e->id = id;
	e->n = n;
	e->nextra = nextra;
	e->ids = xreallocarray(NULL, n + nextra > 0 ? n + nextra : 1,
	    sizeof(*e->ids));
	memcpy(e->ids, ids, n * sizeof(*ids));
	if (nextra > 0)
		memcpy(e->ids + n, extra, nextra * sizeof(*extra));
	e->used = sn->round;
	sn->idbytes += (n + nextra) * sizeof(*e->ids);
}

void
stacknames_clear(struct stacknames *sn)
{
	stacknames_free_stacks(sn);
	stacknames_free_names(sn);
	sn->cleared++;
}

void
stacknames_round_end(struct stacknames *sn)
{
	size_t	 size = sn->size;

	stacknames_rehash(sn, size, 1);
	/* Shrink when most of it went. */
	while (size > STACKNAMES_TAB_MIN && sn->count * 8 < size)
		size /= 2;
	if (size != sn->size)
		stacknames_rehash(sn, size, 0);
	if (sn->count > sn->max || sn->strbytes > STACKNAMES_NAME_BYTES) {
		log_debug("stacknames: %zu stacks, %zu bytes of names: "
		    "cleared", sn->count, sn->strbytes);
		stacknames_clear(sn);
	}
	sn->round++;
}

void
stacknames_stats(const struct stacknames *sn, struct stacknames_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->stacks = sn->count;
	st->names = sn->nstrs;
	st->bytes = sn->size * sizeof(*sn->v) + sn->idbytes + sn->strbytes +
	    sn->strtabsz * sizeof(*sn->strtab) +
	    sn->strcap * (sizeof(*sn->strs) + sizeof(*sn->strhash));
	st->hits = sn->hits;
	st->misses = sn->misses;
	st->cleared = sn->cleared;
}
