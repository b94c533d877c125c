#ifndef EBPFSPY_SINKS_H
#define EBPFSPY_SINKS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct config;
struct ev_loop;
struct pyroscope_stats;
struct profile;
struct sinks;
struct sinks_batch;

/*
 * Where a round's profiles go: the files sink (pprof, folded, SVG,
 * retention) and, when configured, the Pyroscope push.  Owned by the
 * daemon; collect.c hands each round's output to sinks_round().
 */
struct sinks	*sinks_create(struct ev_loop *, const struct config *);
void		 sinks_free(struct sinks *);
int		 sinks_configure(struct sinks *, const struct config *);
/*
 * A round's output: its profiles (an allocated array of n, the batch's
 * with the profiles from now on), start and end in ns since the epoch.
 */
struct sinks_batch *sinks_batch_create(struct profile **, size_t, int64_t,
		    int64_t);
void		 sinks_batch_free(struct sinks_batch *);
/* The batch is the final round's, at a stop, likely a short one. */
void		 sinks_batch_final(struct sinks_batch *);
/*
 * Hand a round's output to the sinks, which own it from now on: they
 * write its files and queue its push now, draw its flame graphs once
 * the loop is idle, then free it.  The configuration must live until
 * sinks_settle(), which draws them now if they are not drawn yet
 * (sinks_configure(), sinks_flush() and the next round call it).
 */
int		 sinks_round(struct sinks *, const struct config *,
		    struct sinks_batch *);
void		 sinks_settle(struct sinks *);
/*
 * Stopping: draw the flame graphs left to draw, push or spool what is
 * pending; nothing stays in memory.
 */
void		 sinks_flush(struct sinks *);
void		 sinks_log_state(struct sinks *);

struct sinks_info {
	size_t		 profiles;	/* of the last round */
	size_t		 services;	/* they are of */
	size_t		 held;		/* profiles held, not drawn yet */
	uint64_t	 file_errors;	/* so far */
	char		*busiest;	/* cpu directory of the most samples */
};
/* The last round, for its log line; busiest stays the sinks'. */
void		 sinks_info(struct sinks *, struct sinks_info *);
void		 sinks_push_stats(struct sinks *, struct pyroscope_stats *);

#endif
