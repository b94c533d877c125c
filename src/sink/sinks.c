/*
 * The sinks of a round's profiles: the files sink (pprof, folded, SVG
 * flame graphs, retention) and the Pyroscope push.  Each sink takes the
 * whole round, so that one that batches (a push) can.
 *
 * A round writes its profiles, pprof and folded, and queues the push.
 * The flame graphs drawn from them, latest.svg and last-hour.svg, come
 * after the round, once the loop has nothing else to do: the events
 * that came meanwhile go first, and a round's profiles are on disk as
 * soon as they can be.  Drawing a round's SVG and bringing its hour up
 * to date cost a third of a round of 10,000 stacks, last-hour.svg as
 * much again.  The round's profiles stay alive until then: the caller
 * frees them only after sinks_settle().
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ev.h>

#include "config/config.h"
#include "flamegraph.h"
#include "util/log.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "push/pyroscope.h"
#include "retention.h"
#include "sink_file.h"
#include "sinks.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* A profile of the round, and its .folded file as written. */
struct sinks_pending {
	const struct profile	*p;
	char			*folded;	/* NULL: none written */
	struct stat		 sb;
};

struct sinks {
	struct ev_loop		*loop;
	struct pyroscope	*pyroscope;
	struct flamegraph_hours	*hours;		/* of last-hour.svg */
	struct retention_cache	*retention;
	uint64_t		 rounds;
	uint64_t		 file_errors;
	ev_idle			 draw;		/* the flame graphs */
	struct sinks_info	 info;		/* for the round's log line */
	uint64_t		 busiest_total;

	/* The round whose flame graphs are not drawn yet. */
	const struct config	*conf;
	struct sinks_pending	*pending;
	size_t			 npending, pendingcap;
	time_t			 wall;
};

/* The flame graphs of the round's profiles: latest.svg, the hour. */
static void
sinks_draw_round(struct sinks *s)
{
	struct sinks_pending	*e;
	size_t			 i;

	for (i = 0; i < s->npending; i++) {
		e = &s->pending[i];
		/* last-hour.svg takes the new .folded file's from memory. */
		if (e->folded != NULL)
			flamegraph_hours_known(s->hours, e->folded, &e->sb,
			    e->p);
		if (flamegraph_write(s->hours, s->conf, e->p, s->wall) == -1)
			s->file_errors++;
		flamegraph_hours_known(s->hours, NULL, NULL, NULL);
		free(e->folded);
	}
	s->npending = 0;
	s->conf = NULL;
}

static void
sinks_draw(struct sinks *s)
{
	int64_t	 t0, c0;
	size_t	 n = s->npending;
	long	 h;

	if (s->loop != NULL)
		ev_idle_stop(s->loop, &s->draw);
	t0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	sinks_draw_round(s);
	if ((h = flamegraph_write_pending(s->hours)) == -1)
		s->file_errors++;
	if (n != 0 || h != 0)
		log_debug("sinks: flame graphs drawn, %zu latest.svg, "
		    "%ld last-hour.svg, %.1f ms, %.1f ms CPU", n, h,
		    (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6,
		    (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / 1e6);
}

static void
sinks_draw_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	sinks_draw(w->data);
}

/* last-hour.svg's sums: svg_hour_bytes for all, half of it for one. */
static void
sinks_hours_mem(struct sinks *s, const struct config *conf)
{
	flamegraph_hours_mem(s->hours, conf->svg_hour_bytes / 2,
	    conf->svg_hour_bytes);
}

struct sinks *
sinks_create(struct ev_loop *loop, const struct config *conf)
{
	struct sinks	*s;

	s = xcalloc(1, sizeof(*s));
	s->loop = loop;
	s->pyroscope = pyroscope_create(loop, conf);
	s->hours = flamegraph_hours_create();
	sinks_hours_mem(s, conf);
	s->retention = retention_cache_create();
	if (loop != NULL) {
		ev_idle_init(&s->draw, sinks_draw_cb);
		s->draw.data = s;
		flamegraph_write_defer(s->hours, 1);
	}
	return s;
}

void
sinks_free(struct sinks *s)
{
	size_t	 i;

	if (s == NULL)
		return;
	if (s->loop != NULL)
		ev_idle_stop(s->loop, &s->draw);
	/* Not drawn: their profiles may be gone already. */
	for (i = 0; i < s->npending; i++)
		free(s->pending[i].folded);
	free(s->pending);
	free(s->info.busiest);
	pyroscope_free(s->pyroscope);
	flamegraph_hours_free(s->hours);
	retention_cache_free(s->retention);
	free(s);
}

/* -1: a sink refused the change and keeps its old settings. */
int
sinks_configure(struct sinks *s, const struct config *conf)
{
	/* The round waiting to be drawn was written under the old one. */
	sinks_settle(s);
	if (pyroscope_configure(s->pyroscope, conf) == -1)
		return -1;
	sinks_hours_mem(s, conf);
	return 0;
}

/*
 * What the round's log line says: its profiles, the services they are
 * of, and the busiest service yet, whose flame graph to open first.
 */
static void
sinks_count(struct sinks *s, struct profile *const *profiles, size_t n)
{
	const char	*svc, *other;
	size_t		 i, j;

	s->info.profiles = n;
	s->info.services = 0;
	for (i = 0; i < n; i++) {
		if ((svc = profile_label_get(profiles[i], "service_name")) ==
		    NULL)
			continue;
		for (j = 0; j < i; j++) {
			other = profile_label_get(profiles[j], "service_name");
			if (other != NULL && strcmp(other, svc) == 0)
				break;
		}
		if (j == i)
			s->info.services++;
		if (profile_type(profiles[i]) != PROFILE_TYPE_CPU ||
		    profile_total(profiles[i]) <= s->busiest_total)
			continue;
		s->busiest_total = profile_total(profiles[i]);
		free(s->info.busiest);
		s->info.busiest = sink_file_service(svc);
	}
}

void
sinks_info(struct sinks *s, struct sinks_info *info)
{
	*info = s->info;
	info->file_errors = s->file_errors;
}

int
sinks_round(struct sinks *s, const struct config *conf,
    struct profile *const *profiles, size_t n, int64_t start, int64_t end)
{
	struct sinks_pending	*e;
	struct pprof_buf	*bufs = NULL, none;
	time_t			 wall = end / 1000000000;
	size_t			 i;
	int			 rc = 0;

	sinks_settle(s);
	if (n > s->pendingcap) {
		s->pendingcap = n;
		s->pending = xreallocarray(s->pending, n, sizeof(*s->pending));
	}
	s->conf = conf;
	s->wall = wall;
	/* Each profile is encoded once, for the files and the push. */
	if (conf->pprof || pyroscope_is_enabled(s->pyroscope))
		bufs = pprof_encode_all(profiles, n);
	memset(&none, 0, sizeof(none));
	for (i = 0; i < n; i++) {
		e = &s->pending[s->npending++];
		e->p = profiles[i];
		if (sink_file_write_enc(conf, profiles[i], bufs != NULL ?
		    &bufs[i] : &none, wall, &e->folded, &e->sb) == -1) {
			s->file_errors++;
			rc = -1;
		}
	}
	sinks_count(s, profiles, n);
	flamegraph_hours_sweep(s->hours, wall);
	retention_sweep(s->retention, conf, wall);
	/* Queued and sent on the loop: never waits for the server. */
	if (bufs != NULL)
		pyroscope_round(s->pyroscope, conf, profiles, bufs, n, start,
		    end);
	pprof_bufs_free(bufs, n);
	if (s->loop != NULL)
		ev_idle_start(s->loop, &s->draw);
	else
		sinks_draw_round(s);
	s->rounds++;
	return rc;
}

/*
 * Draw now what the last round left to draw: before its profiles are
 * freed, or its configuration.
 */
void
sinks_settle(struct sinks *s)
{
	if (s != NULL && s->npending > 0)
		sinks_draw(s);
}

void
sinks_flush(struct sinks *s)
{
	sinks_draw(s);
	pyroscope_flush(s->pyroscope);
}

/* The push counters, for the metrics page. */
void
sinks_push_stats(struct sinks *s, struct pyroscope_stats *st)
{
	pyroscope_stats(s->pyroscope, st);
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
