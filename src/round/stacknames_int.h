/*
 * The insides of stacknames, shared by stacknames.c (interned names and
 * what the callers see) and stacknames_tab.c (the tables of id lists
 * that named stacks and named frames are kept in).  Nothing else
 * includes it.
 */
#ifndef EBPFSPY_STACKNAMES_INT_H
#define EBPFSPY_STACKNAMES_INT_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

/* Lists of at most this many ids live in their entry, not malloc()'d. */
#define STACKNAMES_INLINE	2

/*
 * A list of ids under (gen, id): n, then nextra more.  32 bytes, two
 * to a cache line: a lookup is one miss, not two.
 */
struct stacknames_entry {
	uint64_t	 gen;
	uint64_t	 id;		/* 0: empty slot */
	union {
		uint32_t	*p;
		uint32_t	 v[STACKNAMES_INLINE];
	} ids;
	uint16_t	 n, nextra;
	uint32_t	 used;		/* round last used, low bits */
};

/* A key's hash: addresses are not hashes, generations small numbers. */
static inline uint64_t
stacknames_key_hash(uint64_t gen, uint64_t id)
{
	return hash_pair(id, gen);
}

/* Open addressing, linear probes, at most half full. */
struct stacknames_tab {
	struct stacknames_entry	*v;
	size_t			 size;		/* a power of two */
	size_t			 count;
	size_t			 idbytes;	/* of the malloc()'d lists */
	uint64_t		 hits, misses;
};

void		 stacknames_tab_init(struct stacknames_tab *);
void		 stacknames_tab_free(struct stacknames_tab *);
void		 stacknames_tab_clear(struct stacknames_tab *);
const uint32_t	*stacknames_tab_get(struct stacknames_tab *, uint64_t,
		    uint64_t, uint64_t, size_t *, size_t *);
void		 stacknames_tab_put(struct stacknames_tab *, uint64_t,
		    uint64_t, uint64_t, const uint32_t *, size_t,
		    const uint32_t *, size_t);
void		 stacknames_tab_age(struct stacknames_tab *, uint64_t,
		    unsigned int);
void		 stacknames_tab_remap(struct stacknames_tab *, int,
		    uint32_t (*)(void *, uint32_t), void *);
size_t		 stacknames_tab_bytes(const struct stacknames_tab *);

#endif
