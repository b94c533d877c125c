/*
 * Reload: parse the new configuration completely before touching
 * anything, so a broken file never costs the running daemon its
 * configuration.  Then every subsystem takes the live changes, and the
 * old configuration is freed only once nothing refers to it.
 */
#include <stdlib.h>

#include <ev.h>

#include "round/collect.h"
#include "config.h"
#include "ebpfspyd.h"
#include "util/log.h"
#include "metrics/metrics.h"
#include "round/pids.h"
#include "reload.h"
#include "sym/resolve.h"
#include "session/session.h"
#include "sink/sinks.h"
#include "util/xmalloc.h"

/*
 * Long enough to take in the several writes of one save and a SIGHUP
 * sent right after it, short enough that nobody waits for it.
 */
#define RELOAD_DELAY	0.2
/*
 * Each request restarts the delay, but a steady stream of them (a
 * SIGHUP loop, a program rewriting the file every 0.1 s) must not put
 * the reload off for ever: the first request of a burst is served at
 * most this long after it came.
 */
#define RELOAD_MAX_DELAY	2.0

struct reload {
	struct ebpfspyd	*d;
	ev_timer	 timer;
	ev_tstamp	 first;		/* first request of the pending burst */
};

static void
reload_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct reload	*r = w->data;

	ev_timer_stop(loop, w);
	reload_now(r->d);
}

struct reload *
reload_create(struct ebpfspyd *d)
{
	struct reload	*r;

	r = xcalloc(1, sizeof(*r));
	r->d = d;
	ev_init(&r->timer, reload_timer_cb);
	r->timer.data = r;
	return r;
}

void
reload_free(struct reload *r)
{
	if (r == NULL)
		return;
	ev_timer_stop(r->d->loop, &r->timer);
	free(r);
}

void
reload_schedule(struct ebpfspyd *d)
{
	struct reload	*r = d->reload;
	ev_tstamp	 now, left;

	if (r == NULL || d->exiting)
		return;
	/* Restart the delay: a burst of requests makes one reload. */
	now = ev_now(d->loop);
	if (!ev_is_active(&r->timer))
		r->first = now;
	left = r->first + RELOAD_MAX_DELAY - now;
	if (left > RELOAD_DELAY)
		left = RELOAD_DELAY;
	if (left < 0)
		left = 0;
	ev_timer_stop(d->loop, &r->timer);
	ev_timer_set(&r->timer, left, 0.);
	ev_timer_start(d->loop, &r->timer);
}

int
reload_now(struct ebpfspyd *d)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*old = d->conf, *new;
	struct session_change	*change;
	size_t			 i;

	log_debug("reloading %s", d->conf_path);
	if ((new = config_load(d->conf_path, d->conf_missing_ok,
	    &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			log_warnx("%s", errs.v[i]);
		config_errors_clear(&errs);
		log_warnx("reload failed, keeping the previous configuration");
		d->reload_failures++;
		return -1;
	}
	/*
	 * A file of no section and no key is most likely one caught
	 * between an editor's truncate and its write: applying it would
	 * reset every key.  A section header alone says "defaults".
	 */
	if (new->empty) {
		log_warnx("%s: no section and no key, keeping the previous "
		    "configuration (write a section header such as [daemon] "
		    "for the defaults)", d->conf_path);
		config_free(new);
		d->reload_failures++;
		return -1;
	}
	config_keep_restart(old, new);
	ebpfspyd_conf_override(d, new);

	/*
	 * The BPF side is the only part that can refuse a change; the
	 * process table and the symbolizer only copy values.  What can
	 * fail is prepared first; a refusal leaves BPF as it was.
	 */
	if ((change = session_prepare(d->session, new)) == NULL) {
		log_warnx("%s: cannot apply to the BPF session, keeping the "
		    "previous configuration", d->conf_path);
		config_free(new);
		d->reload_failures++;
		return -1;
	}
	session_commit(d->session, change);
	if (sinks_configure(d->sinks, new) == -1)
		log_warnx("%s: [pyroscope]: keeping the previous push settings",
		    d->conf_path);
	pids_configure(d->pids, new);
	resolve_configure(d->resolve, new);
	/* A listener that cannot move keeps the old one: no reason to fail. */
	if (metrics_configure(d->metrics, new) == -1)
		log_warnx("%s: [metrics] listen: keeping the previous listener",
		    d->conf_path);

	d->conf = new;
	if (new->collect_interval != old->collect_interval &&
	    ebpfspyd_timer_set(d) == -1)
		log_warnx("collect_interval: keeping the previous timer");
	config_free(old);
	d->reloads++;
	log_info("reloaded %s", d->conf_path);
	return 0;
}
