/*
 * When to reload: requests (SIGHUP, the file watched changing) come in
 * bursts -- an editor's save is several writes, often followed by a
 * SIGHUP -- and each costs a parse and a pass over every subsystem, so
 * a burst makes one reload, a short delay after its last request.  The
 * reload itself is a callback (ebpfspyd_reload.c), so this file knows
 * nothing of the daemon.
 */
#include <stdlib.h>

#include <ev.h>

#include "reload.h"
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
	struct ev_loop	*loop;
	void		(*apply_cb)(void *);
	void		*arg;
	ev_timer	 timer;
	ev_tstamp	 first;		/* first request of the pending burst */
};

static void
reload_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct reload	*r = w->data;

	ev_timer_stop(loop, w);
	r->apply_cb(r->arg);
}

struct reload *
reload_create(struct ev_loop *loop, void (*apply_cb)(void *), void *arg)
{
	struct reload	*r;

	r = xcalloc(1, sizeof(*r));
	r->loop = loop;
	r->apply_cb = apply_cb;
	r->arg = arg;
	ev_init(&r->timer, reload_timer_cb);
	r->timer.data = r;
	return r;
}

void
reload_free(struct reload *r)
{
	if (r == NULL)
		return;
	ev_timer_stop(r->loop, &r->timer);
	free(r);
}

void
reload_schedule(struct reload *r)
{
	ev_tstamp	 now, left;

	/* Restart the delay: a burst of requests makes one reload. */
	now = ev_now(r->loop);
	if (!ev_is_active(&r->timer))
		r->first = now;
	left = r->first + RELOAD_MAX_DELAY - now;
	if (left > RELOAD_DELAY)
		left = RELOAD_DELAY;
	if (left < 0)
		left = 0;
	ev_timer_stop(r->loop, &r->timer);
	ev_timer_set(&r->timer, left, 0.);
	ev_timer_start(r->loop, &r->timer);
}
