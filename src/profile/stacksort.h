#ifndef EBPFSPY_STACKSORT_H
#define EBPFSPY_STACKSORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sorting a profile's stacks frame by frame, for the writers that need
 * them in order (folded files, flame graphs).  A frame sorts by the rank
 * its writer gives its name: rank[id] for the flame graph, or, with
 * STACKSORT_LAST, rank[2 * id] when the frame ends its stack and
 * rank[2 * id + 1] when another follows (the folded text, where a ';'
 * follows).  Equal ranks are equal frames; a stack sorts before the
 * stacks it is a prefix of.
 */
struct stacksort_item {
	const uint32_t	*ids;		/* root first */
	size_t		 n;
	size_t		 index;		/* the caller's, carried along */
};

#define STACKSORT_LAST	0x1

void	stacksort(struct stacksort_item *, size_t, const uint32_t *, int);
/* <0, 0, >0 as the two stacks compare. */
int	stacksort_cmp(const struct stacksort_item *,
	    const struct stacksort_item *, const uint32_t *, int);

#endif
