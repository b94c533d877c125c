/*
 * The sinks of a round's profiles: the files sink (pprof, folded, SVG
 * flame graphs, retention) and the Pyroscope push.  Each sink takes the
 * whole round, so that one that batches (a push) can.
 *
 * last-hour.svg is drawn after the round, once the loop has nothing
 * else to do: its hour holds every stack of the hour, so it costs more
 * than the round's own files, and the events that came meanwhile go
 * first.  The hour itself is brought up to date in the round.
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <ev.h>

#include "config.h"
#include "flamegraph.h"
#include "log.h"
#include "metrics.h"
#include "profile.h"
#include "pyroscope.h"
#include "retention.h"
#include "sink_file.h"
#include "sinks.h"
#include "xmalloc.h"

struct sinks {
	struct ev_loop		*loop;
	struct pyroscope	*pyroscope;
	struct flamegraph_hours	*hours;		/* of last-hour.svg */
	struct retention_cache	*retention;
	uint64_t		 rounds;
	uint64_t		 file_errors;
	ev_idle			 draw;		/* last-hour.svg */
};

static int64_t
sinks_now(clockid_t clk)
{
	struct timespec	 ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
sinks_draw(struct sinks *s)
{
	int64_t	 t0, c0;
	long	 n;

	if (s->loop != NULL)
		ev_idle_stop(s->loop, &s->draw);
	t0 = sinks_now(CLOCK_MONOTONIC);
	c0 = sinks_now(CLOCK_PROCESS_CPUTIME_ID);
	if ((n = flamegraph_hours_draw(s->hours)) == -1)
		s->file_errors++;
	if (n != 0)
		log_debug("sinks: last-hour.svg drawn, %.1f ms, %.1f ms CPU",
		    (sinks_now(CLOCK_MONOTONIC) - t0) / 1e6,
		    (sinks_now(CLOCK_PROCESS_CPUTIME_ID) - c0) / 1e6);
}

static void
sinks_draw_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	sinks_draw(w->data);
}

struct sinks *
sinks_create(struct ev_loop *loop, const struct config *conf)
{
	struct sinks	*s;

	s = xcalloc(1, sizeof(*s));
	s->loop = loop;
	s->pyroscope = pyroscope_create(loop, conf);
	s->hours = flamegraph_hours_create();
	s->retention = retention_cache_create();
	if (loop != NULL) {
		ev_idle_init(&s->draw, sinks_draw_cb);
		s->draw.data = s;
		flamegraph_hours_defer(s->hours, 1);
	}
	return s;
}

void
sinks_free(struct sinks *s)
{
	if (s == NULL)
		return;
	if (s->loop != NULL)
		ev_idle_stop(s->loop, &s->draw);
	pyroscope_free(s->pyroscope);
	flamegraph_hours_free(s->hours);
	retention_cache_free(s->retention);
	free(s);
}

/* -1: a sink refused the change and keeps its old settings. */
int
sinks_configure(struct sinks *s, const struct config *conf)
{
	return pyroscope_configure(s->pyroscope, conf);
}

int
sinks_round(struct sinks *s, const struct config *conf,
    struct profile *const *profiles, size_t n, int64_t start, int64_t end)
{
	struct stat	 sb;
	time_t		 wall = end / 1000000000;
	char		*folded;
	size_t		 i;
	int		 rc = 0, rv;

	for (i = 0; i < n; i++) {
		/* last-hour.svg takes the new .folded file's from memory. */
		rv = sink_file_write_folded(conf, profiles[i], wall, &folded,
		    &sb);
		if (folded != NULL)
			flamegraph_hours_known(s->hours, folded, &sb,
			    profiles[i]);
		free(folded);
		if (rv == -1 || flamegraph_write(s->hours, conf, profiles[i],
		    wall) == -1) {
			s->file_errors++;
			rc = -1;
		}
		flamegraph_hours_known(s->hours, NULL, NULL, NULL);
	}
	flamegraph_hours_sweep(s->hours, wall);
	retention_sweep(s->retention, conf, wall);
	/* Queued and sent on the loop: never waits for the server. */
	pyroscope_round(s->pyroscope, conf, profiles, n, start, end);
	if (s->loop != NULL)
		ev_idle_start(s->loop, &s->draw);
	s->rounds++;
	return rc;
}

void
sinks_flush(struct sinks *s)
{
	sinks_draw(s);
	pyroscope_flush(s->pyroscope);
}

/* The push counters, for the metrics page. */
void
sinks_push_stats_cb(struct metrics_push *mp, void *arg)
{
	struct sinks		*s = arg;
	struct pyroscope_stats	 st;

	pyroscope_stats(s->pyroscope, &st);
	mp->requests[0].outcome = "ok";
	mp->requests[0].n = st.requests_ok;
	mp->requests[1].outcome = "retry";
	mp->requests[1].n = st.requests_retry;
	mp->requests[2].outcome = "failed";
	mp->requests[2].n = st.requests_failed;
	mp->nrequests = 3;
	mp->retries = st.retries;
	mp->spool_bytes = st.spool_bytes;
	mp->spool_dropped = st.dropped_profiles;
}

void
sinks_log_state(struct sinks *s)
{
	log_info("sinks: %llu rounds, %llu file errors",
	    (unsigned long long)s->rounds,
	    (unsigned long long)s->file_errors);
	flamegraph_hours_log_state(s->hours);
	pyroscope_log_state(s->pyroscope);
}
