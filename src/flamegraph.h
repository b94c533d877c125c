#ifndef EBPFSPY_FLAMEGRAPH_H
#define EBPFSPY_FLAMEGRAPH_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "profile.h"

struct config;

/*
 * SVG flame graphs, self-contained (inline CSS and JavaScript): the root
 * at the bottom, a frame as wide as its value (samples for cpu,
 * nanoseconds for offcpu), stacks merged, a frame's callees ordered by
 * name.  Frames narrower than FLAMEGRAPH_MIN_WIDTH pixels are left out,
 * and so are the narrowest ones beyond FLAMEGRAPH_MAX_FRAMES, which
 * bounds the size of the file whatever the profile.
 */
#define FLAMEGRAPH_WIDTH	1200	/* pixels */
#define FLAMEGRAPH_XPAD		10	/* pixels left and right */
#define FLAMEGRAPH_MIN_WIDTH	0.1	/* pixels */
#define FLAMEGRAPH_MAX_FRAMES	20000
#define FLAMEGRAPH_MAX_DEPTH	1024	/* deeper frames are folded in */

/* One frame as it is drawn. */
struct flamegraph_frame {
	const char	*name;
	unsigned int	 depth;		/* 0: the roots */
	uint64_t	 start;		/* the values left of it */
	uint64_t	 value;		/* its own and its callees' */
};

struct flamegraph;

/* The profile must outlive the flame graph. */
struct flamegraph *flamegraph_create(const struct profile *);
void		 flamegraph_free(struct flamegraph *);
/* Every frame drawn, callees before callers; stops at a non-zero return. */
int		 flamegraph_walk(const struct flamegraph *,
		    int (*)(const struct flamegraph_frame *, void *), void *);
uint64_t	 flamegraph_total(const struct flamegraph *);
unsigned int	 flamegraph_depth(const struct flamegraph *);	/* deepest */
enum profile_type flamegraph_type(const struct flamegraph *);

/*
 * flamegraph_svg.c: the SVG document; the title is plain text.  Returns
 * 0, or -1 with errno set on a write error.
 */
int		 flamegraph_svg_write(const struct flamegraph *, const char *,
		    FILE *);

/*
 * Add the folded stacks of a file ("root;...;leaf value" lines) to a
 * profile, reading at most *budget bytes and taking them off it.  Lines
 * that are not folded stacks are skipped.  Returns the number of lines
 * added, or -1 with errno set on a read error.
 */
long		 flamegraph_folded_read(struct profile *, FILE *, size_t *);

/*
 * The files sink's flame graphs of a profile sink_file_write() has just
 * written: <dir>/<type>/<service>/latest.svg of the profile, and
 * last-hour.svg of the .folded files of that directory from the hour up
 * to now.  Returns 0, or -1 after logging.
 */
int		 flamegraph_write(const struct config *,
		    const struct profile *, time_t);

#endif
