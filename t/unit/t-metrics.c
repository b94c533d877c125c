/*
 * The metrics listener without BPF: the listen address parser and its
 * config errors, the two pages of a daemon that has no BPF session, and
 * HTTP through libmicrohttpd on a libev loop -- status codes, methods,
 * oversized requests, and reloads that move, keep or close the listener.
 * The client runs on the same loop as the server, non-blocking.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "config.h"
#include "util/log.h"
#include "metrics/metrics.h"
#include "util/clock.h"
#include "tap.h"

static struct ev_loop	*loop;

/* A loopback port nobody listens on now. */
static int
free_port(int family)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	int			 fd, port;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
		len = sizeof(struct sockaddr_in6);
	} else {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
		    htonl(INADDR_LOOPBACK);
		len = sizeof(struct sockaddr_in);
	}
	if ((fd = socket(family, SOCK_STREAM, 0)) == -1)
		return -1;
	if (bind(fd, (struct sockaddr *)&ss, len) == -1 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) == -1) {
		close(fd);
		return -1;
	}
	close(fd);
	if (family == AF_INET6)
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	else
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return port;
}

/* Something else listening on a port of 127.0.0.1. */
static int
occupy(int port)
{
	struct sockaddr_in	 sin;
	int			 fd, on = 1;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 1) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

struct client {
	int		 fd;
	const char	*req;
	size_t		 reqlen, sent;
	char		*buf;
	size_t		 len, cap;
	int		 refused;
	ev_io		 io;
	ev_timer	 guard;
};

static void
client_done(struct client *c)
{
	ev_io_stop(loop, &c->io);
	ev_timer_stop(loop, &c->guard);
	ev_break(loop, EVBREAK_ONE);
}

static void
client_io_cb(struct ev_loop *l, ev_io *w, int revents)
{
	struct client	*c = w->data;
	socklen_t	 len = sizeof(int);
	ssize_t		 n;
	int		 err = 0;

	if (revents & EV_WRITE) {
		if (c->sent == 0 && getsockopt(c->fd, SOL_SOCKET, SO_ERROR,
		    &err, &len) == 0 && err != 0) {
			c->refused = err == ECONNREFUSED;
			client_done(c);
			return;
		}
		n = send(c->fd, c->req + c->sent, c->reqlen - c->sent,
		    MSG_NOSIGNAL);
		if (n > 0)
			c->sent += n;
		if (n == -1 && errno != EAGAIN) {
			/* The server may close before reading it all. */
			c->sent = c->reqlen;
		}
		if (c->sent == c->reqlen) {
			ev_io_stop(l, &c->io);
			ev_io_set(&c->io, c->fd, EV_READ);
			ev_io_start(l, &c->io);
		}
		return;
	}
	for (;;) {
		if (c->len + 4096 > c->cap) {
			c->cap = c->cap * 2 + 4096;
			if ((c->buf = realloc(c->buf, c->cap + 1)) == NULL)
				abort();
		}
		n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
		if (n > 0) {
			c->len += n;
			continue;
		}
		if (n == -1 && errno == EAGAIN)
			return;
		client_done(c);	/* EOF, or reset */
		return;
	}
}

static void
client_guard_cb(struct ev_loop *l, ev_timer *w, int revents)
{
	struct client	*c = w->data;

	diag("client: no answer in 20 s");
	client_done(c);
}

/*
 * Send req to port (of 127.0.0.1, or ::1 if v6) and run the loop until
 * the server closed the connection.  The whole answer, NULL if the
 * connection was refused.
 */
static char *
http(int port, int v6, const char *req, size_t reqlen)
{
	struct sockaddr_storage	 ss;
	struct client		 c;
	socklen_t		 len;

	memset(&ss, 0, sizeof(ss));
	if (v6) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
		len = sizeof(struct sockaddr_in6);
	} else {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
		    htonl(INADDR_LOOPBACK);
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
		len = sizeof(struct sockaddr_in);
	}
	memset(&c, 0, sizeof(c));
	c.req = req;
	c.reqlen = reqlen;
	if ((c.fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK,
	    0)) == -1)
		return NULL;
	if (connect(c.fd, (struct sockaddr *)&ss, len) == -1 &&
	    errno != EINPROGRESS) {
		close(c.fd);
		return NULL;
	}
	ev_io_init(&c.io, client_io_cb, c.fd, EV_WRITE);
	c.io.data = &c;
	ev_io_start(loop, &c.io);
	ev_timer_init(&c.guard, client_guard_cb, 20., 0.);
	c.guard.data = &c;
	ev_timer_start(loop, &c.guard);
	ev_run(loop, 0);
	close(c.fd);
	if (c.refused) {
		free(c.buf);
		return NULL;
	}
	if (c.buf == NULL && (c.buf = malloc(1)) == NULL)
		abort();
	c.buf[c.len] = '\0';
	return c.buf;
}

static char *
get(int port, const char *path)
{
	char	 req[512];

	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: localhost\r\n"
	    "\r\n", path);
	return http(port, 0, req, strlen(req));
}

/* The status code of an answer, -1 if none. */
static int
status(const char *resp)
{
	int	 code;

	if (resp == NULL || sscanf(resp, "HTTP/1.%*d %d", &code) != 1)
		return -1;
	return code;
}

static const char *
body(const char *resp)
{
	const char	*p;

	if (resp == NULL || (p = strstr(resp, "\r\n\r\n")) == NULL)
		return "";
	return p + 4;
}

/* The value of the first sample line "name value" of a page. */
static long long
sample(const char *page, const char *name)
{
	const char	*p = page;
	size_t		 len = strlen(name);

	while ((p = strstr(p, name)) != NULL) {
		if ((p == page || p[-1] == '\n') && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 10);
		p += len;
	}
	return -1;
}

static void
test_parse(void)
{
	static const struct {
		const char	*s;
		int		 family, port;
	} good[] = {
		{ "127.0.0.1:9465", AF_INET, 9465 },
		{ "0.0.0.0:1", AF_INET, 1 },
		{ "localhost:65535", AF_INET, 65535 },
		{ "[::1]:9465", AF_INET6, 9465 },
		{ "[::]:80", AF_INET6, 80 },
		{ "[fe80::1:2]:8080", AF_INET6, 8080 },
	};
	static const char *const bad[] = {
		"9465", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
		"127.0.0.1:65536", "127.0.0.1:123456", "127.0.0.1:+80",
		"127.0.0.1:80 ", "127.0.0.1:-1", ":80", "::1:80", "[::1]80",
		"[::1]", "[::1:80", "[]:80", "[zz]:80", "[127.0.0.1]:80",
		"example.com:80", "1.2.3:80", "256.1.1.1:80",
		"127.0.0.1:0x50", "unix:", "unix:run/m.sock", "unix:/run/",
		"unix:/run/ebpfspyd/a-path-longer-than-sun_path-is-refused-"
		    "because-bind-would-cut-it-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	};
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	const char		*errstr;
	size_t			 i;
	int			 port;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		errstr = NULL;
		if (!ok(metrics_listen_parse(good[i].s, &ss, &len,
		    &errstr) == 0, "parse %s", good[i].s)) {
			diag(errstr);
			continue;
		}
		port = ss.ss_family == AF_INET6 ?
		    ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) :
		    ntohs(((struct sockaddr_in *)&ss)->sin_port);
		ok(ss.ss_family == good[i].family && port == good[i].port &&
		    len == (ss.ss_family == AF_INET6 ?
		    sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in)),
		    "%s: family and port", good[i].s);
	}
	ok(metrics_listen_parse("localhost:1", &ss, &len, &errstr) == 0 &&
	    ((struct sockaddr_in *)&ss)->sin_addr.s_addr ==
	    htonl(INADDR_LOOPBACK), "localhost is 127.0.0.1");
	ok(metrics_listen_parse("unix:/run/ebpfspyd/metrics.sock", &ss, &len,
	    &errstr) == 0 && ss.ss_family == AF_UNIX &&
	    strcmp(((struct sockaddr_un *)&ss)->sun_path,
	    "/run/ebpfspyd/metrics.sock") == 0, "unix:/path: a unix socket");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errstr = NULL;
		ok(metrics_listen_parse(bad[i], &ss, &len, &errstr) == -1 &&
		    errstr != NULL && metrics_listen_check(bad[i]) != NULL,
		    "refuse '%s' (%s)", bad[i], errstr ? errstr : "?");
	}
	ok(metrics_listen_check("") == NULL, "empty is good: no listener");
}

static struct config *
load(const char *text, struct config_errors *errs)
{
	char	 path[] = "/tmp/t-metrics.XXXXXX";
	struct config	*conf;
	FILE	*f;
	int	 fd;

	if ((fd = mkstemp(path)) == -1 || (f = fdopen(fd, "w")) == NULL)
		abort();
	fputs(text, f);
	fclose(f);
	conf = config_load(path, 0, errs);
	if (errs->n > 0) {
		/* Messages name the file: make them comparable. */
		char	*p = strstr(errs->v[0], ":");

		if (p != NULL)
			memmove(errs->v[0], p + 1, strlen(p + 1) + 1);
	}
	unlink(path);
	return conf;
}

static void
test_config(void)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf;

	conf = config_defaults();
	is_str(conf->metrics_listen, "unix:/run/ebpfspyd/metrics.sock",
	    "listen defaults to a unix socket: root only");
	config_free(conf);

	conf = load("[metrics]\nlisten = 0.0.0.0:80\n", &errs);
	ok(conf != NULL && strcmp(conf->metrics_listen, "0.0.0.0:80") == 0,
	    "listen = 0.0.0.0:80");
	config_free(conf);
	conf = load("[metrics]\nlisten =\n", &errs);
	ok(conf != NULL && strcmp(conf->metrics_listen, "") == 0,
	    "an empty listen: no listener");
	config_free(conf);

	conf = load("[metrics]\nlisten = ::1:80\n", &errs);
	ok(conf == NULL && errs.n == 1, "a bad listen is a config error");
	if (errs.n == 1)
		is_str(errs.v[0], "2: [metrics] listen: ::1:80: an IPv6 "
		    "address goes in brackets: [address]:port",
		    "the message names the line, key, value and problem");
	config_errors_clear(&errs);
	conf = load("[metrics]\nlisten = 127.0.0.1:99999\n", &errs);
	ok(conf == NULL && errs.n == 1, "a bad port is a config error");
	config_errors_clear(&errs);
}

/* The daemon's part: hand the pages the test's view. */
static void
view_cb(struct metrics_view *v, void *arg)
{
	*v = *(struct metrics_view *)arg;
}

static char *
page(int prom, struct metrics_view *d, const struct metrics_push *mp)
{
	FILE	*f;
	char	*buf = NULL;
	size_t	 len = 0;

	if ((f = open_memstream(&buf, &len)) == NULL)
		abort();
	if (prom)
		metrics_prom_write(f, d, mp, 7);
	else
		metrics_state_write(f, d, "127.0.0.1:1");
	fclose(f);
	return buf;
}

/* Every line a comment or "name[{labels}] value", HELP before TYPE. */
static int
prom_is_wellformed(const char *text)
{
	const char	*line = text, *end;
	char		 name[128], last_help[128] = "";
	char		 buf[1024];

	for (; *line != '\0'; line = end + 1) {
		if ((end = strchr(line, '\n')) == NULL ||
		    (size_t)(end - line) >= sizeof(buf))
			return 0;
		memcpy(buf, line, end - line);
		buf[end - line] = '\0';
		if (sscanf(buf, "# HELP %127s ", name) == 1) {
			snprintf(last_help, sizeof(last_help), "%s", name);
			continue;
		}
		if (sscanf(buf, "# TYPE %127s ", name) == 1) {
			if (strcmp(name, last_help) != 0)
				return 0;
			continue;
		}
		if (buf[0] < 'a' || buf[0] > 'z' ||
		    strncmp(buf, last_help, strlen(last_help)) != 0 ||
		    strrchr(buf, ' ') == NULL)
			return 0;
	}
	return 1;
}

static void
test_pages(struct metrics_view *d)
{
	struct metrics_push	 mp;
	char			*s, *v;

	s = page(1, d, NULL);
	ok(prom_is_wellformed(s), "/metrics: every line is well formed");
	ok(strstr(s, "ebpfspy_build_info{version=\"" EBPFSPY_VERSION
	    "\"} 1\n") != NULL, "/metrics: build info");
	is_int(sample(s, "ebpfspy_rounds_total"), 0, "no rounds yet");
	is_int(sample(s, "ebpfspy_http_requests_total"), 7,
	    "the request count given");
	is_int(sample(s, "ebpfspy_reloads_total"), 3, "the daemon's reloads");
	ok(strstr(s, "# TYPE ebpfspy_lost_total counter\n") != NULL &&
	    strstr(s, "ebpfspy_lost_total{cause=\"counts_map_full\"} 0\n") !=
	    NULL, "lost counts by cause");
	ok(strstr(s, "ebpfspy_push") == NULL && strstr(s, "ebpfspy_spool") ==
	    NULL, "no push metrics without a push");
	free(s);
	s = page(1, d, NULL);
	v = strstr(s, "\nprocess_start_time_seconds ");
	ok(v != NULL && llabs((long long)strtod(v + 28, NULL) -
	    (long long)time(NULL)) < 60,
	    "/metrics: started now, in seconds since the epoch");
	free(s);
	s = page(0, d, NULL);
	v = strstr(s, "\"uptime_seconds\":");
	ok(v != NULL && strtod(v + 17, NULL) >= 0 &&
	    strtod(v + 17, NULL) < 60, "/debug/state: the uptime, seconds");
	free(s);

	memset(&mp, 0, sizeof(mp));
	mp.requests[0].outcome = "ok";
	mp.requests[0].n = 12;
	mp.requests[1].outcome = "a\"b\\c\nd\xff";
	mp.requests[1].n = 3;
	mp.nrequests = 2;
	mp.retries = 4;
	mp.spool_bytes = 5;
	mp.spool_dropped = 6;
	mp.expired = 7;
	mp.trimmed = 8;
	mp.trimmed_samples = 9;
	s = page(1, d, &mp);
	ok(prom_is_wellformed(s), "/metrics with push: well formed");
	ok(strstr(s, "ebpfspy_push_requests_total{outcome=\"ok\"} 12\n") !=
	    NULL, "push requests by outcome");
	ok(strstr(s, "ebpfspy_push_requests_total{outcome=\"a\\\"b\\\\c\\nd"
	    "\xef\xbf\xbd\"} 3\n") != NULL,
	    "label values escaped, bad UTF-8 replaced");
	is_int(sample(s, "ebpfspy_push_retries_total"), 4, "push retries");
	is_int(sample(s, "ebpfspy_spool_bytes"), 5, "spool bytes");
	is_int(sample(s, "ebpfspy_spool_dropped_profiles_total"), 6,
	    "spool drops");
	is_int(sample(s, "ebpfspy_push_expired_profiles_total"), 7,
	    "expired profiles");
	is_int(sample(s, "ebpfspy_push_trimmed_profiles_total"), 8,
	    "trimmed profiles");
	is_int(sample(s, "ebpfspy_push_trimmed_samples_total"), 9,
	    "trimmed samples");
	free(s);

	s = page(0, d, NULL);
	ok(s[0] == '{' && strcmp(s + strlen(s) - 2, "}\n") == 0,
	    "/debug/state: one object");
	ok(strstr(s, "\"pids\":null") != NULL && strstr(s, "\"bpf\":null") !=
	    NULL && strstr(s, "\"last_round\":null") != NULL,
	    "/debug/state: what is not there is null");
	ok(strstr(s, "\"path\":\"/etc/\\\"odd\\\"\\n.conf\"") != NULL,
	    "/debug/state: strings escaped");
	ok(strstr(s, "\"metrics_listen\":\"127.0.0.1:1\"") != NULL,
	    "/debug/state: the listen address");
	free(s);
}

static void
test_http(struct metrics_view *d)
{
	static const char big_head[] = "GET /metrics HTTP/1.1\r\n"
	    "Host: localhost\r\nX-Big: ";
	struct metrics	*m;
	char		*r, *req, addr[64];
	size_t		 n;
	int		 port, port2, port3, fd;

	if ((port = free_port(AF_INET)) == -1) {
		ok(0, "no free port");
		return;
	}
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	free(d->conf->metrics_listen);
	d->conf->metrics_listen = strdup(addr);
	m = metrics_create(loop, d->conf, view_cb, d);
	ok(m != NULL, "metrics_create on %s", addr);

	r = get(port, "/metrics");
	is_int(status(r), 200, "GET /metrics: 200");
	ok(strstr(r, "Content-Type: text/plain; version=0.0.4; "
	    "charset=utf-8\r\n") != NULL, "GET /metrics: the text format");
	ok(prom_is_wellformed(body(r)), "GET /metrics: the page");
	is_int(sample(body(r), "ebpfspy_http_requests_total"), 1,
	    "the first request is counted");
	free(r);
	r = get(port, "/metrics?name[]=x");
	is_int(status(r), 200, "a query string is ignored");
	is_int(sample(body(r), "ebpfspy_http_requests_total"), 2,
	    "the second request is counted");
	free(r);

	r = get(port, "/debug/state");
	is_int(status(r), 200, "GET /debug/state: 200");
	ok(strstr(r, "Content-Type: application/json\r\n") != NULL &&
	    body(r)[0] == '{', "GET /debug/state: JSON");
	ok(strstr(body(r), "\"metrics_listen\":\"127.0.0.1:") != NULL,
	    "GET /debug/state: says where it listens");
	free(r);

	r = get(port, "/");
	is_int(status(r), 404, "GET /: 404");
	free(r);
	r = get(port, "/metrics/");
	is_int(status(r), 404, "GET /metrics/: 404");
	free(r);
	r = get(port, "/debug/state/../../metrics");
	is_int(status(r), 404, "no path games");
	free(r);

	req = "POST /metrics HTTP/1.0\r\nContent-Length: 5\r\n\r\nhello";
	r = http(port, 0, req, strlen(req));
	is_int(status(r), 405, "POST: 405");
	ok(strstr(r, "Allow: GET, HEAD\r\n") != NULL, "405 says what is");
	free(r);
	req = "DELETE /debug/state HTTP/1.0\r\n\r\n";
	r = http(port, 0, req, strlen(req));
	is_int(status(r), 405, "DELETE: 405");
	free(r);
	req = "HEAD /metrics HTTP/1.0\r\n\r\n";
	r = http(port, 0, req, strlen(req));
	is_int(status(r), 200, "HEAD: 200");
	is_str(body(r), "", "HEAD: no body");
	free(r);

	/* A request head beyond the connection's memory is refused. */
	n = sizeof(big_head) - 1 + 65536 + 4;
	if ((req = malloc(n + 1)) == NULL)
		abort();
	memcpy(req, big_head, sizeof(big_head) - 1);
	memset(req + sizeof(big_head) - 1, 'x', 65536);
	memcpy(req + n - 4, "\r\n\r\n", 5);
	r = http(port, 0, req, n);
	ok(r != NULL && status(r) != 200, "a 64 KiB header: no page (%d)",
	    status(r));
	free(r);
	free(req);
	r = get(port, "/metrics");
	is_int(status(r), 200, "still serving after it");
	free(r);

	/* Reload: move to another port. */
	port2 = free_port(AF_INET);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port2);
	free(d->conf->metrics_listen);
	d->conf->metrics_listen = strdup(addr);
	is_int(metrics_configure(m, d->conf), 0, "reload to %s", addr);
	r = get(port, "/metrics");
	ok(r == NULL, "the old port is closed");
	free(r);
	r = get(port2, "/metrics");
	is_int(status(r), 200, "the new port serves");
	free(r);
	is_int(metrics_configure(m, d->conf), 0, "reload, same address");
	r = get(port2, "/metrics");
	is_int(status(r), 200, "still serves");
	free(r);

	/* Same port, all addresses: the old socket must go first. */
	snprintf(addr, sizeof(addr), "0.0.0.0:%d", port2);
	free(d->conf->metrics_listen);
	d->conf->metrics_listen = strdup(addr);
	is_int(metrics_configure(m, d->conf), 0, "reload to %s", addr);
	r = get(port2, "/debug/state");
	ok(r != NULL && strstr(r, "\"metrics_listen\":\"0.0.0.0:") != NULL,
	    "served from 0.0.0.0 now");
	free(r);

	/* A port in use: the reload fails, the old listener stays. */
	port3 = free_port(AF_INET);
	if ((fd = occupy(port3)) == -1)
		abort();
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port3);
	free(d->conf->metrics_listen);
	d->conf->metrics_listen = strdup(addr);
	is_int(metrics_configure(m, d->conf), -1, "reload to a busy port "
	    "fails");
	r = get(port2, "/metrics");
	is_int(status(r), 200, "the old listener still serves");
	free(r);
	close(fd);
	is_int(metrics_configure(m, d->conf), 0, "once free, a reload binds");
	r = get(port3, "/metrics");
	is_int(status(r), 200, "and serves");
	free(r);
	r = get(port2, "/metrics");
	ok(r == NULL, "the old one is closed");
	free(r);

	/* Off. */
	free(d->conf->metrics_listen);
	d->conf->metrics_listen = strdup("");
	is_int(metrics_configure(m, d->conf), 0, "reload with listen empty");
	r = get(port3, "/metrics");
	ok(r == NULL, "nothing listens");
	free(r);
	metrics_free(m);

	/* Busy at startup: no listener, a reload tries again. */
	port = free_port(AF_INET);
	if ((fd = occupy(port)) == -1)
		abort();
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	free(d->conf->metrics_listen);
	d->conf->metrics_listen = strdup(addr);
	m = metrics_create(loop, d->conf, view_cb, d);
	ok(m != NULL, "metrics_create on a busy port still returns");
	close(fd);
	r = get(port, "/metrics");
	ok(r == NULL, "it did not listen");
	free(r);
	is_int(metrics_configure(m, d->conf), 0, "a reload binds it");
	r = get(port, "/metrics");
	is_int(status(r), 200, "and serves");
	free(r);
	metrics_free(m);
	metrics_free(NULL);
}

static void
test_ipv6(struct metrics_view *d)
{
	struct metrics	*m;
	char		*r, addr[64];
	int		 port;

	if ((port = free_port(AF_INET6)) == -1) {
		diag("no IPv6 loopback: skipping the IPv6 test");
		return;
	}
	snprintf(addr, sizeof(addr), "[::1]:%d", port);
	free(d->conf->metrics_listen);
	d->conf->metrics_listen = strdup(addr);
	m = metrics_create(loop, d->conf, view_cb, d);
	r = http(port, 1, "GET /metrics HTTP/1.0\r\n\r\n", 25);
	is_int(status(r), 200, "GET /metrics on %s", addr);
	free(r);
	metrics_free(m);
}

int
main(void)
{
	struct metrics_view	 d;

	log_init(1, 0);
	if ((loop = ev_default_loop(EVFLAG_AUTO)) == NULL)
		abort();
	memset(&d, 0, sizeof(d));
	d.conf = config_defaults();
	d.conf_path = "/etc/\"odd\"\n.conf";
	d.reloads = 3;
	d.started = clock_ns(CLOCK_MONOTONIC);

	test_parse();
	test_config();
	test_pages(&d);
	test_http(&d);
	test_ipv6(&d);
	config_free(d.conf);
	return done_testing();
}
