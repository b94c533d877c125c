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
 * A stack or frame unused for `rounds' rounds is dropped; past `max'
 * stacks or frames, or STACKNAMES_NAME_BYTES of names, everything is
 * (names are never freed one by one: their ids must stay valid while a
 * stack holds them).  The tables are stacknames_tab.c's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "log.h"
#include "stacknames.h"
#include "stacknames_int.h"
#include "xmalloc.h"

#define STACKNAMES_CHUNK	(64 * 1024)	/* arena chunk for names */
#define STACKNAMES_NAME_BYTES	(32 << 20)	/* all names, then clear */
#define STACKNAMES_STRTAB_MIN	1024
/* Stacks put lately: the round, in a byte per hash of their keys. */
#define STACKNAMES_SEEN_SHIFT	18

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

	struct stacknames_tab	 stacks;	/* by (gen, stack id) */
	uint8_t			*seen;		/* round put, low bits */
	struct stacknames_tab	 frames;	/* by (gen, address) */

	uint64_t		 cleared;
};

struct stacknames *
stacknames_create(unsigned int rounds, size_t max)
{
	struct stacknames	*sn;

	sn = xcalloc(1, sizeof(*sn));
	stacknames_configure(sn, rounds, max);
	sn->strtabsz = STACKNAMES_STRTAB_MIN;
	sn->strtab = xcalloc(sn->strtabsz, sizeof(*sn->strtab));
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

void
stacknames_free(struct stacknames *sn)
{
	if (sn == NULL)
		return;
	stacknames_tab_free(&sn->stacks);
	stacknames_tab_free(&sn->frames);
	stacknames_free_names(sn);
	free(sn->seen);
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
	uint64_t	 h = hash_bytes(s, len);
	uint32_t	 id;

	for (j = h & mask; sn->strtab[j] != 0; j = (j + 1) & mask) {
		id = sn->strtab[j] - 1;
		if (sn->strhash[id] == h && strcmp(sn->strs[id], s) == 0)
			return id;
	}
	if (sn->nstrs >= UINT32_MAX - 1)
		fatalx("stacknames: too many names");
	if (sn->nstrs == sn->strcap) {
		sn->strcap = sn->strcap ? sn->strcap * 2 :
		    STACKNAMES_STRTAB_MIN;
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
	stacknames_free_names(sn);
	sn->cleared++;
}

void
stacknames_round_end(struct stacknames *sn)
{
	stacknames_tab_age(&sn->stacks, sn->round, sn->rounds);
	stacknames_tab_age(&sn->frames, sn->round, sn->rounds);
	if (sn->stacks.count > sn->max || sn->frames.count > sn->max ||
	    sn->strbytes > STACKNAMES_NAME_BYTES) {
		log_debug("stacknames: %zu stacks, %zu frames, %zu bytes of "
		    "names: cleared", sn->stacks.count, sn->frames.count,
		    sn->strbytes);
		stacknames_clear(sn);
	}
	sn->round++;
}

void
stacknames_stats(const struct stacknames *sn, struct stacknames_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->stacks = sn->stacks.count;
	st->frames = sn->frames.count;
	st->names = sn->nstrs;
	st->bytes = stacknames_tab_bytes(&sn->stacks) +
	    stacknames_tab_bytes(&sn->frames) + sn->strbytes +
	    sn->strtabsz * sizeof(*sn->strtab) +
	    sn->strcap * (sizeof(*sn->strs) + sizeof(*sn->strhash)) +
	    (1U << STACKNAMES_SEEN_SHIFT) * sizeof(*sn->seen);
	st->hits = sn->stacks.hits;
	st->misses = sn->stacks.misses;
	st->frame_hits = sn->frames.hits;
	st->frame_misses = sn->frames.misses;
	st->cleared = sn->cleared;
}
