/*
 * Deadlines of the metrics listener's connections, and who gives way
 * when they are too many.
 *
 * libmicrohttpd's connection timeout is an idle timeout: a client that
 * trickles one header line every few seconds keeps its connection, and
 * a handful of such clients held every slot for tens of minutes, so
 * that no scrape got through.  Here each connection must deliver a
 * whole request within METRICS_CONN_REQUEST seconds (metrics.c) of its accept
 * or of its last answer; past that its socket is shut down, which MHD
 * sees as the client going away and cleans up as usual.  Connections
 * are kept in accept order, an answered one moved to the end, so the
 * oldest deadline is the list's head.
 *
 * The deadline alone still let slow clients from many addresses (8
 * connections each) take every slot again as soon as it was cut, and
 * half the scrapes found none free.  So a connection accepted beyond
 * `max' connections live cuts the one that has waited longest without
 * a whole request, the head of the list: a new client is always taken,
 * and is cut in its turn only if `max' connections come after it
 * before its request is whole, where a scrape takes a few
 * milliseconds.  MHD's own limit is set higher (METRICS_CONN_SPARE in
 * metrics.c), for the connections cut and not closed yet.
 */
#include <sys/queue.h>
#include <sys/socket.h>

#include <stdlib.h>

#include <ev.h>
#include <microhttpd.h>

#include "util/log.h"
#include "metrics.h"
#include "metrics_conn.h"
#include "util/xmalloc.h"

struct metrics_conn {
	TAILQ_ENTRY(metrics_conn) entry;
	struct metrics_conns	*mc;
	int			 fd;
	ev_tstamp		 due;
	int			 cut;	/* shut down, waiting for MHD */
};
TAILQ_HEAD(metrics_conn_list, metrics_conn);

struct metrics_conns {
	struct ev_loop		*loop;
	struct metrics_conn_list list;
	ev_timer		 timer;
	double			 time;	/* seconds for a whole request */
	size_t			 max;	/* connections live, then cut one */
	size_t			 live;	/* not cut */
	void			(*kick)(void *);
	void			*arg;
	uint64_t		 cut;	/* connections cut, in all */
	uint64_t		 evicted; /* of them, to make room */
};

static void
metrics_conn_arm(struct metrics_conns *mc)
{
	struct metrics_conn	*c;

	ev_timer_stop(mc->loop, &mc->timer);
	TAILQ_FOREACH(c, &mc->list, entry) {
		if (c->cut)
			continue;
		ev_timer_set(&mc->timer, c->due - ev_now(mc->loop) > 0 ?
		    c->due - ev_now(mc->loop) : 0., 0.);
		ev_timer_start(mc->loop, &mc->timer);
		return;
	}
}

/* Shut c down: MHD closes it when it reads the end; we only end it. */
static void
metrics_conn_end(struct metrics_conns *mc, struct metrics_conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->cut = 1;
	mc->live--;
	mc->cut++;
}

/*
 * One connection too many: cut the oldest still without a whole
 * request (never the newest, at the tail, which made it one too many).
 */
static void
metrics_conn_evict(struct metrics_conns *mc)
{
	struct metrics_conn	*c;

	TAILQ_FOREACH(c, &mc->list, entry) {
		if (c->cut)
			continue;
		if (c == TAILQ_LAST(&mc->list, metrics_conn_list))
			return;
		metrics_conn_end(mc, c);
		mc->evicted++;
		log_debug("metrics: a connection cut to make room: %zu "
		    "connections", mc->max);
		/* Seen by MHD as its fd's events, on the next loop turn. */
		return;
	}
}

static void
metrics_conn_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct metrics_conns	*mc = w->data;
	struct metrics_conn	*c;
	int			 n = 0;

	TAILQ_FOREACH(c, &mc->list, entry) {
		if (c->cut)
			continue;
		if (c->due > ev_now(loop))
			break;
		metrics_conn_end(mc, c);
		n++;
	}
	if (n > 0) {
		log_debug("metrics: %d connection(s) cut: no whole request "
		    "in %.0f s", n, mc->time);
		mc->kick(mc->arg);
	}
	metrics_conn_arm(mc);
}

struct metrics_conns *
metrics_conn_create(struct ev_loop *loop, double time, size_t max,
    void (*kick)(void *), void *arg)
{
	struct metrics_conns	*mc;

	mc = xcalloc(1, sizeof(*mc));
	mc->loop = loop;
	mc->time = time;
	mc->max = max > 0 ? max : 1;
	mc->kick = kick;
	mc->arg = arg;
	TAILQ_INIT(&mc->list);
	ev_init(&mc->timer, metrics_conn_timer_cb);
	mc->timer.data = mc;
	return mc;
}

/* After MHD_stop_daemon(), which closed every connection. */
void
metrics_conn_free(struct metrics_conns *mc)
{
	struct metrics_conn	*c;

	if (mc == NULL)
		return;
	ev_timer_stop(mc->loop, &mc->timer);
	while ((c = TAILQ_FIRST(&mc->list)) != NULL) {
		TAILQ_REMOVE(&mc->list, c, entry);
		free(c);
	}
	free(mc);
}

/* MHD_OPTION_NOTIFY_CONNECTION: a connection starts or ends. */
void
metrics_conn_notify_cb(void *arg, struct MHD_Connection *conn,
    void **ctx, enum MHD_ConnectionNotificationCode code)
{
	struct metrics_conns		*mc = arg;
	struct metrics_conn		*c = *ctx;
	const union MHD_ConnectionInfo	*info;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(conn,
		    MHD_CONNECTION_INFO_CONNECTION_FD);
		c = xcalloc(1, sizeof(*c));
		c->mc = mc;
		c->fd = info != NULL ? info->connect_fd : -1;
		c->due = ev_now(mc->loop) + mc->time;
		c->cut = c->fd == -1;
		TAILQ_INSERT_TAIL(&mc->list, c, entry);
		*ctx = c;
		if (!c->cut && ++mc->live > mc->max)
			metrics_conn_evict(mc);
		if (!ev_is_active(&mc->timer))
			metrics_conn_arm(mc);
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && c != NULL) {
		if (!c->cut)
			mc->live--;
		TAILQ_REMOVE(&mc->list, c, entry);
		free(c);
		*ctx = NULL;
		metrics_conn_arm(mc);
	}
}

/* A request was answered: the next one on it has its own time. */
void
metrics_conn_served(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo	*info;
	struct metrics_conns		*mc;
	struct metrics_conn		*c;

	info = MHD_get_connection_info(conn,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (info == NULL || (c = info->socket_context) == NULL || c->cut)
		return;
	mc = c->mc;
	TAILQ_REMOVE(&mc->list, c, entry);
	c->due = ev_now(mc->loop) + mc->time;
	TAILQ_INSERT_TAIL(&mc->list, c, entry);
	metrics_conn_arm(mc);
}

uint64_t
metrics_conn_cut(const struct metrics_conns *mc)
{
	return mc == NULL ? 0 : mc->cut;
}

uint64_t
metrics_conn_evicted(const struct metrics_conns *mc)
{
	return mc == NULL ? 0 : mc->evicted;
}
