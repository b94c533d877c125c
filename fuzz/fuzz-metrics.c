/*
 * The metrics listener: any bytes a local client sends as its request
 * (method, URL, version, headers, a body, or garbage), served by the
 * daemon's handler on its libev loop, with the pages written from a
 * view of a daemon that has only its configuration.  The client is
 * this harness, on the loop too: it writes the input, half-closes, and
 * reads until the server closes.  The input's first line is also parsed
 * as a listen address.
 */
#include <sys/param.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "metrics/metrics.h"
#include "config.h"
#include "util/xmalloc.h"

/*
 * Seconds for the whole exchange.  Client and server share one loop, so
 * an answer takes no time; but libmicrohttpd keeps a connection whose
 * client half-closed in the middle of a request until its idle timeout:
 * then the listener is started again, so that such connections do not
 * fill its slots.
 */
#define FUZZ_METRICS_WAIT	0.1

static struct ev_loop	*fuzz_loop;
static struct config	*fuzz_conf;
static struct metrics	*fuzz_metrics;
static struct sockaddr_in fuzz_addr;

struct fuzz_client {
	int		 fd;
	const uint8_t	*out;
	size_t		 left;
	size_t		 got;
	int		 eof;		/* the server closed */
	char		 head[16];	/* the answer's first bytes */
	ev_io		 io;
	ev_timer	 timer;
};

static void
fuzz_view_cb(struct metrics_view *v, void *arg)
{
	v->conf = fuzz_conf;
	v->conf_path = "/etc/ebpfspy.conf";
	v->reloads = 2;
}

static void
fuzz_push_cb(struct metrics_push *mp, void *arg)
{
	mp->requests[0].outcome = "ok";
	mp->requests[0].n = 3;
	mp->nrequests = 1;
	mp->retries = 1;
}

static int
fuzz_connect(void)
{
	int	 fd;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&fuzz_addr,
	    sizeof(fuzz_addr)) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static void	fuzz_exchange(struct fuzz_client *, const uint8_t *, size_t);

void
fuzz_setup(void)
{
	static const char	*scrape = "GET /metrics HTTP/1.0\r\n\r\n";
	struct fuzz_client	 c;
	socklen_t		 len;
	char			 listen[64];
	int			 s, fd, tries;

	signal(SIGPIPE, SIG_IGN);
	fuzz_loop = ev_loop_new(EVFLAG_AUTO);
	fuzz_conf = config_defaults();
	/* A free port: the kernel picks one, then the listener takes it. */
	for (tries = 0; tries < 20; tries++) {
		if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			abort();
		memset(&fuzz_addr, 0, sizeof(fuzz_addr));
		fuzz_addr.sin_family = AF_INET;
		fuzz_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(fuzz_addr);
		if (bind(s, (struct sockaddr *)&fuzz_addr,
		    sizeof(fuzz_addr)) == -1 ||
		    getsockname(s, (struct sockaddr *)&fuzz_addr, &len) == -1)
			abort();
		close(s);
		snprintf(listen, sizeof(listen), "127.0.0.1:%d",
		    ntohs(fuzz_addr.sin_port));
		free(fuzz_conf->metrics_listen);
		fuzz_conf->metrics_listen = xstrdup(listen);
		fuzz_metrics = metrics_create(fuzz_loop, fuzz_conf,
		    fuzz_view_cb, NULL);
		if ((fd = fuzz_connect()) != -1) {
			close(fd);
			break;
		}
		metrics_free(fuzz_metrics);
		fuzz_metrics = NULL;
	}
	if (fuzz_metrics == NULL)
		abort();
	metrics_set_push(fuzz_metrics, fuzz_push_cb, NULL);
	/* The harness works: a scrape gets its page. */
	fuzz_exchange(&c, (const uint8_t *)scrape, strlen(scrape));
	if (strncmp(c.head, "HTTP/1.0 200", 12) != 0 &&
	    strncmp(c.head, "HTTP/1.1 200", 12) != 0) {
		fprintf(stdout, "fuzz-metrics: no page: \"%s\"\n", c.head);
		abort();
	}
}
static void
fuzz_client_done(struct fuzz_client *c)
{
	ev_io_stop(fuzz_loop, &c->io);
	ev_timer_stop(fuzz_loop, &c->timer);
	ev_break(fuzz_loop, EVBREAK_ONE);
}

static void
fuzz_client_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct fuzz_client	*c = w->data;
	char			 buf[16384];
	ssize_t			 n;

	if ((revents & EV_WRITE) && c->left > 0) {
		n = send(c->fd, c->out, c->left, MSG_NOSIGNAL);
		if (n > 0) {
			c->out += n;
			c->left -= n;
		} else if (n == -1 && errno != EAGAIN && errno != EINTR)
			c->left = 0;	/* the server hung up early */
		if (c->left == 0) {
			shutdown(c->fd, SHUT_WR);
			ev_io_stop(loop, &c->io);
			ev_io_set(&c->io, c->fd, EV_READ);
			ev_io_start(loop, &c->io);
		}
	}
	if (revents & EV_READ) {
		while ((n = recv(c->fd, buf, sizeof(buf), 0)) > 0) {
			if (c->got < sizeof(c->head) - 1)
				memcpy(c->head + c->got, buf,
				    MIN((size_t)n, sizeof(c->head) - 1 -
				    c->got));
			c->got += n;
		}
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
			c->eof = 1;
			fuzz_client_done(c);
		}
	}
}

static void
fuzz_client_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	fuzz_client_done(w->data);
}

/* Send data as a request, read the answer into c. */
static void
fuzz_exchange(struct fuzz_client *cp, const uint8_t *data, size_t len)
{
	struct fuzz_client	 c;

	memset(&c, 0, sizeof(c));
	if ((c.fd = fuzz_connect()) == -1)
		abort();
	fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK);
	c.out = data;
	c.left = len;
	if (len == 0)
		shutdown(c.fd, SHUT_WR);
	ev_io_init(&c.io, fuzz_client_io_cb, c.fd,
	    len > 0 ? EV_READ | EV_WRITE : EV_READ);
	c.io.data = &c;
	ev_io_start(fuzz_loop, &c.io);
	ev_timer_init(&c.timer, fuzz_client_timer_cb, FUZZ_METRICS_WAIT, 0.);
	c.timer.data = &c;
	ev_timer_start(fuzz_loop, &c.timer);
	ev_run(fuzz_loop, 0);
	close(c.fd);
	*cp = c;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzz_client	 c;
	struct sockaddr_storage	 ss;
	socklen_t		 sslen;
	const char		*errstr;
	char			 line[128];
	size_t			 n;

	/* The first line, as [metrics] listen. */
	for (n = 0; n < len && n < sizeof(line) - 1 && data[n] != '\n'; n++)
		line[n] = data[n];
	line[n] = '\0';
	metrics_listen_parse(line, &ss, &sslen, &errstr);
	metrics_listen_check(line);

	fuzz_exchange(&c, data, len);
	if (!c.eof) {
		metrics_free(fuzz_metrics);
		fuzz_metrics = metrics_create(fuzz_loop, fuzz_conf,
		    fuzz_view_cb, NULL);
		metrics_set_push(fuzz_metrics, fuzz_push_cb, NULL);
	}
	return 0;
}
