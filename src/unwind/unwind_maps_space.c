/*
 * Room in the unwind arrays (rows, pages): free extents kept sorted,
 * disjoint and coalesced; an allocation takes the first that fits.
 * Room given back may still be read by a walk that found its slot
 * before it was cleared, so it waits on a "later" list until the caller
 * has waited out the grace (unwind_maps.c) and reclaims it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind_maps_space.h"
#include "util/xmalloc.h"

void
unwind_maps_space_init(struct unwind_maps_space *sp, size_t size)
{
	memset(sp, 0, sizeof(*sp));
	sp->size = size;
	sp->free = xcalloc(1, sizeof(*sp->free));
	sp->free[0].start = 0;
	sp->free[0].len = size;
	sp->nfree = 1;
}

void
unwind_maps_space_clear(struct unwind_maps_space *sp)
{
	free(sp->free);
	free(sp->later);
}

/* First fit: the start of len entries, or -1. */
int64_t
unwind_maps_space_alloc(struct unwind_maps_space *sp, uint32_t len)
{
	struct unwind_maps_extent	*e;
	size_t				 i;
	uint32_t			 start;

	if (len == 0)
		return 0;
	for (i = 0; i < sp->nfree; i++) {
		e = &sp->free[i];
		if (e->len < len)
			continue;
		start = e->start;
		e->start += len;
		e->len -= len;
		if (e->len == 0) {
			memmove(e, e + 1, (sp->nfree - i - 1) * sizeof(*e));
			sp->nfree--;
		}
		sp->used += len;
		return start;
	}
	return -1;
}

void
unwind_maps_space_put(struct unwind_maps_space *sp, uint32_t start,
    uint32_t len)
{
	struct unwind_maps_extent	*v;
	size_t				 i;

	if (len == 0)
		return;
	sp->used -= len;
	for (i = 0; i < sp->nfree && sp->free[i].start < start; i++)
		;
	sp->free = xreallocarray(sp->free, sp->nfree + 1, sizeof(*sp->free));
	v = sp->free;
	memmove(&v[i + 1], &v[i], (sp->nfree - i) * sizeof(*v));
	v[i].start = start;
	v[i].len = len;
	sp->nfree++;
	/* Join the next, then the previous. */
	if (i + 1 < sp->nfree && v[i].start + v[i].len == v[i + 1].start) {
		v[i].len += v[i + 1].len;
		memmove(&v[i + 1], &v[i + 2], (sp->nfree - i - 2) *
		    sizeof(*v));
		sp->nfree--;
	}
	if (i > 0 && v[i - 1].start + v[i - 1].len == v[i].start) {
		v[i - 1].len += v[i].len;
		memmove(&v[i], &v[i + 1], (sp->nfree - i - 1) * sizeof(*v));
		sp->nfree--;
	}
}

/* Free after the grace: a walk may still read it now. */
void
unwind_maps_space_free_later(struct unwind_maps_space *sp, uint32_t start,
    uint32_t len)
{
	if (len == 0)
		return;
	sp->later = xreallocarray(sp->later, sp->nlater + 1,
	    sizeof(*sp->later));
	sp->later[sp->nlater].start = start;
	sp->later[sp->nlater].len = len;
	sp->nlater++;
}

void
unwind_maps_space_reclaim(struct unwind_maps_space *sp)
{
	size_t	 i;

	for (i = 0; i < sp->nlater; i++)
		unwind_maps_space_put(sp, sp->later[i].start,
		    sp->later[i].len);
	sp->nlater = 0;
}

/* --- files -------------------------------------------------------- */
