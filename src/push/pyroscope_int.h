#ifndef EBPFSPY_PYROSCOPE_INT_H
#define EBPFSPY_PYROSCOPE_INT_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "pyroscope.h"
#include "pyroscope_req.h"

/*
 * The Pyroscope sink's state, shared by pyroscope.c (sending) and
 * pyroscope_queue.c (where requests wait).  Internal to src/push.
 */

struct pyroscope_conf;
struct pyroscope_http;
struct spool;

struct pyroscope {
	struct ev_loop		*loop;
	struct pyroscope_http	*http;
	ev_timer		 retry_timer;
	struct pyroscope_conf	*pc;
	struct spool		*spool;
	int			 spool_tried;
	struct pyroscope_reqs	 queue;		/* not spooled, by seq */
	size_t			 nqueue;
	uint64_t		 queue_bytes;
	uint64_t		 next_seq;
	uint64_t		 last_round;	/* its first seq */

	struct pyroscope_reqs	 inflight;
	size_t			 ninflight;
	int			 spooled_inflight;	/* one, alone */

	int			 failures;	/* in a row */
	int			 backoff;	/* retry_timer on */
	int			 flushing;
	int			 flush_stop;
	long			 reject_status;	/* last said */
	uint64_t		 reject_quiet;	/* not said since */
	int			 queue_warned;
	int			 expired_warned;	/* this outage */
	int			 trim_warned;
	struct pyroscope_stats	 st;
	uint64_t		 dropped;	/* not the spool's */
};

/* The spool's limits from the conf: its size and the largest body. */
void		 pyroscope_queue_spool_limit(struct pyroscope *);
/* Open the spool at the first need; said once when there is none. */
void		 pyroscope_queue_open_spool(struct pyroscope *);
/* Free a request that will not be sent, counting its profiles. */
void		 pyroscope_queue_drop(struct pyroscope *,
		    struct pyroscope_req *, const char *);
/* What waits in memory stays within spool_max_bytes: the oldest go. */
void		 pyroscope_queue_limit(struct pyroscope *);
/* The memory queue, in order, to the spool; what fails stays. */
void		 pyroscope_queue_spool(struct pyroscope *);
/*
 * Keep a request that was not delivered (spooled: it came from the
 * spool), in the spool or else in memory.  r is not the caller's after.
 */
void		 pyroscope_queue_keep(struct pyroscope *,
		    struct pyroscope_req *, int);
/*
 * The oldest request waiting whose series is not in flight, *spooled
 * set; NULL: none, or it is in the spool and waits for the wire.
 */
struct pyroscope_req *pyroscope_queue_next(struct pyroscope *, int *);

#endif
