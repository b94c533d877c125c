#ifndef EBPFSPY_SINKS_H
#define EBPFSPY_SINKS_H

#include <stddef.h>
#include <time.h>

struct config;
struct ev_loop;
struct pyroscope_stats;
struct profile;
struct sinks;

/*
 * Where a round's profiles go: the files sink (pprof, folded, SVG,
 * retention) and, when configured, the Pyroscope push.  Owned by the
 * daemon; collect.c hands each round's profiles to sinks_round().
 */
struct sinks	*sinks_create(struct ev_loop *, const struct config *);
void		 sinks_free(struct sinks *);
int		 sinks_configure(struct sinks *, const struct config *);
/*
 * All profiles of one round, start and end in ns since the epoch.  Its
 * flame graphs are drawn once the loop is idle: the profiles and the
 * configuration must live until sinks_settle(), which draws them now if
 * they are not drawn yet (sinks_configure() and sinks_flush() call it).
 */
int		 sinks_round(struct sinks *, const struct config *,
		    struct profile *const *, size_t, int64_t, int64_t);
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
	uint64_t	 file_errors;	/* so far */
	char		*busiest;	/* cpu directory of the most samples */
};
/* The last round, for its log line; busiest stays the sinks'. */
void		 sinks_info(struct sinks *, struct sinks_info *);
void		 sinks_push_stats(struct sinks *, struct pyroscope_stats *);

#endif
