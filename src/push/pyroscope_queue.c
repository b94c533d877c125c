/*
 * Where the Pyroscope sink's requests wait: the memory queue, in seq
 * order, and the spool on disk, which takes the queue whole during an
 * outage.  The next request to send is the oldest of both.
 */
#include <sys/queue.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ev.h>

#include "util/log.h"
#include "pyroscope.h"
#include "pyroscope_conf.h"
#include "pyroscope_int.h"
#include "pyroscope_req.h"
#include "spool.h"
#include "util/xmalloc.h"

#define PYROSCOPE_BODY_SLACK	(1 << 20)	/* labels, framing */

/*
 * The largest body the sink makes: a profile trimmed to max_profile_bytes
 * (uncompressed; gzip adds little to what it cannot compress) and its
 * series' labels.  A spooled request above it was not ours: not read.
 */
void
pyroscope_queue_spool_limit(struct pyroscope *py)
{
	size_t	 m = py->pc->max_profile_bytes;

	spool_set_max(py->spool, py->pc->spool_max);
	spool_set_body_max(py->spool, m == 0 ? UINT64_MAX :
	    (uint64_t)m + m / 64 + PYROSCOPE_BODY_SLACK);
}

void
pyroscope_queue_open_spool(struct pyroscope *py)
{
	if (py->spool != NULL || py->spool_tried || py->pc == NULL)
		return;
	py->spool_tried = 1;
	if (py->pc->spool_dir == NULL) {
		log_warnx("pyroscope: no spool_dir: undelivered profiles "
		    "wait in memory only");
		return;
	}
	if ((py->spool = spool_open(py->pc->spool_dir, py->pc->spool_max)) ==
	    NULL) {
		log_warnx("pyroscope: undelivered profiles wait in memory "
		    "only");
		return;
	}
	pyroscope_queue_spool_limit(py);
	if (spool_last_seq(py->spool) >= py->next_seq)
		py->next_seq = spool_last_seq(py->spool) + 1;
}

void
pyroscope_queue_drop(struct pyroscope *py, struct pyroscope_req *r,
    const char *why)
{
	py->dropped += r->nprofiles;
	log_debug("pyroscope: request %" PRIu64 " dropped (%s): %" PRIu32
	    " profiles", r->seq, why, r->nprofiles);
	pyroscope_req_free(r);
}

/* What waits in memory stays within spool_max_bytes: drop the oldest. */
void
pyroscope_queue_limit(struct pyroscope *py)
{
	struct pyroscope_req	*r;
	uint64_t		 max = py->pc != NULL ? py->pc->spool_max : 0;

	while ((r = TAILQ_FIRST(&py->queue)) != NULL &&
	    py->queue_bytes > max) {
		TAILQ_REMOVE(&py->queue, r, entry);
		py->nqueue--;
		py->queue_bytes -= r->len;
		if (!py->queue_warned)
			log_warnx("pyroscope: %" PRIu64 " bytes wait in "
			    "memory: dropping the oldest requests",
			    py->queue_bytes + r->len);
		py->queue_warned = 1;
		pyroscope_queue_drop(py, r, "memory queue full");
	}
}

/* Move the memory queue, in order, to the spool; what fails stays. */
void
pyroscope_queue_spool(struct pyroscope *py)
{
	struct pyroscope_req	*r, *next;

	/* Nothing to keep: do not make a spool directory for nothing. */
	if (TAILQ_EMPTY(&py->queue))
		return;
	pyroscope_queue_open_spool(py);
	if (py->spool != NULL) {
		for (r = TAILQ_FIRST(&py->queue); r != NULL; r = next) {
			next = TAILQ_NEXT(r, entry);
			if (spool_put(py->spool, r->seq, r->target, r->body,
			    r->len, r->nprofiles, r->time) == -1)
				continue;
			TAILQ_REMOVE(&py->queue, r, entry);
			py->nqueue--;
			py->queue_bytes -= r->len;
			pyroscope_req_free(r);
		}
	}
	pyroscope_queue_limit(py);
}

/* Put a request back in the queue, in seq order (it failed, unspooled). */
static void
pyroscope_queue_requeue(struct pyroscope *py, struct pyroscope_req *r)
{
	struct pyroscope_req	*q;

	TAILQ_FOREACH(q, &py->queue, entry)
		if (q->seq > r->seq)
			break;
	if (q != NULL)
		TAILQ_INSERT_BEFORE(q, r, entry);
	else
		TAILQ_INSERT_TAIL(&py->queue, r, entry);
	py->nqueue++;
	py->queue_bytes += r->len;
}

/* Keep a request that was not delivered: in the spool, else in memory. */
void
pyroscope_queue_keep(struct pyroscope *py, struct pyroscope_req *r,
    int spooled)
{
	if (spooled) {
		spool_hold(py->spool, 0);
		pyroscope_req_free(r);
		return;
	}
	pyroscope_queue_open_spool(py);
	if (py->spool != NULL && spool_put(py->spool, r->seq, r->target,
	    r->body, r->len, r->nprofiles, r->time) == 0) {
		pyroscope_req_free(r);
		return;
	}
	pyroscope_queue_requeue(py, r);
}

/* Is a request of r's series in flight? */
static int
pyroscope_queue_is_inflight(struct pyroscope *py,
    const struct pyroscope_req *r)
{
	struct pyroscope_req	*f;

	if (r->series == NULL)
		return 0;
	TAILQ_FOREACH(f, &py->inflight, entry)
		if (f->series != NULL && strcmp(f->series, r->series) == 0)
			return 1;
	return 0;
}

/*
 * The oldest request waiting, wherever it is, whose series is not in
 * flight; NULL: none (or unreadable), or it is in the spool and must
 * wait for the wire to be free.
 */
struct pyroscope_req *
pyroscope_queue_next(struct pyroscope *py, int *spooled)
{
	struct pyroscope_req	*r, *head;
	uint64_t		 seq, next;

	for (;;) {
		head = TAILQ_FIRST(&py->queue);
		if (py->spool == NULL || spool_oldest(py->spool, &seq) == -1 ||
		    (head != NULL && head->seq < seq)) {
			if (py->spooled_inflight)
				return NULL;
			/* Of a series in flight: its turn comes after. */
			while (head != NULL && pyroscope_queue_is_inflight(py, head))
				head = TAILQ_NEXT(head, entry);
			if (head == NULL)
				return NULL;
			TAILQ_REMOVE(&py->queue, head, entry);
			py->nqueue--;
			py->queue_bytes -= head->len;
			*spooled = 0;
			return head;
		}
		if (py->ninflight > 0)
			return NULL;
		r = xcalloc(1, sizeof(*r));
		r->seq = seq;
		if (spool_read(py->spool, seq, &r->target, &r->body, &r->len,
		    &r->nprofiles, &r->time) == 0) {
			*spooled = 1;
			return r;
		}
		pyroscope_req_free(r);
		/* Removed as corrupt: try the next; still there: later. */
		if (spool_oldest(py->spool, &next) == 0 && next == seq)
			return NULL;
	}
}
