#ifndef EBPFSPY_PYROSCOPE_HTTP_H
#define EBPFSPY_PYROSCOPE_HTTP_H

#include <stddef.h>

/*
 * HTTP POSTs, several at once, with libcurl's multi interface on a libev
 * loop: never blocks.  Internal to the Pyroscope sink.
 */

struct ev_loop;
struct pyroscope_conf;
struct pyroscope_http;
struct pyroscope_http_xfer;

struct pyroscope_http_result {
	int		 error;		/* no HTTP answer (connect, timeout) */
	long		 status;	/* the HTTP status, or 0 */
	long		 retry_after;	/* seconds the server asked, or 0 */
	const char	*message;	/* curl's error, else the first bytes of
					   the answer; printable */
	const char	*location;	/* a 3xx's Location, printable, or
					   NULL */
};

/*
 * Called when a POST ends, with the create()'s and the post()'s argument;
 * it may start other POSTs.
 */
typedef void	(*pyroscope_http_cb)(void *, void *,
		    const struct pyroscope_http_result *);

struct pyroscope_http *pyroscope_http_create(struct ev_loop *,
		    pyroscope_http_cb, void *);
void		 pyroscope_http_free(struct pyroscope_http *);
/*
 * POST body to the conf's url followed by target, with its auth, TLS
 * settings, extra headers and timeout.  The body must stay until the
 * callback or pyroscope_http_abort().  NULL (logged) if it cannot start.
 */
struct pyroscope_http_xfer *pyroscope_http_post(struct pyroscope_http *,
		    const struct pyroscope_conf *, const char *,
		    const void *, size_t, void *);
size_t		 pyroscope_http_busy(const struct pyroscope_http *);
/* Drop a POST in flight, without calling back. */
void		 pyroscope_http_abort(struct pyroscope_http *,
		    struct pyroscope_http_xfer *);
/*
 * Without the loop (it no longer runs at a stop): drive POSTs with
 * poll(2) while any is in flight, until the monotonic deadline.
 */
void		 pyroscope_http_run(struct pyroscope_http *, double);
double		 pyroscope_http_now(void);	/* CLOCK_MONOTONIC, s */

#endif
