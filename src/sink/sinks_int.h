#ifndef EBPFSPY_SINKS_INT_H
#define EBPFSPY_SINKS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct config;
struct ev_loop;
struct pprof_buf;
struct profile;

/*
 * A round's output, the sinks' from sinks_round() on: its profiles,
 * their pprof encodings while the round is handed out, and the
 * configuration it was written under.  sinks.c frees it once every
 * sink has drawn from it.
 */
struct sinks_batch {
	struct profile		**profiles;
	size_t			 n;
	struct pprof_buf	*bufs;		/* NULL: not encoded */
	int64_t			 start, end;	/* ns since the epoch */
	time_t			 wall;		/* end, in seconds */
	int			 final;		/* the round at a stop */
	const struct config	*conf;
};

/*
 * A sink, one of the peers sinks.c fans a round out to.  round() takes
 * the batch while the round is handed out and may not keep it; draw()
 * comes later, when the loop is idle, with the same batch (NULL: only
 * what is left to draw of rounds before), before the batch is freed.
 * A NULL hook is one the sink has no use for.
 */
struct sinks_ops {
	const char	*name;
	void		*(*create)(struct ev_loop *, const struct config *);
	/* -1: the sink refused the change and keeps its old settings. */
	int		 (*configure)(void *, const struct config *);
	/* Whether the round's profiles are to be encoded for it. */
	int		 (*wants_pprof)(void *, const struct config *);
	int		 (*round)(void *, const struct sinks_batch *);
	void		 (*draw)(void *, const struct sinks_batch *);
	void		 (*flush)(void *);
	void		 (*log_state)(void *);
	uint64_t	 (*errors)(void *);
	void		 (*free)(void *);
};

extern const struct sinks_ops sinks_files_ops;	/* sinks_files.c */
extern const struct sinks_ops sinks_push_ops;	/* sinks_push.c */

#endif
