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

int
flamegraph_write(struct flamegraph_hours *hs, const struct config *conf,
    const struct profile *p, time_t now)
{
	struct flamegraph_hours	*once = NULL;
	struct flamegraph_order	*order;
	struct profile		*hp;
	struct tm		 tm;
	time_t			 from = now - FLAMEGRAPH_HOUR;
	char			 t1[32], t2[32], *service, *dir, *title;
	char			 t0[32], span[48];
	const char		*type = profile_type_name(profile_type(p));
	int			 rv = 0;

	if (!conf->svg)
		return 0;
	if (conf->output_dir == NULL || *conf->output_dir == '\0') {
		log_warnx("output_dir is not set");
		return -1;
	}
	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(t2, sizeof(t2), "%Y-%m-%d %H:%M:%S", &tm) == 0 ||
	    gmtime_r(&from, &tm) == NULL ||
	    strftime(t1, sizeof(t1), "%Y-%m-%d %H:%M:%S", &tm) == 0) {
		log_warnx("flame graph: time %lld out of range",
		    (long long)now);
		return -1;
	}

	service = sink_file_service(profile_label_get(p, "service_name"));
	xasprintf(&dir, "%s/%s/%s", conf->output_dir, type, service);
	if (sink_file_mkdirs(dir) == -1) {
		rv = -1;
		goto out;
	}
	xasprintf(&title, "%s: %s, %s UTC", service, type, t2);
	if (flamegraph_write_file(dir, "latest.svg", p, NULL, title) == -1)
		rv = -1;
	free(title);

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
	if (from > now - FLAMEGRAPH_HOUR && gmtime_r(&from, &tm) != NULL &&
	    strftime(t0, sizeof(t0), "%Y-%m-%d %H:%M:%S", &tm) != 0) {
		memcpy(t1, t0, sizeof(t1));
		snprintf(span, sizeof(span), "last %lld min (memory bound)",
		    (long long)(now - from + 59) / 60);
	}
	/* The day once, unless the hour spans midnight. */
	xasprintf(&title, "%s: %s, %s, %s to %s UTC", service, type, span,
	    t1, strncmp(t1, t2, 11) == 0 ? t2 + 11 : t2);
	if (hs->defer) {
		flamegraph_write_pend(hs, hp, title);
		goto out;
	}
	if (flamegraph_write_file(dir, "last-hour.svg", hp, order, title) == -1)
		rv = -1;
	free(title);
out:
	flamegraph_hours_free(once);
	free(dir);
	free(service);
	return rv;
}
