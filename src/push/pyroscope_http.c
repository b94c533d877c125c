/*
 * libcurl's multi interface on the daemon's libev loop, several POSTs at
 * once (the caller bounds them): curl says which
 * sockets to watch (an ev_io each, CURLMOPT_SOCKETFUNCTION) and when to
 * call it back (one ev_timer, CURLMOPT_TIMERFUNCTION), and we drive it
 * with curl_multi_socket_action().  No thread of ours, no blocking call:
 * a slow or dead server never holds the loop.  (Name resolution is
 * curl's: its threaded resolver, when built with one, which is checked.)
 */
#include <sys/queue.h>

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <ev.h>

#include "util/log.h"
#include "pyroscope_conf.h"
#include "pyroscope_http.h"
#include "pyroscope_req.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define PYROSCOPE_HTTP_RESP_MAX	512	/* bytes kept of an answer */
#define PYROSCOPE_HTTP_MSG_MAX	200	/* of them, told */

struct pyroscope_http_sock {
	TAILQ_ENTRY(pyroscope_http_sock) entry;
	struct pyroscope_http		*h;
	curl_socket_t			 fd;
	int				 what;	/* CURL_POLL_* */
	ev_io				 io;
};

/* One POST in flight. */
struct pyroscope_http_xfer {
	TAILQ_ENTRY(pyroscope_http_xfer)	 entry;
	struct pyroscope_http			*h;
	void					*arg;
	CURL					*easy;
	struct curl_slist			*headers;
	char					 errbuf[CURL_ERROR_SIZE];
	char					 resp[PYROSCOPE_HTTP_RESP_MAX];
	size_t					 resp_len;
	char					 location[256];
};

struct pyroscope_http {
	struct ev_loop				*loop;
	CURLM					*multi;
	ev_timer				 timer;
	double					 due;	/* <0: none */
	TAILQ_HEAD(, pyroscope_http_sock)	 socks;
	pyroscope_http_cb			 cb;
	void					*arg;
	TAILQ_HEAD(, pyroscope_http_xfer)	 xfers;	/* in flight */
	size_t					 nxfers;
};

static void	 pyroscope_http_check(struct pyroscope_http *);

double
pyroscope_http_now(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1e9;
}

static void
pyroscope_http_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct pyroscope_http_sock	*ps = w->data;
	struct pyroscope_http		*h = ps->h;
	curl_socket_t			 fd = ps->fd;
	int				 flags = 0, running;

	if (revents & EV_READ)
		flags |= CURL_CSELECT_IN;
	if (revents & EV_WRITE)
		flags |= CURL_CSELECT_OUT;
	/* ps may be freed by the socket callback from here on. */
	curl_multi_socket_action(h->multi, fd, flags, &running);
	pyroscope_http_check(h);
}

static void
pyroscope_http_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct pyroscope_http	*h = w->data;
	int			 running;

	h->due = -1;
	curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	pyroscope_http_check(h);
}

static int
pyroscope_http_socket_cb(CURL *easy, curl_socket_t fd, int what, void *arg,
    void *sockp)
{
	struct pyroscope_http		*h = arg;
	struct pyroscope_http_sock	*ps = sockp;
	int				 events = 0;

	if (what == CURL_POLL_REMOVE) {
		if (ps != NULL) {
			ev_io_stop(h->loop, &ps->io);
			TAILQ_REMOVE(&h->socks, ps, entry);
			free(ps);
		}
		curl_multi_assign(h->multi, fd, NULL);
		return 0;
	}
	if (ps == NULL) {
		ps = xcalloc(1, sizeof(*ps));
		ps->h = h;
		ps->fd = fd;
		ev_init(&ps->io, pyroscope_http_io_cb);
		ps->io.data = ps;
		TAILQ_INSERT_TAIL(&h->socks, ps, entry);
		curl_multi_assign(h->multi, fd, ps);
	} else
		ev_io_stop(h->loop, &ps->io);
	ps->what = what;
	if (what & CURL_POLL_IN)
		events |= EV_READ;
	if (what & CURL_POLL_OUT)
		events |= EV_WRITE;
	ev_io_set(&ps->io, fd, events);
	ev_io_start(h->loop, &ps->io);
	return 0;
}

/* Called by curl: never call curl_multi_socket_action() from here. */
static int
pyroscope_http_timerfn(CURLM *multi, long ms, void *arg)
{
	struct pyroscope_http	*h = arg;

	ev_timer_stop(h->loop, &h->timer);
	if (ms < 0) {
		h->due = -1;
		return 0;
	}
	h->due = pyroscope_http_now() + ms / 1000.0;
	ev_timer_set(&h->timer, ms / 1000.0, 0.);
	ev_timer_start(h->loop, &h->timer);
	return 0;
}

static size_t
pyroscope_http_write_cb(char *data, size_t size, size_t n, void *arg)
{
	struct pyroscope_http_xfer	*h = arg;
	size_t			 len = size * n, room;

	room = sizeof(h->resp) - 1 - h->resp_len;
	if (len < room)
		room = len;
	memcpy(h->resp + h->resp_len, data, room);
	h->resp_len += room;
	h->resp[h->resp_len] = '\0';
	return len;
}

struct pyroscope_http *
pyroscope_http_create(struct ev_loop *loop, pyroscope_http_cb cb, void *arg)
{
	struct pyroscope_http	*h;

	h = xcalloc(1, sizeof(*h));
	h->loop = loop;
	h->cb = cb;
	h->arg = arg;
	h->due = -1;
	TAILQ_INIT(&h->socks);
	TAILQ_INIT(&h->xfers);
	ev_init(&h->timer, pyroscope_http_timer_cb);
	h->timer.data = h;
	return h;
}

/*
 * libcurl is set up at the first request, not at start: its global
 * init (OpenSSL's) took 2.4 MB of RSS in a daemon that, with the
 * default keys, never pushes.
 */
static void
pyroscope_http_start(struct pyroscope_http *h)
{
	if (h->multi != NULL)
		return;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		fatalx("curl_global_init");
	if (!(curl_version_info(CURLVERSION_NOW)->features &
	    CURL_VERSION_ASYNCHDNS))
		log_warnx("pyroscope: libcurl resolves host names "
		    "synchronously: a slow DNS server delays the daemon");
	if ((h->multi = curl_multi_init()) == NULL)
		fatalx("curl_multi_init");
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION,
	    pyroscope_http_socket_cb);
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION,
	    pyroscope_http_timerfn);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
}

void
pyroscope_http_free(struct pyroscope_http *h)
{
	struct pyroscope_http_sock	*ps;

	if (h == NULL)
		return;
	while (!TAILQ_EMPTY(&h->xfers))
		pyroscope_http_abort(h, TAILQ_FIRST(&h->xfers));
	ev_timer_stop(h->loop, &h->timer);
	if (h->multi != NULL)
		curl_multi_cleanup(h->multi);
	/* curl closes its sockets on cleanup; in case it did not say so. */
	while ((ps = TAILQ_FIRST(&h->socks)) != NULL) {
		ev_io_stop(h->loop, &ps->io);
		TAILQ_REMOVE(&h->socks, ps, entry);
		free(ps);
	}
	if (h->multi != NULL)
		curl_global_cleanup();
	free(h);
}

size_t
pyroscope_http_busy(const struct pyroscope_http *h)
{
	return h->nxfers;
}

static void
pyroscope_http_xfer_free(struct pyroscope_http *h,
    struct pyroscope_http_xfer *x)
{
	TAILQ_REMOVE(&h->xfers, x, entry);
	h->nxfers--;
	curl_multi_remove_handle(h->multi, x->easy);
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->headers);
	free(x);
}

void
pyroscope_http_abort(struct pyroscope_http *h, struct pyroscope_http_xfer *x)
{
	if (x != NULL)
		pyroscope_http_xfer_free(h, x);
}

/* "Name: value"; a NULL value removes a header curl would send. */
static void
pyroscope_http_header(struct pyroscope_http_xfer *h, const char *name,
    const char *v)
{
	struct curl_slist	*l;
	char			*s;

	if (v == NULL)
		xasprintf(&s, "%s:", name);
	else if (*name == '\0')
		s = xstrdup(v);
	else
		xasprintf(&s, "%s: %s", name, v);
	if ((l = curl_slist_append(h->headers, s)) == NULL)
		fatalx("curl_slist_append");
	h->headers = l;
	explicit_bzero(s, strlen(s));
	free(s);
}

static void
pyroscope_http_setopt_fail(const char *what)
{
	fatalx("pyroscope: curl_easy_setopt %s", what);
}

#define PYROSCOPE_SETOPT(e, o, v) do {					\
	if (curl_easy_setopt((e), (o), (v)) != CURLE_OK)		\
		pyroscope_http_setopt_fail(#o);				\
} while (0)

struct pyroscope_http_xfer *
pyroscope_http_post(struct pyroscope_http *hh,
    const struct pyroscope_conf *pc, const char *target, const void *body,
    size_t len, void *arg)
{
	struct pyroscope_http_xfer	*h;
	CURL				*e;
	char				*s;
	size_t				 i;

	pyroscope_http_start(hh);
	if ((e = curl_easy_init()) == NULL) {
		log_warnx("pyroscope: cannot start a request");
		return NULL;
	}
	h = xcalloc(1, sizeof(*h));
	h->h = hh;
	h->arg = arg;
	h->easy = e;
	xasprintf(&s, "%s%s", pc->url, target);
	PYROSCOPE_SETOPT(e, CURLOPT_URL, s);
	free(s);
#if LIBCURL_VERSION_NUM >= 0x075500
	PYROSCOPE_SETOPT(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	PYROSCOPE_SETOPT(e, CURLOPT_PROTOCOLS,
	    (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	PYROSCOPE_SETOPT(e, CURLOPT_NOSIGNAL, 1L);
	PYROSCOPE_SETOPT(e, CURLOPT_POST, 1L);
	PYROSCOPE_SETOPT(e, CURLOPT_POSTFIELDS, body);
	PYROSCOPE_SETOPT(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	PYROSCOPE_SETOPT(e, CURLOPT_TIMEOUT, pc->timeout);
	PYROSCOPE_SETOPT(e, CURLOPT_USERAGENT, "ebpfspy/" EBPFSPY_VERSION);
	PYROSCOPE_SETOPT(e, CURLOPT_ERRORBUFFER, h->errbuf);
	PYROSCOPE_SETOPT(e, CURLOPT_WRITEFUNCTION, pyroscope_http_write_cb);
	PYROSCOPE_SETOPT(e, CURLOPT_WRITEDATA, h);
	PYROSCOPE_SETOPT(e, CURLOPT_PRIVATE, h);
	if (pc->user != NULL) {
		PYROSCOPE_SETOPT(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		PYROSCOPE_SETOPT(e, CURLOPT_USERNAME, pc->user);
		PYROSCOPE_SETOPT(e, CURLOPT_PASSWORD,
		    pc->password != NULL ? pc->password : "");
	}
	if (pc->tls_ca != NULL)
		PYROSCOPE_SETOPT(e, CURLOPT_CAINFO, pc->tls_ca);
	if (pc->tls_cert != NULL)
		PYROSCOPE_SETOPT(e, CURLOPT_SSLCERT, pc->tls_cert);
	if (pc->tls_key != NULL)
		PYROSCOPE_SETOPT(e, CURLOPT_SSLKEY, pc->tls_key);
	if (pc->tls_insecure) {
		PYROSCOPE_SETOPT(e, CURLOPT_SSL_VERIFYPEER, 0L);
		PYROSCOPE_SETOPT(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}

	h->headers = NULL;
	if (pyroscope_req_is_push(target)) {
		pyroscope_http_header(h, "Content-Type", "application/proto");
		pyroscope_http_header(h, "Connect-Protocol-Version", "1");
	} else
		pyroscope_http_header(h, "Content-Type",
		    "application/octet-stream");
	/* curl would wait for a "100 Continue" before a large body. */
	pyroscope_http_header(h, "Expect", NULL);
	if (pc->tenant != NULL)
		pyroscope_http_header(h, "X-Scope-OrgID", pc->tenant);
	if (pc->bearer != NULL) {
		xasprintf(&s, "Bearer %s", pc->bearer);
		pyroscope_http_header(h, "Authorization", s);
		explicit_bzero(s, strlen(s));
		free(s);
	}
	for (i = 0; i < pc->nheaders; i++)
		pyroscope_http_header(h, "", pc->headers[i]);
	for (i = 0; i < pc->nhfiles; i++)
		if (pc->hfile_lines[i] != NULL)
			pyroscope_http_header(h, "", pc->hfile_lines[i]);
	PYROSCOPE_SETOPT(e, CURLOPT_HTTPHEADER, h->headers);

	h->errbuf[0] = '\0';
	h->resp_len = 0;
	h->resp[0] = '\0';
	if (curl_multi_add_handle(hh->multi, e) != CURLM_OK) {
		log_warnx("pyroscope: curl_multi_add_handle failed");
		curl_easy_cleanup(e);
		curl_slist_free_all(h->headers);
		free(h);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&hh->xfers, h, entry);
	hh->nxfers++;
	return h;
}

/* The first bytes of the answer, printable. */
static const char *
pyroscope_http_message(struct pyroscope_http_xfer *h)
{
	size_t	 i;

	if (h->resp_len > PYROSCOPE_HTTP_MSG_MAX)
		h->resp[PYROSCOPE_HTTP_MSG_MAX] = '\0';
	for (i = 0; h->resp[i] != '\0'; i++)
		if ((unsigned char)h->resp[i] < 0x20 ||
		    (unsigned char)h->resp[i] >= 0x7f)
			h->resp[i] = ' ';
	return h->resp;
}

/*
 * Where a 3xx points, for the log: redirects are not followed (the
 * credentials would go along), so the user must be told the URL to set.
 * Bounded and printable: it is the server's text.
 */
static const char *
pyroscope_http_location(struct pyroscope_http_xfer *h, long status)
{
	char	*url = NULL;
	size_t	 i;

	if (status < 300 || status > 399 ||
	    curl_easy_getinfo(h->easy, CURLINFO_REDIRECT_URL, &url) !=
	    CURLE_OK || url == NULL)
		return NULL;
	for (i = 0; url[i] != '\0' && i < sizeof(h->location) - 1; i++)
		h->location[i] = (unsigned char)url[i] < 0x21 ||
		    (unsigned char)url[i] >= 0x7f ? '?' : url[i];
	h->location[i] = '\0';
	return h->location;
}

static void
pyroscope_http_check(struct pyroscope_http *h)
{
	struct pyroscope_http_result	 res;
	struct pyroscope_http_xfer	*x;
	CURLMsg				*m;
	curl_off_t			 ra = 0;
	CURLcode			 rc;
	char				*priv;
	void				*arg;
	int				 left;

	while ((m = curl_multi_info_read(h->multi, &left)) != NULL) {
		if (m->msg != CURLMSG_DONE || curl_easy_getinfo(m->easy_handle,
		    CURLINFO_PRIVATE, &priv) != CURLE_OK || priv == NULL)
			continue;
		x = (struct pyroscope_http_xfer *)priv;
		rc = m->data.result;
		memset(&res, 0, sizeof(res));
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE,
		    &res.status);
		curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &ra);
		res.retry_after = ra > 0 && ra < 86400 ? (long)ra : 0;
		if (rc != CURLE_OK) {
			res.error = 1;
			res.status = 0;
			res.message = x->errbuf[0] != '\0' ? x->errbuf :
			    curl_easy_strerror(rc);
		} else {
			res.message = pyroscope_http_message(x);
			res.location = pyroscope_http_location(x, res.status);
		}
		/*
		 * Done with the handle before the callback, which may start
		 * other POSTs; the result's strings live in x until then.
		 */
		TAILQ_REMOVE(&h->xfers, x, entry);
		h->nxfers--;
		curl_multi_remove_handle(h->multi, x->easy);
		arg = x->arg;
		h->cb(h->arg, arg, &res);
		curl_easy_cleanup(x->easy);
		curl_slist_free_all(x->headers);
		free(x);
	}
}

void
pyroscope_http_run(struct pyroscope_http *h, double deadline)
{
	struct pyroscope_http_sock	*ps;
	struct pollfd			*pfd = NULL;
	double				 now, wait;
	size_t				 n, i;
	int				 running, ready, flags;

	while (h->nxfers > 0 && (now = pyroscope_http_now()) < deadline) {
		n = 0;
		TAILQ_FOREACH(ps, &h->socks, entry)
			n++;
		pfd = xreallocarray(pfd, n + 1, sizeof(*pfd));
		i = 0;
		TAILQ_FOREACH(ps, &h->socks, entry) {
			pfd[i].fd = ps->fd;
			pfd[i].events = 0;
			if (ps->what & CURL_POLL_IN)
				pfd[i].events |= POLLIN;
			if (ps->what & CURL_POLL_OUT)
				pfd[i].events |= POLLOUT;
			pfd[i++].revents = 0;
		}
		wait = deadline - now;
		if (h->due >= 0 && h->due - now < wait)
			wait = h->due - now;
		if (wait < 0)
			wait = 0;
		ready = poll(pfd, n, (int)(wait * 1000) + 1);
		/* Sockets may come and go in socket_action: use the copy. */
		for (i = 0; ready > 0 && i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			flags = 0;
			if (pfd[i].revents & POLLIN)
				flags |= CURL_CSELECT_IN;
			if (pfd[i].revents & POLLOUT)
				flags |= CURL_CSELECT_OUT;
			if (pfd[i].revents & (POLLERR | POLLHUP))
				flags |= CURL_CSELECT_ERR;
			curl_multi_socket_action(h->multi, pfd[i].fd, flags,
			    &running);
		}
		if (h->due >= 0 && pyroscope_http_now() >= h->due) {
			h->due = -1;
			curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT,
			    0, &running);
		}
		pyroscope_http_check(h);
	}
	free(pfd);
}
