/*
 * The metrics listener: Prometheus text on GET /metrics and the daemon's
 * state as JSON on GET /debug/state.
 *
 * libmicrohttpd runs in "external" mode on the daemon's own loop: no
 * thread of its own, only its epoll fd as an ev_io watcher and its
 * connection timeouts as an ev_timer; MHD_run() never blocks.  So a
 * request is answered between two loop events and reads the daemon's
 * state without locks.  We bind the listening socket ourselves, so that
 * a failure to bind says why, and so that a reload can bind the new
 * address before it lets go of the old one.
 *
 * Requests come from the network: only GET and HEAD of the two pages
 * are answered; the request head is bounded by the per-connection
 * memory limit, the number of connections (in all and per client
 * address), their idle time, and the time a whole request may take
 * (metrics_conn.c): a slow client cannot hold the slots for long.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>
#include <microhttpd.h>

#include "config/config.h"
#include "util/log.h"
#include "metrics.h"
#include "metrics_conn.h"
#include "metrics_unix.h"
#include "util/xmalloc.h"

#define METRICS_CONN_MAX	32	/* connections at once, then one cut */
#define METRICS_CONN_SPARE	16	/* for MHD: those cut, not closed yet */
#define METRICS_CONN_PER_CLIENT	8	/* of them from one address */
#define METRICS_CONN_TIMEOUT	10	/* seconds a connection may idle */
#define METRICS_CONN_REQUEST	5.	/* seconds to send a whole request */
#define METRICS_CONN_MEMORY	16384	/* bytes: bounds a request head */
#define METRICS_BACKLOG		16

#define METRICS_TEXT	"text/plain; version=0.0.4; charset=utf-8"

/* One listening address and the HTTP daemon that serves it. */
struct metrics_server {
	struct metrics		*m;
	struct MHD_Daemon	*mhd;
	char			*listen;
	ev_io			 io;		/* MHD's epoll fd */
	ev_timer		 timer;		/* MHD's next timeout */
	struct metrics_conns	*conns;		/* their deadlines */
	int			 unix_socket;	/* listen is unix:path */
	dev_t			 dev;		/* the unix socket's */
	ino_t			 ino;
};

struct metrics {
	struct ev_loop		*loop;
	metrics_view_cb		 view_cb;
	void			*view_arg;
	struct metrics_server	*srv;		/* NULL: none */
	metrics_push_cb		 push_cb;
	void			*push_arg;
	uint64_t		 requests;
};

int
metrics_listen_parse(const char *s, struct sockaddr_storage *ss,
    socklen_t *len, const char **errstr)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;
	const char		*host, *port, *end;
	char			 buf[INET6_ADDRSTRLEN];
	size_t			 hlen;
	long			 p = 0;
	int			 v6 = 0;

	memset(ss, 0, sizeof(*ss));
	if (strncmp(s, METRICS_UNIX_PREFIX, strlen(METRICS_UNIX_PREFIX)) == 0)
		return metrics_unix_parse(s, (struct sockaddr_un *)ss, len,
		    errstr);
	if (*s == '[') {
		host = s + 1;
		if ((end = strchr(host, ']')) == NULL || end[1] != ':') {
			*errstr = "expected [address]:port";
			return -1;
		}
		port = end + 2;
		v6 = 1;
	} else {
		if ((end = strrchr(s, ':')) == NULL) {
			*errstr = "expected host:port";
			return -1;
		}
		host = s;
		port = end + 1;
		if (memchr(host, ':', end - host) != NULL) {
			*errstr = "an IPv6 address goes in brackets: "
			    "[address]:port";
			return -1;
		}
	}
	hlen = end - host;
	if (hlen == 0 || hlen >= sizeof(buf)) {
		*errstr = "bad address";
		return -1;
	}
	memcpy(buf, host, hlen);
	buf[hlen] = '\0';

	if (*port == '\0' || strlen(port) > 5)
		p = -1;
	for (; p != -1 && *port != '\0'; port++) {
		if (*port < '0' || *port > '9')
			p = -1;
		else
			p = p * 10 + (*port - '0');
	}
	if (p < 1 || p > 65535) {
		*errstr = "bad port: expected 1 to 65535";
		return -1;
	}

	if (v6) {
		if (inet_pton(AF_INET6, buf, &sin6->sin6_addr) != 1) {
			*errstr = "bad IPv6 address";
			return -1;
		}
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(p);
		*len = sizeof(*sin6);
		return 0;
	}
	if (strcmp(buf, "localhost") == 0)
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else if (inet_pton(AF_INET, buf, &sin->sin_addr) != 1) {
		*errstr = "bad IPv4 address";
		return -1;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(p);
	*len = sizeof(*sin);
	return 0;
}

const char *
metrics_listen_check(const char *s)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	const char		*errstr = NULL;

	if (*s == '\0')
		return NULL;
	if (metrics_listen_parse(s, &ss, &len, &errstr) == -1)
		return errstr;
	return NULL;
}

/* [metrics]. */
const struct config_key metrics_keys[] = {
	{ "metrics", "listen", CONFIG_STRING, CONFIG_OFF(metrics_listen), 0, 0,
	    NULL, "unix:/run/ebpfspyd/metrics.sock", CONFIG_LIVE,
	    "unix socket or address of the metrics HTTP listener "
	    "(empty: none)",
	    metrics_listen_check },
	{ "metrics", "service_ttl", CONFIG_INT,
	    CONFIG_OFF(metrics_service_ttl), 0, 31536000, NULL, "600",
	    CONFIG_LIVE, "seconds a service's series stay after its last "
	    "sample (0: forever)", NULL },
	{ NULL }
};

/* HTTP ------------------------------------------------------------------ */

static enum MHD_Result
metrics_respond(struct MHD_Connection *conn, unsigned int status,
    const char *type, char *body, size_t len)
{
	struct MHD_Response	*resp;
	enum MHD_Result		 ret;

	resp = MHD_create_response_from_buffer(len, body,
	    MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
	    "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
		    "GET, HEAD");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* "METHOD path" for the log: the client chose it, so only printable. */
static void
metrics_printable(char *buf, size_t size, const char *method,
    const char *url)
{
	const unsigned char	*s;
	size_t			 i = 0;
	int			 part;

	for (part = 0; part < 2; part++) {
		for (s = (const unsigned char *)(part == 0 ? method : url);
		    *s != '\0' && i + 1 < size; s++)
			buf[i++] = (*s > 0x20 && *s < 0x7f) ? *s : '?';
		if (part == 0 && i + 1 < size)
			buf[i++] = ' ';
	}
	buf[i] = '\0';
}

static enum MHD_Result
metrics_request_cb(void *arg, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_len, void **state)
{
	struct metrics		*m = arg;
	struct metrics_push	 mp;
	struct metrics_view	 view;
	unsigned int		 status = MHD_HTTP_OK;
	const char		*type = METRICS_TEXT;
	FILE			*f;
	char			*body = NULL, what[64];
	size_t			 len = 0;

	m->requests++;
	memset(&view, 0, sizeof(view));
	m->view_cb(&view, m->view_arg);
	if ((f = open_memstream(&body, &len)) == NULL)
		fatal("open_memstream");
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		fputs("method not allowed: use GET\n", f);
	} else if (strcmp(url, "/metrics") == 0) {
		if (m->push_cb != NULL) {
			memset(&mp, 0, sizeof(mp));
			m->push_cb(&mp, m->push_arg);
		}
		metrics_prom_write(f, &view, m->push_cb != NULL ? &mp : NULL,
		    m->requests);
	} else if (strcmp(url, "/debug/state") == 0) {
		type = "application/json";
		metrics_state_write(f, &view, m->srv != NULL ?
		    m->srv->listen : NULL);
	} else {
		status = MHD_HTTP_NOT_FOUND;
		fputs("not found: try /metrics or /debug/state\n", f);
	}
	if (fclose(f) != 0)
		fatal("metrics: page");
	metrics_printable(what, sizeof(what), method, url);
	log_debug("metrics: %s: %u, %zu bytes", what, status, len);
	metrics_conn_served(conn);
	return metrics_respond(conn, status, type, body, len);
}

static void __attribute__((format(printf, 2, 0)))
metrics_mhd_log_cb(void *arg, const char *fmt, va_list ap)
{
	char	 buf[512];
	size_t	 len;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	len = strlen(buf);
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	log_debug("metrics: libmicrohttpd: %s", buf);
}

/* Run what MHD has to do now, then wake up for its next timeout. */
static void
metrics_server_run(struct metrics_server *srv)
{
	struct ev_loop		*loop = srv->m->loop;
	MHD_UNSIGNED_LONG_LONG	 ms;

	if (MHD_run(srv->mhd) != MHD_YES)
		log_debug("metrics: MHD_run failed");
	ev_timer_stop(loop, &srv->timer);
	if (MHD_get_timeout(srv->mhd, &ms) == MHD_YES) {
		ev_timer_set(&srv->timer, ms / 1000., 0.);
		ev_timer_start(loop, &srv->timer);
	}
}

static void
metrics_server_kick(void *arg)
{
	metrics_server_run(arg);
}

static void
metrics_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	metrics_server_run(w->data);
}

static void
metrics_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	metrics_server_run(w->data);
}

/* A listening socket on a checked address; -1 with errno. */
static int
metrics_socket(const char *addr, int *family, dev_t *dev, ino_t *ino)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	const char		*errstr;
	int			 fd, on = 1, saved;

	if (metrics_listen_parse(addr, &ss, &len, &errstr) == -1) {
		errno = EINVAL;
		return -1;
	}
	*family = ss.ss_family;
	if (ss.ss_family == AF_UNIX)
		return metrics_unix_listen((struct sockaddr_un *)&ss, len,
		    METRICS_BACKLOG, dev, ino);
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		return -1;
	/* Connections of an earlier run in TIME_WAIT must not stop us. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == -1 ||
	    bind(fd, (struct sockaddr *)&ss, len) == -1 ||
	    listen(fd, METRICS_BACKLOG) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* A unix socket's path goes with its listener. */
static void
metrics_server_unlink(struct metrics_server *srv, const char *addr)
{
	if (srv->unix_socket)
		metrics_unix_unlink(addr + strlen(METRICS_UNIX_PREFIX),
		    srv->dev, srv->ino);
}

static struct metrics_server *
metrics_server_open(struct metrics *m, const char *addr)
{
	struct metrics_server	*srv;
	const union MHD_DaemonInfo *info;
	struct stat		 sock, sb;
	unsigned int		 flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	dev_t			 dev = 0;
	ino_t			 ino = 0;
	int			 fd, family;

	if ((fd = metrics_socket(addr, &family, &dev, &ino)) == -1) {
		log_warn("metrics: listen on %s", addr);
		return NULL;
	}
	if (fstat(fd, &sock) == -1)
		fatal("fstat");
	if (family == AF_INET6)
		flags |= MHD_USE_IPv6;
	srv = xcalloc(1, sizeof(*srv));
	srv->m = m;
	srv->unix_socket = family == AF_UNIX;
	srv->dev = dev;
	srv->ino = ino;
	srv->conns = metrics_conn_create(m->loop, METRICS_CONN_REQUEST,
	    METRICS_CONN_MAX, metrics_server_kick, srv);
	srv->mhd = MHD_start_daemon(flags, 0, NULL, NULL, metrics_request_cb,
	    m, MHD_OPTION_EXTERNAL_LOGGER, metrics_mhd_log_cb, m,
	    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
	    MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned int)(METRICS_CONN_MAX + METRICS_CONN_SPARE),
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	    (unsigned int)METRICS_CONN_PER_CLIENT,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_CONN_TIMEOUT,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_CONN_MEMORY,
	    MHD_OPTION_NOTIFY_CONNECTION, metrics_conn_notify_cb, srv->conns,
	    MHD_OPTION_END);
	if (srv->mhd == NULL) {
		log_warnx("metrics: cannot start the HTTP server on %s",
		    addr);
		/*
		 * Some of MHD's failures close the socket, some do not:
		 * close it if it is still ours.
		 */
		if (fstat(fd, &sb) == 0 && sb.st_dev == sock.st_dev &&
		    sb.st_ino == sock.st_ino)
			close(fd);
		metrics_server_unlink(srv, addr);
		metrics_conn_free(srv->conns);
		free(srv);
		return NULL;
	}
	info = MHD_get_daemon_info(srv->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	if (info == NULL || info->epoll_fd < 0) {
		log_warnx("metrics: no epoll fd from libmicrohttpd");
		MHD_stop_daemon(srv->mhd);
		metrics_server_unlink(srv, addr);
		metrics_conn_free(srv->conns);
		free(srv);
		return NULL;
	}
	srv->listen = xstrdup(addr);
	ev_io_init(&srv->io, metrics_io_cb, info->epoll_fd, EV_READ);
	srv->io.data = srv;
	ev_io_start(m->loop, &srv->io);
	ev_init(&srv->timer, metrics_timer_cb);
	srv->timer.data = srv;
	metrics_server_run(srv);
	log_info("metrics: listening on %s", addr);
	return srv;
}

/* Stop listening; connections in progress are dropped. */
static void
metrics_server_close(struct metrics_server *srv)
{
	if (srv == NULL)
		return;
	ev_io_stop(srv->m->loop, &srv->io);
	ev_timer_stop(srv->m->loop, &srv->timer);
	MHD_stop_daemon(srv->mhd);	/* closes the listening socket */
	metrics_server_unlink(srv, srv->listen);
	metrics_conn_free(srv->conns);
	free(srv->listen);
	free(srv);
}

static int
metrics_port(const char *addr)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	const char		*errstr;

	if (metrics_listen_parse(addr, &ss, &len, &errstr) == -1)
		return -1;
	if (ss.ss_family == AF_UNIX)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

struct metrics *
metrics_create(struct ev_loop *loop, const struct config *conf,
    metrics_view_cb view_cb, void *view_arg)
{
	struct metrics	*m;

	m = xcalloc(1, sizeof(*m));
	m->loop = loop;
	m->view_cb = view_cb;
	m->view_arg = view_arg;
	if (metrics_configure(m, conf) == -1)
		log_warnx("metrics: no listener; a reload tries again");
	return m;
}

int
metrics_configure(struct metrics *m, const struct config *conf)
{
	struct metrics_server	*srv;
	const char		*addr = conf->metrics_listen;
	char			*old;

	if (m->srv != NULL && strcmp(m->srv->listen, addr) == 0)
		return 0;
	if (*addr == '\0') {
		if (m->srv != NULL)
			log_info("metrics: no longer listening on %s",
			    m->srv->listen);
		metrics_server_close(m->srv);
		m->srv = NULL;
		return 0;
	}
	/* The new address first, so that a failure keeps the old. */
	if ((srv = metrics_server_open(m, addr)) != NULL) {
		if (m->srv != NULL)
			log_info("metrics: no longer listening on %s",
			    m->srv->listen);
		metrics_server_close(m->srv);
		m->srv = srv;
		return 0;
	}
	if (m->srv == NULL)
		return -1;
	if (metrics_port(addr) <= 0 ||
	    metrics_port(m->srv->listen) != metrics_port(addr)) {
		log_warnx("metrics: still listening on %s", m->srv->listen);
		return -1;
	}
	/* Same port, overlapping addresses: the old one must go first. */
	old = xstrdup(m->srv->listen);
	log_info("metrics: closing %s to bind %s", old, addr);
	metrics_server_close(m->srv);
	if ((m->srv = metrics_server_open(m, addr)) == NULL) {
		if ((m->srv = metrics_server_open(m, old)) == NULL)
			log_warnx("metrics: cannot listen on %s again", old);
		free(old);
		return -1;
	}
	free(old);
	return 0;
}

void
metrics_free(struct metrics *m)
{
	if (m == NULL)
		return;
	metrics_server_close(m->srv);
	free(m);
}

void
metrics_set_push(struct metrics *m, metrics_push_cb cb, void *arg)
{
	m->push_cb = cb;
	m->push_arg = arg;
}
