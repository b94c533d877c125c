#ifndef EBPFSPY_STACKS_H
#define EBPFSPY_STACKS_H

#include <stddef.h>
#include <stdint.h>

struct session;
struct stacks;

struct stacks_stats {
	size_t		entries;
	size_t		bytes;		/* the table and the frames */
	uint64_t	hits, misses, lost;
	uint64_t	touched;	/* sampled, frames not read */
	uint64_t	taken;		/* in batches, the whole map */
	uint64_t	deleted, swept;
};

struct stacks	*stacks_create(struct session *);
struct stacks	*stacks_create_map(int, size_t,
		    size_t (*)(const uint64_t *, size_t));
void		 stacks_free(struct stacks *);
/*
 * The frames of a stack id (leaf first) and their number -- of a map
 * of stacks_create_map(), the words len() kept --; NULL with *n = 0
 * when the id is not known.  Valid until stacks_round_end().
 */
const uint64_t	*stacks_get(struct stacks *, uint64_t, size_t *);
/* Before the round's stacks_get(): take BPF's stacks, in batches. */
void		 stacks_take(struct stacks *);
void		 stacks_touch(struct stacks *, uint64_t);
void		 stacks_round_end(struct stacks *);
void		 stacks_stats(struct stacks *, struct stacks_stats *);

#endif
