/*
 * Interned strings.  A profile of a busy round brings tens of thousands
 * of frame names and a round looks each up once per frame, so the table
 * is open addressing with linear probes, at most half full, and holds
 * ids, not pointers: a probe compares the stored hash of an id before
 * it reads the string.  The strings live in a chunked arena, so that
 * adding one rarely allocates and freeing them all is a handful of
 * free() calls whatever their number.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "intern.h"
#include "log.h"
#include "xmalloc.h"

#define INTERN_CHUNK	(64 * 1024)	/* arena chunk, at most */
#define INTERN_CHUNK_MIN 1024		/* the first one */
#define INTERN_TAB_MIN	64		/* first table size */

struct intern {
	/* id -> string and its hash; tab holds id + 1, 0 is empty. */
	const char	**strs;
	uint64_t	 *hashes;
	size_t		  n, cap;
	uint32_t	 *tab;
	size_t		  tabsz;	/* a power of two */

	/* The arena; the chunk being filled is the last. */
	char		**chunks;
	size_t		  nchunks;
	size_t		  chunkused;	/* of chunks[nchunks - 1] */
	size_t		  chunksz;	/* its size; 0: none or full */
	size_t		  chunkbytes;	/* all chunks */
};

struct intern *
intern_create(void)
{
	struct intern	*in;

	in = xcalloc(1, sizeof(*in));
	in->tabsz = INTERN_TAB_MIN;
	in->tab = xcalloc(in->tabsz, sizeof(*in->tab));
	return in;
}

/* The table and index keep their size: they fill up again as fast. */
void
intern_clear(struct intern *in)
{
	size_t	 i;

	for (i = 0; i < in->nchunks; i++)
		free(in->chunks[i]);
	free(in->chunks);
	in->chunks = NULL;
	in->nchunks = in->chunkused = in->chunkbytes = in->chunksz = 0;
	in->n = 0;
	memset(in->tab, 0, in->tabsz * sizeof(*in->tab));
}

void
intern_free(struct intern *in)
{
	if (in == NULL)
		return;
	intern_clear(in);
	free(in->strs);
	free(in->hashes);
	free(in->tab);
	free(in);
}

/*
 * Copy a string into the arena.  One longer than a quarter chunk gets a
 * chunk of its own, put before the last, so that a few long C++ names
 * neither waste most of a chunk nor end the one being filled.  Chunks
 * double from INTERN_CHUNK_MIN: a table of a few names (a last-hour sum
 * of an idle service, of which a daemon may keep hundreds) holds a few
 * KiB, not 64.
 */
static char *
intern_dup(struct intern *in, const char *s, size_t len)
{
	char	*d;

	if (len + 1 > INTERN_CHUNK / 4) {
		d = xmalloc(len + 1);
		in->chunks = xreallocarray(in->chunks, in->nchunks + 1,
		    sizeof(*in->chunks));
		if (in->nchunks > 0) {
			in->chunks[in->nchunks] = in->chunks[in->nchunks - 1];
			in->chunks[in->nchunks - 1] = d;
		} else {
			in->chunks[0] = d;
			in->chunkused = in->chunksz = 0;	/* no room */
		}
		in->nchunks++;
		in->chunkbytes += len + 1;
	} else {
		if (in->chunksz - in->chunkused < len + 1) {
			in->chunksz = in->chunksz == 0 ? INTERN_CHUNK_MIN :
			    in->chunksz * 2;
			while (in->chunksz < len + 1)
				in->chunksz *= 2;
			if (in->chunksz > INTERN_CHUNK)
				in->chunksz = INTERN_CHUNK;
			in->chunks = xreallocarray(in->chunks,
			    in->nchunks + 1, sizeof(*in->chunks));
			in->chunks[in->nchunks++] = xmalloc(in->chunksz);
			in->chunkused = 0;
			in->chunkbytes += in->chunksz;
		}
		d = in->chunks[in->nchunks - 1] + in->chunkused;
		in->chunkused += len + 1;
	}
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

static void
intern_grow(struct intern *in)
{
	size_t	 sz = in->tabsz * 2, mask = sz - 1, i, j;

	free(in->tab);
	in->tab = xcalloc(sz, sizeof(*in->tab));
	in->tabsz = sz;
	for (i = 0; i < in->n; i++) {
		for (j = in->hashes[i] & mask; in->tab[j] != 0;
		    j = (j + 1) & mask)
			;
		in->tab[j] = i + 1;
	}
}

/* Look s up; on a miss *slot is the free slot it would go in. */
static int
intern_lookup(const struct intern *in, const char *s, uint64_t h,
    size_t *slot)
{
	size_t		 mask = in->tabsz - 1, j;
	uint32_t	 id;

	for (j = h & mask; in->tab[j] != 0; j = (j + 1) & mask) {
		id = in->tab[j] - 1;
		if (in->hashes[id] == h && strcmp(in->strs[id], s) == 0)
			break;
	}
	*slot = j;
	return in->tab[j] != 0;
}

uint32_t
intern_add(struct intern *in, const char *s)
{
	size_t		 len = strlen(s), j;
	uint64_t	 h = hash_bytes(s, len);

	if (intern_lookup(in, s, h, &j))
		return in->tab[j] - 1;

	if (in->n >= UINT32_MAX - 1)
		fatalx("intern: too many strings");
	if (in->n == in->cap) {
		in->cap = in->cap ? in->cap * 2 : INTERN_TAB_MIN;
		in->strs = xreallocarray(in->strs, in->cap,
		    sizeof(*in->strs));
		in->hashes = xreallocarray(in->hashes, in->cap,
		    sizeof(*in->hashes));
	}
	in->strs[in->n] = intern_dup(in, s, len);
	in->hashes[in->n] = h;
	in->tab[j] = in->n + 1;
	in->n++;
	/* At most half full: probes stay short. */
	if (in->n * 2 > in->tabsz)
		intern_grow(in);
	return in->n - 1;
}

int
intern_find(const struct intern *in, const char *s, uint32_t *id)
{
	size_t	 j;

	if (!intern_lookup(in, s, hash_str(s), &j))
		return -1;
	*id = in->tab[j] - 1;
	return 0;
}

const char *
intern_name(const struct intern *in, uint32_t id)
{
	return id < in->n ? in->strs[id] : NULL;
}

size_t
intern_count(const struct intern *in)
{
	return in->n;
}

size_t
intern_bytes(const struct intern *in)
{
	return in->chunkbytes + in->nchunks * sizeof(*in->chunks) +
	    in->tabsz * sizeof(*in->tab) +
	    in->cap * (sizeof(*in->strs) + sizeof(*in->hashes));
}
