/*
 * Reload: parse the new configuration completely before touching
 * anything, so a broken file never costs the running daemon its
 * configuration.  Then every subsystem takes the live changes, and the
 * old configuration is freed only once nothing refers to it.
 */
#include <stdlib.h>

#include <ev.h>

#include "collect.h"
#include "config.h"
#include "ebpfspyd.h"
#include "log.h"
#include "metrics.h"
#include "pids.h"
#include "reload.h"
#include "resolve.h"
#include "session.h"
#include "sinks.h"
#include "xmalloc.h"

/*
 * Long enough to take in the several writes of one save and a SIGHUP
 * sent right after it, short enough that nobody waits for it.
 */
#define RELOAD_DELAY	0.2

struct reload {
	struct ebpfspyd	*d;
	ev_timer	 timer;
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
	r->timer.repeat = RELOAD_DELAY;
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
	if (d->reload == NULL || d->exiting)
		return;
	/* Restart the delay: a burst of requests makes one reload. */
	ev_timer_again(d->loop, &d->reload->timer);
}

int
reload_now(struct ebpfspyd *d)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*old = d->conf, *new;
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
	config_keep_restart(old, new);
	ebpfspyd_conf_override(d, new);

	/*
	 * The BPF side is the only part that can refuse a change; the
	 * process table and the symbolizer only copy values.
	 */
	if (session_apply(d->session, new) == -1) {
		log_warnx("%s: cannot apply to the BPF session, keeping the "
		    "previous configuration", d->conf_path);
		config_free(new);
		d->reload_failures++;
		return -1;
	}
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
