/*
 * The Pyroscope sink.  Requests go out through pyroscope_http.c
 * (libcurl's multi interface on the daemon's loop), so a slow or dead
 * server never delays a collection round.
 *
 * A request holds one series (one profile): the server ingests the
 * series of a request one by one and answers with the error of any, so a
 * retry of a request of several would count again those it took.  Up to
 * [pyroscope] max_inflight requests are in flight at once, never two of
 * the same series, so each series arrives in order.
 *
 * Every request gets a sequence number, and the next one started is the
 * lowest of the spool's oldest and the memory queue's head: a newer
 * request is never started before an older one, wherever each waits.
 * Spooled requests are replayed one at a time, alone on the wire, so
 * that a failed one is retried before anything newer.  A request that
 * fails for a reason that may pass (no connection, a timeout, 5xx, 408,
 * 429, a 3xx redirect: the url is to be fixed) goes to the spool with
 * everything queued behind it and is retried with exponential backoff
 * and jitter; while a retry waits, new rounds go to the spool too.  A
 * request the server rejects (another 4xx) is dropped and counted:
 * sending it again would not change the answer.  A profile older than
 * max_age when its turn comes is dropped and counted: the server would
 * reject it (its reject-older-than), forever.
 */
#include <sys/queue.h>

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ev.h>

#include "config/config.h"
#include "util/log.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "pyroscope.h"
#include "pyroscope_conf.h"
#include "pyroscope_http.h"
#include "pyroscope_int.h"
#include "pyroscope_req.h"
#include "pyroscope_trim.h"
#include "spool.h"
#include "util/xmalloc.h"

#define PYROSCOPE_RETRY_AFTER_MAX 3600	/* seconds honoured */

static void	 pyroscope_kick(struct pyroscope *);

int
pyroscope_is_enabled(const struct pyroscope *py)
{
	return py->pc != NULL && py->pc->url != NULL;
}

/* Sending ---------------------------------------------------------------- */

static void
pyroscope_retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct pyroscope	*py = w->data;

	py->backoff = 0;
	pyroscope_kick(py);
}

/*
 * Exponential backoff from backoff_min to backoff_max, with jitter (half
 * to all of the step) so that many daemons do not come back at once; a
 * server's Retry-After is honoured when it asks for longer.
 */
static double
pyroscope_delay(struct pyroscope *py, long retry_after)
{
	double	 d;
	int	 n = py->failures > 30 ? 30 : py->failures;

	d = py->pc->backoff_min * ldexp(1.0, n - 1);
	if (d > py->pc->backoff_max)
		d = py->pc->backoff_max;
	d = d / 2 + d / 2 * (arc4random() / 4294967295.0);
	if (retry_after > PYROSCOPE_RETRY_AFTER_MAX)
		retry_after = PYROSCOPE_RETRY_AFTER_MAX;
	if (retry_after > d)
		d = retry_after;
	return d;
}

static void
pyroscope_retry_later(struct pyroscope *py, double d)
{
	ev_timer_stop(py->loop, &py->retry_timer);
	ev_timer_set(&py->retry_timer, d, 0.);
	ev_timer_start(py->loop, &py->retry_timer);
	py->backoff = 1;
}

static void
pyroscope_done_ok(struct pyroscope *py, struct pyroscope_req *r, int spooled)
{
	py->st.requests_ok++;
	py->st.bytes_sent += r->len;
	py->st.profiles_sent += r->nprofiles;
	if (spooled)
		spool_remove(py->spool, r->seq);
	/* One sent with the failed one: the retry still waits. */
	if (py->backoff) {
		pyroscope_req_free(r);
		return;
	}
	if (py->failures > 0)
		log_info("pyroscope: %s: delivering again after %d failed "
		    "attempts", py->pc->url, py->failures);
	if (py->reject_quiet > 0)
		log_info("pyroscope: %" PRIu64 " more requests were rejected "
		    "with HTTP %ld", py->reject_quiet, py->reject_status);
	py->failures = 0;
	py->reject_status = 0;
	py->reject_quiet = 0;
	py->queue_warned = 0;
	py->expired_warned = 0;
	pyroscope_req_free(r);
}

/* Rejected: said once until a request gets through, then counted. */
static void
pyroscope_done_rejected(struct pyroscope *py, struct pyroscope_req *r,
    int spooled, const struct pyroscope_http_result *res)
{
	py->st.requests_failed++;
	if (res->status != py->reject_status) {
		log_warnx("pyroscope: %s%s: HTTP %ld: %s; dropped %" PRIu32
		    " profiles", py->pc->url, r->target, res->status,
		    res->message, r->nprofiles);
		py->reject_status = res->status;
	} else {
		py->reject_quiet++;
		log_debug("pyroscope: request %" PRIu64 ": HTTP %ld", r->seq,
		    res->status);
	}
	py->failures = 0;
	if (spooled)
		spool_remove(py->spool, r->seq);
	pyroscope_queue_drop(py, r, "rejected");
}

static void
pyroscope_done_retry(struct pyroscope *py, struct pyroscope_req *r,
    int spooled, const struct pyroscope_http_result *res)
{
	char		*why;
	double		 d;
	uint64_t	 seq = r->seq;

	py->st.requests_retry++;
	if (res->error)
		why = xstrdup(res->message);
	else if (res->status >= 300 && res->status < 400)
		xasprintf(&why, "HTTP %ld: the url redirects%s%s (redirects "
		    "are not followed: set [pyroscope] url to where it points)",
		    res->status, res->location != NULL ? " to " : "",
		    res->location != NULL ? res->location : "");
	else
		xasprintf(&why, "HTTP %ld: %s", res->status, res->message);
	/*
	 * It and everything behind it wait on disk from now on.  r is the
	 * spool's or the queue's then, perhaps freed: not read again.
	 */
	pyroscope_queue_keep(py, r, spooled);
	r = NULL;
	pyroscope_queue_spool(py);
	if (py->flushing) {
		if (!py->flush_stop)
			log_warnx("pyroscope: %s: %s", py->pc->url, why);
		py->flush_stop = 1;
		free(why);
		return;
	}
	/* Others of the same burst fail too: one backoff for them all. */
	if (py->backoff) {
		log_debug("pyroscope: request %" PRIu64 ": %s", seq, why);
		free(why);
		return;
	}
	py->failures++;
	d = pyroscope_delay(py, res->retry_after);
	if (py->failures == 1)
		log_warnx("pyroscope: %s: %s; retrying in %.1f s, keeping "
		    "the profiles", py->pc->url, why, d);
	else
		log_debug("pyroscope: %s: %s; attempt %d, retrying in %.1f s",
		    py->pc->url, why, py->failures, d);
	free(why);
	pyroscope_retry_later(py, d);
}

static void
pyroscope_done_cb(void *arg, void *rarg,
    const struct pyroscope_http_result *res)
{
	struct pyroscope	*py = arg;
	struct pyroscope_req	*r = rarg;
	int			 spooled = r->spooled;

	TAILQ_REMOVE(&py->inflight, r, entry);
	py->ninflight--;
	r->xfer = NULL;
	if (spooled)
		py->spooled_inflight = 0;
	/*
	 * A redirect is a misconfigured url, not a rejected profile: kept
	 * and retried like an outage, so fixing the url delivers them.
	 */
	if (!res->error && res->status >= 200 && res->status < 300)
		pyroscope_done_ok(py, r, spooled);
	else if (!res->error && res->status != 408 && res->status != 429 &&
	    (res->status < 300 || res->status >= 400) && res->status < 500)
		pyroscope_done_rejected(py, r, spooled, res);
	else {
		pyroscope_done_retry(py, r, spooled, res);
		return;
	}
	pyroscope_kick(py);
}

/*
 * Too old for the server (its reject-older-than): dropped, counted, said
 * once an outage.  1 if r is gone.
 */
static int
pyroscope_expired(struct pyroscope *py, struct pyroscope_req *r, int spooled)
{
	long long	 age;

	if (py->pc->max_age == 0 || r->time <= 0)
		return 0;
	age = (long long)time(NULL) - r->time;
	if (age <= py->pc->max_age)
		return 0;
	py->st.expired_profiles += r->nprofiles;
	if (!py->expired_warned)
		log_warnx("pyroscope: dropping profiles older than max_age "
		    "(%lld s; this one %lld s): the server would reject them",
		    py->pc->max_age, age);
	py->expired_warned = 1;
	if (spooled)
		spool_remove(py->spool, r->seq);
	log_debug("pyroscope: request %" PRIu64 " dropped: %lld s old",
	    r->seq, age);
	pyroscope_req_free(r);
	return 1;
}

/* Start requests while there is room on the wire and no retry waits. */
static void
pyroscope_kick(struct pyroscope *py)
{
	struct pyroscope_req	*r;
	int			 spooled;

	while (pyroscope_is_enabled(py) && !py->backoff && !py->flush_stop &&
	    py->ninflight < py->pc->max_inflight) {
		if ((r = pyroscope_queue_next(py, &spooled)) == NULL) {
			if (py->ninflight == 0 && py->spool != NULL &&
			    spool_oldest(py->spool, &(uint64_t){ 0 }) == 0) {
				/* Unreadable for now: try again later. */
				py->failures++;
				pyroscope_retry_later(py,
				    pyroscope_delay(py, 0));
			}
			return;
		}
		if (pyroscope_expired(py, r, spooled))
			continue;
		pyroscope_conf_refresh(py->pc);
		r->spooled = spooled;
		if ((r->xfer = pyroscope_http_post(py->http, py->pc, r->target,
		    r->body, r->len, r)) == NULL) {
			pyroscope_queue_keep(py, r, spooled);
			py->failures++;
			pyroscope_retry_later(py, pyroscope_delay(py, 0));
			return;
		}
		TAILQ_INSERT_TAIL(&py->inflight, r, entry);
		py->ninflight++;
		if (spooled) {
			py->spooled_inflight = 1;
			spool_hold(py->spool, r->seq);
		}
		if (py->failures > 0)
			py->st.retries++;
		log_debug("pyroscope: sending request %" PRIu64 " (%zu bytes, "
		    "%" PRIu32 " profiles%s)", r->seq, r->len, r->nprofiles,
		    spooled ? ", spooled" : "");
	}
}

/* The requests in flight go back to wait (at a stop, or turned off). */
static void
pyroscope_abort(struct pyroscope *py)
{
	struct pyroscope_req	*r;

	while ((r = TAILQ_FIRST(&py->inflight)) != NULL) {
		TAILQ_REMOVE(&py->inflight, r, entry);
		py->ninflight--;
		pyroscope_http_abort(py->http, r->xfer);
		r->xfer = NULL;
		pyroscope_queue_keep(py, r, r->spooled);
	}
	py->spooled_inflight = 0;
}

/* Interface ------------------------------------------------------------- */

struct pyroscope *
pyroscope_create(struct ev_loop *loop, const struct config *conf)
{
	struct pyroscope	*py;

	py = xcalloc(1, sizeof(*py));
	py->loop = loop;
	py->next_seq = 1;
	TAILQ_INIT(&py->queue);
	TAILQ_INIT(&py->inflight);
	py->http = pyroscope_http_create(loop, pyroscope_done_cb, py);
	ev_init(&py->retry_timer, pyroscope_retry_cb);
	py->retry_timer.data = py;
	if (pyroscope_configure(py, conf) == -1)
		log_warnx("pyroscope: not pushing until a reload fixes "
		    "[pyroscope]");
	return py;
}

void
pyroscope_free(struct pyroscope *py)
{
	struct pyroscope_req	*r;

	if (py == NULL)
		return;
	pyroscope_http_free(py->http);
	while ((r = TAILQ_FIRST(&py->inflight)) != NULL) {
		TAILQ_REMOVE(&py->inflight, r, entry);
		if (!r->spooled)
			py->dropped += r->nprofiles;
		pyroscope_req_free(r);
	}
	while ((r = TAILQ_FIRST(&py->queue)) != NULL) {
		TAILQ_REMOVE(&py->queue, r, entry);
		py->dropped += r->nprofiles;
		pyroscope_req_free(r);
	}
	ev_timer_stop(py->loop, &py->retry_timer);
	spool_close(py->spool);
	pyroscope_conf_free(py->pc);
	free(py);
}

int
pyroscope_configure(struct pyroscope *py, const struct config *conf)
{
	struct pyroscope_conf	*pc, *old = py->pc;
	int			 was_on = pyroscope_is_enabled(py), url_changed;

	if ((pc = pyroscope_conf_create(conf)) == NULL)
		return -1;
	url_changed = old == NULL || old->url == NULL || pc->url == NULL ||
	    strcmp(old->url, pc->url) != 0;
	py->pc = pc;
	pyroscope_conf_free(old);

	if (!pyroscope_is_enabled(py)) {
		if (was_on)
			log_info("pyroscope: push off");
		/* Nothing is lost: what waits goes to the spool. */
		pyroscope_abort(py);
		pyroscope_queue_spool(py);
		ev_timer_stop(py->loop, &py->retry_timer);
		py->backoff = 0;
		return 0;
	}
	pyroscope_queue_open_spool(py);
	if (py->spool != NULL)
		pyroscope_queue_spool_limit(py);
	pyroscope_queue_limit(py);
	if (!was_on)
		log_info("pyroscope: pushing to %s (%s)", pc->url,
		    pc->api == PYROSCOPE_API_INGEST ? "ingest" : "push");
	/* A new server deserves a try now, not at the end of a backoff. */
	if (url_changed && py->backoff) {
		ev_timer_stop(py->loop, &py->retry_timer);
		py->backoff = 0;
		py->failures = 0;
	}
	pyroscope_kick(py);
	return 0;
}

/*
 * Profiles above the server's limits (max_profile_bytes uncompressed,
 * max_profile_samples) are trimmed to fit: bufs[i] then points to the
 * trimmed encoding, kept in own[i] for the caller to free.
 */
static void
pyroscope_trim_round(struct pyroscope *py, struct profile *const *profiles,
    struct pprof_buf *bufs, struct pprof_buf *own, size_t n)
{
	struct pyroscope_trim_result	 t;
	const char			*svc;
	size_t				 i;

	for (i = 0; i < n; i++) {
		if (bufs[i].buf == NULL)
			continue;
		switch (pyroscope_trim(profiles[i], &bufs[i],
		    py->pc->max_profile_bytes, py->pc->max_profile_samples,
		    &own[i], &t)) {
		case 0:
			continue;
		case -1:
			/* The server would reject it: counted as dropped. */
			bufs[i].buf = NULL;
			continue;
		}
		bufs[i] = own[i];
		py->st.trimmed_profiles++;
		py->st.trimmed_samples += t.merged;
		svc = profile_label_get(profiles[i], "service_name");
		if (!py->trim_warned)
			log_warnx("pyroscope: %s: %s profile of %zu samples, "
			    "%zu bytes is above the server's limits "
			    "(max_profile_samples %zu, max_profile_bytes %zu): "
			    "%zu samples merged into one \"[other]\" sample, "
			    "%zu bytes sent", svc != NULL ? svc : "?",
			    profile_type_name(profile_type(profiles[i])),
			    t.samples, t.bytes, py->pc->max_profile_samples,
			    py->pc->max_profile_bytes, t.merged, t.new_bytes);
		else
			log_debug("pyroscope: %s: trimmed %zu samples",
			    svc != NULL ? svc : "?", t.merged);
		py->trim_warned = 1;
	}
}

void
pyroscope_round(struct pyroscope *py, const struct config *conf,
    struct profile *const *profiles, const struct pprof_buf *in, size_t n,
    int64_t start_ns, int64_t end_ns)
{
	struct pyroscope_reqs	 q;
	struct pyroscope_req	*r;
	struct pprof_buf	*bufs, *own;
	size_t			 i;
	int			 lagging;

	if (!pyroscope_is_enabled(py) || n == 0)
		return;
	bufs = xcalloc(n, sizeof(*bufs));
	own = xcalloc(n, sizeof(*own));
	memcpy(bufs, in, n * sizeof(*bufs));
	pyroscope_trim_round(py, profiles, bufs, own, n);
	TAILQ_INIT(&q);
	if (py->pc->api == PYROSCOPE_API_INGEST)
		py->dropped += pyroscope_req_ingest_enc(&q, profiles, bufs, n,
		    start_ns, end_ns, conf->sample_rate, &py->pc->labels);
	else
		py->dropped += pyroscope_req_push_enc(&q, profiles, bufs, n,
		    &py->pc->labels);
	for (i = 0; i < n; i++)
		free(own[i].buf);
	free(own);
	free(bufs);
	/*
	 * Requests of the round before the last still waiting in memory:
	 * the server lags by more than a round.
	 */
	lagging = (r = TAILQ_FIRST(&py->queue)) != NULL &&
	    r->seq < py->last_round && py->ninflight > 0;
	py->last_round = py->next_seq;
	while ((r = TAILQ_FIRST(&q)) != NULL) {
		TAILQ_REMOVE(&q, r, entry);
		r->seq = py->next_seq++;
		TAILQ_INSERT_TAIL(&py->queue, r, entry);
		py->nqueue++;
		py->queue_bytes += r->len;
	}
	/*
	 * While the server is failing, or lagging, the rounds wait on disk.
	 * Otherwise they may wait in memory even behind spooled ones: the
	 * lowest seq goes first.
	 */
	if (py->backoff || lagging)
		pyroscope_queue_spool(py);
	pyroscope_kick(py);
}

/*
 * Stopping: the loop no longer runs.  Try to deliver for at most
 * flush_timeout -- unless the server is known to be failing -- then
 * keep whatever is left in the spool.
 */
void
pyroscope_flush(struct pyroscope *py)
{
	struct pyroscope_req	*r;
	struct spool_stats	 ss;

	if (py == NULL)
		return;
	py->flushing = 1;
	py->flush_stop = 0;
	if (pyroscope_is_enabled(py) && !py->backoff &&
	    py->pc->flush_timeout > 0) {
		pyroscope_kick(py);
		pyroscope_http_run(py->http, pyroscope_http_now() +
		    py->pc->flush_timeout);
		if (py->ninflight > 0)
			log_warnx("pyroscope: %s: no answer within "
			    "flush_timeout", py->pc->url);
	}
	pyroscope_abort(py);
	pyroscope_queue_spool(py);
	if (py->nqueue > 0)
		log_warnx("pyroscope: %zu requests could not be spooled and "
		    "are lost", py->nqueue);
	while ((r = TAILQ_FIRST(&py->queue)) != NULL) {
		TAILQ_REMOVE(&py->queue, r, entry);
		py->nqueue--;
		py->queue_bytes -= r->len;
		pyroscope_queue_drop(py, r, "not spooled at stop");
	}
	spool_stats(py->spool, &ss);
	if (ss.files > 0)
		log_info("pyroscope: %" PRIu64 " requests (%" PRIu64 " bytes) "
		    "in the spool %s for later", ss.files, ss.bytes,
		    spool_dir(py->spool));
	py->flushing = 0;
	py->flush_stop = 0;
}

void
pyroscope_stats(struct pyroscope *py, struct pyroscope_stats *st)
{
	struct spool_stats	 ss;

	*st = py->st;
	spool_stats(py->spool, &ss);
	st->queued = py->nqueue + py->ninflight - py->spooled_inflight;
	st->spool_files = ss.files;
	st->spool_bytes = ss.bytes;
	st->dropped_profiles = py->dropped + ss.dropped_profiles;
}

void
pyroscope_log_state(struct pyroscope *py)
{
	struct pyroscope_stats	 st;
	const char		*state;

	pyroscope_stats(py, &st);
	if (!pyroscope_is_enabled(py))
		state = "off";
	else if (py->ninflight > 0)
		state = "sending";
	else if (py->backoff)
		state = "waiting to retry";
	else
		state = "idle";
	log_info("pyroscope: %s%s%s, %" PRIu64 " requests ok, %" PRIu64
	    " to retry, %" PRIu64 " rejected, %" PRIu64 " retries, %" PRIu64
	    " bytes sent, %" PRIu64 " queued, spool %" PRIu64 " files %"
	    PRIu64 " bytes, %" PRIu64 " profiles dropped, %" PRIu64
	    " expired, %" PRIu64 " trimmed", state,
	    pyroscope_is_enabled(py) ? " to " : "",
	    pyroscope_is_enabled(py) ? py->pc->url : "", st.requests_ok,
	    st.requests_retry, st.requests_failed, st.retries, st.bytes_sent,
	    st.queued, st.spool_files, st.spool_bytes, st.dropped_profiles,
	    st.expired_profiles, st.trimmed_profiles);
}
