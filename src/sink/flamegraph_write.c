/*
 * The files sink's flame graphs: <dir>/<type>/<service>/latest.svg of a
 * round's profile, and last-hour.svg of the sum of the directory's
 * .folded files of the hour (flamegraph_hour.c), each laid out
 * (flamegraph.c), drawn (flamegraph_svg.c) and written atomically.  When
 * deferred, the hours are brought up to date with the round and drawn
 * later, after the round's other files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "flamegraph.h"
#include "flamegraph_int.h"
#include "util/log.h"
#include "profile/profile.h"
#include "sink_file.h"
#include "util/xmalloc.h"

struct flamegraph_write_arg {
	const struct flamegraph	*fg;
	const char		*title;
};

static int
flamegraph_write_cb(FILE *f, const void *arg)
{
	const struct flamegraph_write_arg	*a = arg;

	return flamegraph_svg_write(a->fg, a->title, f);
}

/* One SVG file: p laid out in the order o keeps, if any, and drawn. */
static int
flamegraph_write_file(const char *dir, const char *name,
    const struct profile *p, struct flamegraph_order *o, const char *title)
{
	struct flamegraph_write_arg	 a;
	int				 rv;

	a.fg = flamegraph_create_ordered(p, o);
	a.title = title;
	rv = sink_file_atomic(dir, name, flamegraph_write_cb, &a, NULL);
	flamegraph_free((struct flamegraph *)a.fg);
	return rv;
}

/* When a profile's span starts: its time, else its duration back. */
static time_t
flamegraph_write_start(const struct profile *p, time_t now)
{
	if (profile_time(p) > 0)
		return (time_t)(profile_time(p) / 1000000000);
	return now - (time_t)(profile_duration(p) / 1000000000);
}

/* The hour of profile hp is to be drawn under title, which it takes. */
static void
flamegraph_write_pend(struct flamegraph_hours *hs, struct profile *hp,
    char *title)
{
	struct flamegraph_hour	*h;

	for (h = hs->list; h != NULL && h->p != hp; h = h->next)
		;
	if (h == NULL) {
		free(title);
		return;
	}
	free(h->pending);
	h->pending = title;
}

void
flamegraph_write_defer(struct flamegraph_hours *hs, int on)
{
	hs->defer = on;
}

long
flamegraph_write_pending(struct flamegraph_hours *hs)
{
	struct flamegraph_hour	*h;
	long			 n = 0;
	int			 failed = 0;

	for (h = hs->list; h != NULL; h = h->next) {
		if (h->pending == NULL)
			continue;
		if (flamegraph_write_file(h->dir, "last-hour.svg", h->p,
		    h->order, h->pending) == -1)
			failed = 1;
		free(h->pending);
		h->pending = NULL;
		n++;
	}
	return failed ? -1 : n;
}

/*
 * What latest.svg shows of a round too short to stand alone (the final
 * one at a stop): the round before and it, read back from their .folded
 * files, from start (ns) on.  NULL after logging when one cannot be
 * read.
 */
struct profile *
flamegraph_write_merge(const struct profile *p, const char *before,
    const char *folded, int64_t start)
{
	struct profile	*m;
	const char	*paths[2] = { before, folded };
	FILE		*f;
	size_t		 i, budget;
	long		 n;

	m = profile_create(profile_type(p), profile_period(p), start,
	    profile_time(p) + profile_duration(p) - start);
	profile_label_set(m, "service_name",
	    profile_label_get(p, "service_name"));
	for (i = 0; i < 2; i++) {
		if ((f = fopen(paths[i], "re")) == NULL) {
			log_warn("open %s", paths[i]);
			profile_free(m);
			return NULL;
		}
		budget = FLAMEGRAPH_HOUR_BYTES;
		n = flamegraph_folded_read(m, f, &budget);
		fclose(f);
		if (n == -1) {
			log_warn("read %s", paths[i]);
			profile_free(m);
			return NULL;
		}
	}
	return m;
}

/*
 * The span of the hour's graph: from its oldest file's round on, which
 * is this round when it is the only file, else, as far as the name of
 * that file (the round's end) tells, a full round before it; never
 * before the hour, or the minutes the memory bound kept.
 */
static time_t
flamegraph_write_hour_from(const struct flamegraph_hours *hs,
    const struct profile *hp, const struct config *conf, time_t round,
    time_t from)
{
	const struct flamegraph_hour	*h;
	time_t				 t = round;

	for (h = hs->list; h != NULL && h->p != hp; h = h->next)
		;
	if (h != NULL && h->nlisted > 1 &&
	    h->oldest - (time_t)conf->collect_interval < round)
		t = h->oldest - (time_t)conf->collect_interval;
	return t > from ? t : from;
}

/*
 * A round's profile and the one latest.svg shows of it (NULL: the
 * same, else a merge of rounds that ends with it).
 */
int
flamegraph_write(struct flamegraph_hours *hs, const struct config *conf,
    const struct profile *p, const struct profile *shown, time_t now)
{
	struct flamegraph_hours	*once = NULL;
	struct flamegraph_order	*order;
	struct profile		*hp;
	time_t			 from = now - FLAMEGRAPH_HOUR, round;
	char			*service, *dir, span[48], title[256];
	const char		*type = profile_type_name(profile_type(p));
	int			 rv = 0;

	if (!conf->svg)
		return 0;
	if (conf->output_dir == NULL || *conf->output_dir == '\0') {
		log_warnx("output_dir is not set");
		return -1;
	}
	if (shown == NULL)
		shown = p;

	service = sink_file_service(profile_label_get(p, "service_name"));
	xasprintf(&dir, "%s/%s/%s", conf->output_dir, type, service);
	if (sink_file_mkdirs(dir) == -1) {
		rv = -1;
		goto out;
	}
	if (flamegraph_title(title, sizeof(title), service,
	    profile_type(shown), NULL, profile_total(shown),
	    flamegraph_write_start(shown, now), now) == -1) {
		log_warnx("flame graph: time %lld out of range",
		    (long long)now);
		rv = -1;
		goto out;
	}
	if (flamegraph_write_file(dir, "latest.svg", shown, NULL, title) == -1)
		rv = -1;

	/* Without folded files there is no hour to read back. */
	if (!conf->folded)
		goto out;
	if (hs == NULL)
		hs = once = flamegraph_hours_create();
	if ((hp = flamegraph_hours_get(hs, dir, p, now, &order, &from)) ==
	    NULL) {
		rv = -1;
		goto out;
	}
	profile_label_set(hp, "service_name", service);
	/* Less than the hour when the memory bound left minutes out. */
	snprintf(span, sizeof(span), "last hour");
	if (from > now - FLAMEGRAPH_HOUR)
		snprintf(span, sizeof(span), "last %lld min (memory bound)",
		    (long long)(now - from + 59) / 60);
	round = flamegraph_write_start(p, now);
	if (flamegraph_title(title, sizeof(title), service, profile_type(hp),
	    span, profile_total(hp),
	    flamegraph_write_hour_from(hs, hp, conf, round, from), now) == -1) {
		rv = -1;
		goto out;
	}
	if (hs->defer) {
		flamegraph_write_pend(hs, hp, xstrdup(title));
		goto out;
	}
	if (flamegraph_write_file(dir, "last-hour.svg", hp, order, title) == -1)
		rv = -1;
out:
	flamegraph_hours_free(once);
	free(dir);
	free(service);
	return rv;
}
