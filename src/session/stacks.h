#ifndef EBPFSPY_STACKS_H
#define EBPFSPY_STACKS_H

#include <stddef.h>
#include <stdint.h>

struct stacks;

struct stacks_stats {
	size_t		entries;
	size_t		bytes;		/* the table and the frames */
	uint64_t	hits, misses, lost;
	uint64_t	touched;	/* sampled, frames not read */
	uint64_t	records;	/* native: records of the ring */
	uint64_t	again;		/* of them, of stacks held already */
	uint64_t	deleted, swept;	/* Python's: from the map */
};

/*
 * A BPF map of stacks, as its owner (src/session/session_stacks.c) reads it:
 * lookup copies the value of an id into a buffer of the store's words,
 * 0 or -1 when not held; delete deletes n ids and says how many were;
 * next_key gives the key after *prev (NULL: the first), -1 at the end.
 */
struct stacks_map {
	int		(*lookup)(void *, uint64_t, uint64_t *);
	size_t		(*delete)(void *, const uint64_t *, size_t);
	int		(*next_key)(void *, const uint64_t *, uint64_t *);
	void		*arg;
};

/* Native stacks, given by stacks_add(). */
struct stacks	*stacks_create(void);
/*
 * Stacks of a BPF map, read when needed: Python's.  The map must
 * outlive the store.
 */
struct stacks	*stacks_create_map(const struct stacks_map *, size_t,
		    size_t (*)(const uint64_t *, size_t));
void		 stacks_free(struct stacks *);
/*
 * The frames of a stack id (leaf first) and their number -- of a map
 * of stacks_create_map(), the words len() kept --; NULL with *n = 0
 * when the id is not known.  Valid until stacks_round_end().
 */
const uint64_t	*stacks_get(struct stacks *, uint64_t, size_t *);
/* Without marking it used: NULL if not held. */
const uint64_t	*stacks_peek(struct stacks *, uint64_t, size_t *);
/* A stack record of BPF's ring: n frames, leaf first. */
void		 stacks_add(struct stacks *, uint64_t, const uint64_t *,
		    size_t);
void		 stacks_touch(struct stacks *, uint64_t);
void		 stacks_round_end(struct stacks *);
void		 stacks_stats(struct stacks *, struct stacks_stats *);

#endif
