#ifndef EBPFSPY_UNWIND_MAPS_SPACE_H
#define EBPFSPY_UNWIND_MAPS_SPACE_H

#include <stddef.h>
#include <stdint.h>

/* Free room of an array: sorted, disjoint, coalesced. */
struct unwind_maps_extent {
	uint32_t	 start;
	uint32_t	 len;
};

struct unwind_maps_space {
	struct unwind_maps_extent	*free;
	size_t				 nfree;
	struct unwind_maps_extent	*later;	/* free after the grace */
	size_t				 nlater;
	size_t				 size;
	size_t				 used;
};

void		 unwind_maps_space_init(struct unwind_maps_space *, size_t);
void		 unwind_maps_space_clear(struct unwind_maps_space *);
/* The start of len free entries, or -1. */
int64_t		 unwind_maps_space_alloc(struct unwind_maps_space *, uint32_t);
void		 unwind_maps_space_put(struct unwind_maps_space *, uint32_t,
		    uint32_t);
void		 unwind_maps_space_free_later(struct unwind_maps_space *,
		    uint32_t, uint32_t);
void		 unwind_maps_space_reclaim(struct unwind_maps_space *);

#endif
