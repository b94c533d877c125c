#ifndef EBPFSPY_METRICS_CONN_H
#define EBPFSPY_METRICS_CONN_H

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

struct ev_loop;
struct metrics_conns;

/*
 * Deadlines of a listener's connections (metrics_conn.c): each must
 * send a whole request within time seconds of its accept or its last
 * answer, else it is cut; past max connections, a new one cuts the
 * oldest without a whole request.  kick(arg) lets the server see a cut.
 */
struct metrics_conns *metrics_conn_create(struct ev_loop *, double, size_t,
		    void (*)(void *), void *);
void		 metrics_conn_free(struct metrics_conns *);
void		 metrics_conn_served(struct MHD_Connection *);
uint64_t	 metrics_conn_cut(const struct metrics_conns *);
uint64_t	 metrics_conn_evicted(const struct metrics_conns *);
/* MHD_OPTION_NOTIFY_CONNECTION's callback; its arg is the conns. */
void		 metrics_conn_notify_cb(void *, struct MHD_Connection *,
		    void **, enum MHD_ConnectionNotificationCode);

#endif
