/*
 * The files sink: a round's profiles as pprof and folded files
 * (sink_file.c), the retention sweep, and the flame graphs drawn from
 * them, latest.svg and last-hour.svg.
 *
 * The files are written while the round is handed out; the flame
 * graphs come after the round, once the loop has nothing else to do:
 * the events that came meanwhile go first, and a round's profiles are
 * on disk as soon as they can be.  Drawing a round's SVG and bringing
 * its hour up to date cost a third of a round of 10,000 stacks,
 * last-hour.svg as much again.
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "flamegraph.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "retention.h"
#include "sink_file.h"
#include "sinks_int.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* A profile of the round, and its .folded file as written. */
struct sinks_files_pending {
	char			*folded;	/* NULL: none written */
	struct stat		 sb;
};

/* A latest.svg of the round before: "type/service", its .folded file. */
struct sinks_files_last {
	char			*key;
	char			*folded;	/* NULL: none written */
};

struct sinks_files {
	struct flamegraph_hours		*hours;		/* of last-hour.svg */
	struct retention_cache		*retention;
	uint64_t			 errors;
	/* The .folded files of the round not drawn yet. */
	struct sinks_files_pending	*pending;
	size_t				 npending, pendingcap;
	/* The full round drawn before, and when it started (ns). */
	struct sinks_files_last		*last;
	size_t				 nlast;
	int64_t				 last_start;
};

/* last-hour.svg's sums: svg_hour_bytes for all, half of it for one. */
static int
sinks_files_configure(void *arg, const struct config *conf)
{
	struct sinks_files	*f = arg;

	flamegraph_hours_mem(f->hours, conf->svg_hour_bytes / 2,
	    conf->svg_hour_bytes);
	return 0;
}

static void *
sinks_files_create(struct ev_loop *loop, const struct config *conf)
{
	struct sinks_files	*f;

	f = xcalloc(1, sizeof(*f));
	f->hours = flamegraph_hours_create();
	sinks_files_configure(f, conf);
	f->retention = retention_cache_create();
	/* Without a loop, last-hour.svg is drawn with the round. */
	if (loop != NULL)
		flamegraph_write_defer(f->hours, 1);
	return f;
}

static void
sinks_files_forget(struct sinks_files *f)
{
	size_t	 i;

	for (i = 0; i < f->npending; i++)
		free(f->pending[i].folded);
	f->npending = 0;
}

static void
sinks_files_forget_last(struct sinks_files *f)
{
	size_t	 i;

	for (i = 0; i < f->nlast; i++) {
		free(f->last[i].key);
		free(f->last[i].folded);
	}
	free(f->last);
	f->last = NULL;
	f->nlast = 0;
}

static void
sinks_files_free(void *arg)
{
	struct sinks_files	*f = arg;

	sinks_files_forget(f);
	sinks_files_forget_last(f);
	free(f->pending);
	flamegraph_hours_free(f->hours);
	retention_cache_free(f->retention);
	free(f);
}

static int
sinks_files_wants_pprof(void *arg, const struct config *conf)
{
	return conf->pprof;
}

static int
sinks_files_round(void *arg, const struct sinks_batch *b)
{
	struct sinks_files		*f = arg;
	struct sinks_files_pending	*e;
	struct pprof_buf		 none;
	size_t				 i;
	int				 rc = 0;

	sinks_files_forget(f);
	if (b->n > f->pendingcap) {
		f->pendingcap = b->n;
		f->pending = xreallocarray(f->pending, b->n,
		    sizeof(*f->pending));
	}
	memset(&none, 0, sizeof(none));
	for (i = 0; i < b->n; i++) {
		e = &f->pending[f->npending++];
		if (sink_file_write_enc(b->conf, b->profiles[i],
		    b->bufs != NULL ? &b->bufs[i] : &none, b->wall,
		    &e->folded, &e->sb) == -1) {
			f->errors++;
			rc = -1;
		}
	}
	flamegraph_hours_sweep(f->hours, b->wall);
	retention_sweep(f->retention, b->conf, b->wall);
	return rc;
}

static char *
sinks_files_key(const struct profile *p)
{
	char	*svc, *key;

	svc = sink_file_service(profile_label_get(p, "service_name"));
	xasprintf(&key, "%s/%s", profile_type_name(profile_type(p)), svc);
	free(svc);
	return key;
}

/* The round before's latest.svg of p's directory, if it drew one. */
static const struct sinks_files_last *
sinks_files_last_find(const struct sinks_files *f, const struct profile *p)
{
	const struct sinks_files_last	*l = NULL;
	char				*key;
	size_t				 i;

	key = sinks_files_key(p);
	for (i = 0; i < f->nlast && l == NULL; i++)
		if (strcmp(f->last[i].key, key) == 0)
			l = &f->last[i];
	free(key);
	return l;
}

/*
 * A final round shorter than half a round (a stop comes a few ms after
 * the round before, at -t's end) would leave latest.svg with a handful
 * of samples: it shows the round before and it, merged, instead.  Not
 * drawn at all where there are no .folded files to merge: the round
 * before's picture stays.  A longer one is a picture of its own (-t's
 * timer comes a little before the round's one: the final round is a
 * full round but for a few ms).  Returns 0 to draw p alone.
 */
static int
sinks_files_draw_short(struct sinks_files *f, const struct sinks_batch *b,
    size_t i)
{
	const struct sinks_files_last	*l;
	struct profile			*m;
	const char			*folded = f->pending[i].folded;

	if (!b->final || b->end - b->start >=
	    b->conf->collect_interval * 1000000000LL / 2 ||
	    (l = sinks_files_last_find(f, b->profiles[i])) == NULL)
		return 0;
	if (l->folded == NULL || folded == NULL)
		return 1;
	if ((m = flamegraph_write_merge(b->profiles[i], l->folded, folded,
	    f->last_start)) == NULL)
		return 0;
	if (flamegraph_write(f->hours, b->conf, b->profiles[i], m,
	    b->wall) == -1)
		f->errors++;
	profile_free(m);
	return 1;
}

/* This round's latest.svg files, for a short one after it. */
static void
sinks_files_keep_last(struct sinks_files *f, const struct sinks_batch *b)
{
	size_t	 i;

	sinks_files_forget_last(f);
	/* A round of no profile (an idle machine) keeps none. */
	if (f->npending == 0)
		return;
	f->last = xcalloc(f->npending, sizeof(*f->last));
	for (i = 0; i < f->npending; i++) {
		f->last[i].key = sinks_files_key(b->profiles[i]);
		f->last[i].folded = f->pending[i].folded;
		f->pending[i].folded = NULL;
	}
	f->nlast = f->npending;
	f->last_start = b->start;
}

/* The flame graphs of the round's profiles: latest.svg, the hour. */
static void
sinks_files_draw(void *arg, const struct sinks_batch *b)
{
	struct sinks_files		*f = arg;
	struct sinks_files_pending	*e;
	int64_t				 t0, c0;
	size_t				 i, n = 0;
	long				 h;

	t0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; b != NULL && i < f->npending; i++, n++) {
		e = &f->pending[i];
		/* last-hour.svg takes the new .folded file's from memory. */
		if (e->folded != NULL)
			flamegraph_hours_known(f->hours, e->folded, &e->sb,
			    b->profiles[i]);
		if (!sinks_files_draw_short(f, b, i) &&
		    flamegraph_write(f->hours, b->conf, b->profiles[i], NULL,
		    b->wall) == -1)
			f->errors++;
		flamegraph_hours_known(f->hours, NULL, NULL, NULL);
	}
	if (b != NULL && b->conf->svg)
		sinks_files_keep_last(f, b);
	sinks_files_forget(f);
	if ((h = flamegraph_write_pending(f->hours)) == -1)
		f->errors++;
	if (n != 0 || h != 0)
		log_debug("sinks: flame graphs drawn, %zu latest.svg, "
		    "%ld last-hour.svg, %.1f ms, %.1f ms CPU", n, h,
		    (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6,
		    (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / 1e6);
}

static void
sinks_files_log_state(void *arg)
{
	struct sinks_files	*f = arg;

	flamegraph_hours_log_state(f->hours);
}

static uint64_t
sinks_files_errors(void *arg)
{
	struct sinks_files	*f = arg;

	return f->errors;
}

const struct sinks_ops sinks_files_ops = {
	.name = "files",
	.create = sinks_files_create,
	.configure = sinks_files_configure,
	.wants_pprof = sinks_files_wants_pprof,
	.round = sinks_files_round,
	.draw = sinks_files_draw,
	.log_state = sinks_files_log_state,
	.errors = sinks_files_errors,
	.free = sinks_files_free,
};
