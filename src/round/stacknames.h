#ifndef EBPFSPY_STACKNAMES_H
#define EBPFSPY_STACKNAMES_H

#include <stddef.h>
#include <stdint.h>

/*
 * The names of stacks, kept across rounds.  Frame names are interned:
 * a name is a 32-bit id, the same for the daemon's whole life (until
 * stacknames_clear()); so is a location, a name with its details.  A
 * stack that was named is kept as the list of its locations' ids under
 * a generation (of a process's mappings, or of the kernel's symbols)
 * and its stack id, so that a stack seen again is neither read from BPF
 * nor named again.  So is a frame, under a generation and its address.
 */

struct frametab;
struct frametab_frame;
struct intern;
struct stacknames;

struct stacknames_stats {
	size_t		stacks;		/* named stacks kept */
	size_t		frames;		/* named frames kept */
	size_t		names;		/* interned names */
	size_t		bytes;		/* memory of both */
	uint64_t	hits, misses;		/* of stacks */
	uint64_t	frame_hits, frame_misses;
	uint64_t	cleared;
	uint64_t	compacted;	/* names copied, the unused left */
};

/* rounds: how long an unused stack is kept; max: how many are kept. */
struct stacknames *stacknames_create(unsigned int rounds, size_t max);
void		 stacknames_free(struct stacknames *);
void		 stacknames_configure(struct stacknames *, unsigned int,
		    size_t);

uint32_t	 stacknames_intern(struct stacknames *, const char *);
const char	*stacknames_name(const struct stacknames *, uint32_t);
/* The names as an intern table: ids are the same. */
const struct intern *stacknames_names(const struct stacknames *);
/*
 * Frames as locations (frametab.h): a name and its pprof details (NULL:
 * none) as an id, and its name.  Stacks and frames are kept as such.
 */
struct frametab	*stacknames_frames(const struct stacknames *);
uint32_t	 stacknames_loc(struct stacknames *, const char *,
		    const struct frametab_frame *);
const char	*stacknames_loc_name(const struct stacknames *, uint32_t);

/*
 * The names of stack id under generation gen: *n ids, outermost first;
 * then *nextra more ids after them that the caller asked to keep (the
 * unknown ones, for statistics).  NULL when not kept.  Valid until the
 * next stacknames_put() or stacknames_round_end().  A stack put is kept
 * from the second time it is put within this round and the last.
 */
const uint32_t	*stacknames_get(struct stacknames *, uint64_t, uint64_t,
		    size_t *, size_t *);
void		 stacknames_put(struct stacknames *, uint64_t, uint64_t,
		    const uint32_t *, size_t, const uint32_t *, size_t);

/*
 * The names of the frame at addr under generation gen: *n ids (several
 * where functions were inlined there) and the flags they were put
 * with.  NULL when not kept, and always for address 0.  Valid until
 * the next stacknames_frame_put() or stacknames_round_end().
 */
const uint32_t	*stacknames_frame_get(struct stacknames *, uint64_t,
		    uint64_t, size_t *, uint32_t *);
void		 stacknames_frame_put(struct stacknames *, uint64_t, uint64_t,
		    const uint32_t *, size_t, uint32_t);

/* Age the stacks and frames; drop them all, names too, past the bounds. */
void		 stacknames_round_end(struct stacknames *);
void		 stacknames_clear(struct stacknames *);
void		 stacknames_stats(const struct stacknames *,
		    struct stacknames_stats *);

#endif
