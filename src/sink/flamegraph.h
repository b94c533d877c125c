#ifndef EBPFSPY_FLAMEGRAPH_H
#define EBPFSPY_FLAMEGRAPH_H

#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "profile/profile.h"

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
	uint32_t	 id;		/* of the name, below nnames */
	unsigned int	 depth;		/* 0: the roots */
	uint64_t	 start;		/* the values left of it */
	uint64_t	 value;		/* its own and its callees' */
};

struct flamegraph;
struct flamegraph_order;

/*
 * The profile must outlive the flame graph.  flamegraph_create_ordered()
 * keeps the stacks' order in o for the next graph of the same profile,
 * which may only have grown since (stacks and names added after the
 * others, values changed): only what is new is sorted.
 */
struct flamegraph *flamegraph_create(const struct profile *);
struct flamegraph *flamegraph_create_ordered(const struct profile *,
		    struct flamegraph_order *);
struct flamegraph_order *flamegraph_order_create(void);
void		 flamegraph_order_free(struct flamegraph_order *);
void		 flamegraph_free(struct flamegraph *);
/* Every frame drawn, callees before callers; stops at a non-zero return. */
int		 flamegraph_walk(const struct flamegraph *,
		    int (*)(const struct flamegraph_frame *, void *), void *);
uint64_t	 flamegraph_total(const struct flamegraph *);
unsigned int	 flamegraph_depth(const struct flamegraph *);	/* deepest */
enum profile_type flamegraph_type(const struct flamegraph *);
size_t		 flamegraph_nnames(const struct flamegraph *);

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

#define FLAMEGRAPH_HOUR		3600		/* seconds of last-hour.svg */
#define FLAMEGRAPH_HOUR_BYTES	(64 << 20)	/* folded bytes read */
/* Bytes held, a directory and all, unless flamegraph_hours_mem() says. */
#define FLAMEGRAPH_HOUR_MEM	(1 << 20)
#define FLAMEGRAPH_HOURS_MEM	(2 << 20)

/*
 * flamegraph_hour.c: the profiles of the last hour of the sink's
 * directories, each the sum of the directory's .folded files of the
 * hour, kept from one round to the next.  flamegraph_hours_get() brings
 * a directory's sum up to date with the files there now and returns it
 * (owned by hs; stacks of value 0 in it are holes) with the order of its
 * stacks to draw it by and the time it covers from, or NULL after
 * logging.  The files summed are those of the whole minutes of the hour
 * (59 to 60 minutes); the sums hold at most FLAMEGRAPH_HOUR_MEM bytes a
 * directory and FLAMEGRAPH_HOURS_MEM for all, or leave their oldest
 * minutes out.  flamegraph_hours_sweep() drops the sums not used
 * lately.
 */
struct flamegraph_hours;

struct flamegraph_hours *flamegraph_hours_create(void);
void		 flamegraph_hours_free(struct flamegraph_hours *);
struct profile	*flamegraph_hours_get(struct flamegraph_hours *,
		    const char *, const struct profile *, time_t,
		    struct flamegraph_order **, time_t *);
void		 flamegraph_hours_sweep(struct flamegraph_hours *, time_t);
/*
 * The .folded file just written at a path, with its stat, holds the
 * stacks of a profile: the next flamegraph_hours_get() takes them from
 * the profile, which must live until then, rather than reading the
 * file back.  A NULL path forgets it.
 */
void		 flamegraph_hours_known(struct flamegraph_hours *,
		    const char *, const struct stat *,
		    const struct profile *);
void		 flamegraph_hours_budget(struct flamegraph_hours *, size_t);
void		 flamegraph_hours_mem(struct flamegraph_hours *, size_t,
		    size_t);
size_t		 flamegraph_hours_bytes(const struct flamegraph_hours *);
/*
 * With defer set, flamegraph_write() brings the hour up to date but
 * leaves last-hour.svg to flamegraph_hours_draw(), which draws those
 * left and returns how many, or -1 after logging if one failed.
 */
void		 flamegraph_hours_defer(struct flamegraph_hours *, int);
long		 flamegraph_hours_draw(struct flamegraph_hours *);
void		 flamegraph_hours_log_state(struct flamegraph_hours *);

/*
 * flamegraph_write.c: the files sink's flame graphs of a profile
 * sink_file_write() has just written: <dir>/<type>/<service>/latest.svg
 * of the profile or of shown (not NULL: a merge that ends with it), and
 * last-hour.svg of the .folded files of that directory from the hour up
 * to now, kept in hs from round to round (NULL: read them all now).
 * Returns 0, or -1 after logging.  flamegraph_write_merge() is the
 * profile of two rounds' .folded files, the first from start (ns), the
 * second p's: what latest.svg shows of a round too short to stand
 * alone.
 */
int		 flamegraph_write(struct flamegraph_hours *,
		    const struct config *, const struct profile *,
		    const struct profile *, time_t);
struct profile	*flamegraph_write_merge(const struct profile *,
		    const char *, const char *, int64_t);
/*
 * flamegraph_title.c: "service: type, [what, ]total, span UTC", the
 * total in samples or seconds with thousands separated, the span
 * "YYYY-MM-DD HH:MM:SS-HH:MM:SS" (the date again past midnight).
 * flamegraph_title() returns -1 when a time is out of range.
 */
void		 flamegraph_title_total(char *, size_t, enum profile_type,
		    uint64_t);
int		 flamegraph_title(char *, size_t, const char *,
		    enum profile_type, const char *, uint64_t, time_t, time_t);
/*
 * With defer set, flamegraph_write() brings the hour up to date but
 * leaves last-hour.svg to flamegraph_write_pending(), which draws those
 * left and returns how many, or -1 after logging if one failed.
 */
void		 flamegraph_write_defer(struct flamegraph_hours *, int);
long		 flamegraph_write_pending(struct flamegraph_hours *);

#endif
