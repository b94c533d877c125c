#ifndef EBPFSPY_FLAMEGRAPH_INT_H
#define EBPFSPY_FLAMEGRAPH_INT_H

#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct profile;

/*
 * Between the hour's sums (flamegraph_hour.c) and the folded stacks
 * they add (flamegraph_read.c).
 */
/* A file of the hour and what it added to the sum. */
struct flamegraph_hour_file {
	time_t			 when;
	struct stat		 sb;		/* inode, size, times */
	char			 name[64];
	size_t			 cap;		/* budget it was read with */
	size_t			 bytes;		/* read of it */
	uint32_t		*stacks;	/* a line's stack in the sum */
	uint64_t		*values;	/* and its value */
	size_t			 n, ncap;
};

/*
 * flamegraph_folded_read(), each line added also noted in the file's
 * record.  flamegraph_read_profile() adds instead the stacks of a
 * profile as folded_write() wrote them, noted the same: 1, or 0 having
 * added nothing when the file might not read back the same (a line
 * over the reader's bounds), and must be read.
 */
long	 flamegraph_read(struct profile *, FILE *, size_t *,
	    struct flamegraph_hour_file *);
int	 flamegraph_read_profile(struct profile *, const struct profile *,
	    struct flamegraph_hour_file *);

#endif
