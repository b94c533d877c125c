#ifndef EBPFSPY_FLAMEGRAPH_INT_H
#define EBPFSPY_FLAMEGRAPH_INT_H

#include <sys/stat.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct profile;

/*
 * A stack in sorted order, as the layout walks need it: the frames it
 * shares with the stack before it, then its own in tails.  The walks
 * read these in order, never the profile's stacks, which lie in the
 * order they came in.
 */
struct flamegraph_row {
	uint32_t		 common;
	uint32_t		 n;		/* frames, at most MAX_DEPTH */
	size_t			 off;		/* of frame common in tails */
	uint64_t		 value;
};

struct flamegraph_rows {
	struct flamegraph_row	*rows;
	size_t			 nrows;
	uint32_t		*tails;
	size_t			 ntails;
	uint64_t		 total;
};

/* flamegraph_order.c: the rows of a profile's stacks of value > 0. */
struct flamegraph_order;
void	 flamegraph_order_rows(const struct profile *,
	    struct flamegraph_order *, struct flamegraph_rows *);

/*
 * Between the hour's sums (flamegraph_hour.c) and the folded stacks
 * they add (flamegraph_read.c).
 */
/*
 * A file of the hour and what it added to the sum, while its minute is
 * loose: the minute that goes on, or one with a file cut by the byte
 * budget.
 */
struct flamegraph_hour_bucket;
struct flamegraph_hour_file {
	time_t			 when;
	struct stat		 sb;		/* inode, size, times */
	char			 name[64];
	size_t			 cap;		/* budget it was read with */
	size_t			 bytes;		/* read of it */
	uint32_t		*stacks;	/* a line's stack in the sum */
	uint64_t		*values;	/* and its value */
	size_t			 n, ncap;
	/* Its minute, kept merged this round: read no more. */
	struct flamegraph_hour_bucket *bucket;
};

/*
 * The files of a minute that is over, merged into what they added
 * together, a stack once, and what tells whether they are the same
 * files still: a digest of their names, inodes, sizes and times.
 */
#define FLAMEGRAPH_HOUR_BUCKET	60		/* seconds of a bucket */
struct flamegraph_hour_bucket {
	time_t			 key;		/* when / BUCKET */
	uint64_t		 digest;
	size_t			 nfiles;
	size_t			 bytes;		/* read of them */
	int			 read;		/* 0: none, budget spent */
	uint32_t		*stacks;
	uint64_t		*values;
	size_t			 n;
};

/* flamegraph_hour.c: one directory's hour, and all of them. */
struct flamegraph_hour {
	char			*dir;
	struct profile		*p;		/* the sum */
	struct flamegraph_order	*order;		/* of its stacks */
	struct flamegraph_hour_file *files;	/* loose, newest first */
	size_t			 nfiles;
	struct flamegraph_hour_bucket **buckets; /* newest first */
	size_t			 nbuckets;
	time_t			 from;		/* before: left for memory */
	time_t			 oldest;	/* file summed, its time */
	size_t			 nlisted;	/* files summed */
	size_t			 mem;		/* bytes held, about */
	time_t			 used;
	uint64_t		 seen;		/* the round it was used in */
	char			*pending;	/* title: to draw still */
	struct flamegraph_hour	*next;
};

struct flamegraph_hours {
	struct flamegraph_hour	*list;
	size_t			 budget;	/* bytes read of an hour */
	size_t			 mem_dir;	/* bytes held for one */
	size_t			 mem_all;	/* and for all */
	size_t			 mem;		/* held by all, about */
	uint64_t		 rounds;	/* sweeps: rounds */
	int			 defer;		/* last-hour.svg drawn later */
	/* The sink's file of this round and the profile it holds. */
	char			*known;
	struct stat		 known_sb;
	const struct profile	*known_p;
};

void	 flamegraph_hour_compact(struct flamegraph_hour *, int);
void	 flamegraph_hour_free(struct flamegraph_hour *);

/*
 * flamegraph_hour_bucket.c: minutes merged, and the memory bound.
 * _keep() says whether a bucket holds the n files listed of its minute
 * as they would be read now with budget bytes; _sub() takes a bucket
 * off the sum and frees it, returning about the bytes that frees;
 * _regroup() keeps a directory's files of a round, merging the minutes
 * that are over; _bound() holds a directory, and all, to their bytes.
 */
uint64_t flamegraph_hour_digest(const struct flamegraph_hour_file *, size_t);
int	 flamegraph_hour_bucket_keep(const struct flamegraph_hour_bucket *,
	    const struct flamegraph_hour_file *, size_t, size_t);
size_t	 flamegraph_hour_bucket_sub(struct profile *,
	    struct flamegraph_hour_bucket *);
void	 flamegraph_hour_regroup(struct flamegraph_hour *,
	    struct flamegraph_hour_file *, size_t, time_t);
size_t	 flamegraph_hour_mem(const struct flamegraph_hour *);
void	 flamegraph_hours_bound(struct flamegraph_hours *,
	    struct flamegraph_hour *);

/* flamegraph_hour_files.c: the files of a directory's hour. */
int	 flamegraph_hour_cmp(const void *, const void *);
void	 flamegraph_hour_file_sub(struct profile *,
	    struct flamegraph_hour_file *);
void	 flamegraph_hour_file_read(struct flamegraph_hour *, int,
	    struct flamegraph_hour_file *, size_t *);
struct flamegraph_hour_file *flamegraph_hour_list(const char *, DIR *,
	    time_t, time_t, size_t *);
int	 flamegraph_hour_known(struct flamegraph_hours *,
	    struct flamegraph_hour *, struct flamegraph_hour_file *,
	    size_t *);
int	 flamegraph_hour_same(const struct flamegraph_hour_file *,
	    const struct flamegraph_hour_file *);

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
