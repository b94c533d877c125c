/*
 * What a Pyroscope server answers: any status line, headers (Location,
 * Retry-After), body, or a broken answer, and what the sink makes of it
 * (delivered, rejected, kept in the spool to retry, redirected).  A
 * thread of the harness plays the server on a loopback port and writes
 * the input as its whole answer to the push of one small profile; the
 * sink drives the request as it does at a stop (pyroscope_flush), then
 * its state is read.  A fresh sink and spool for each input.
 */
#include <sys/socket.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <ev.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "push/pyroscope.h"
#include "config.h"
#include "util/xmalloc.h"

static pthread_mutex_t	 fuzz_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t		*fuzz_answer;
static size_t		 fuzz_answer_len;
static struct ev_loop	*fuzz_loop;
static struct config	*fuzz_conf;
static char		 fuzz_spool[PATH_MAX];

/* The server: each connection gets the current answer, then EOF. */
static void *
fuzz_server(void *arg)
{
	struct timeval	 tv = { 2, 0 };
	char		 buf[4096];
	int		 s = *(int *)arg, c;
	size_t		 off;
	ssize_t		 n;

	for (;;) {
		if ((c = accept(s, NULL, NULL)) == -1)
			continue;
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		pthread_mutex_lock(&fuzz_lock);
		for (off = 0; off < fuzz_answer_len; off += n)
			if ((n = send(c, fuzz_answer + off,
			    fuzz_answer_len - off, MSG_NOSIGNAL)) <= 0)
				break;
		pthread_mutex_unlock(&fuzz_lock);
		shutdown(c, SHUT_WR);
		while (recv(c, buf, sizeof(buf), 0) > 0)
			;
		close(c);
	}
	return NULL;
}

static void
fuzz_set(char **field, const char *v)
{
	free(*field);
	*field = xstrdup(v);
}

void
fuzz_setup(void)
{
	static int		 s;
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	pthread_t		 t;
	char			 url[64];

	signal(SIGPIPE, SIG_IGN);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		abort();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(s, 16) == -1 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) == -1)
		abort();
	if (pthread_create(&t, NULL, fuzz_server, &s) != 0)
		abort();
	fuzz_loop = ev_loop_new(EVFLAG_AUTO);
	fuzz_conf = config_defaults();
	snprintf(url, sizeof(url), "http://127.0.0.1:%d",
	    ntohs(sin.sin_port));
	fuzz_set(&fuzz_conf->pyroscope_url, url);
	snprintf(fuzz_spool, sizeof(fuzz_spool), "%s/spool", fuzz_tmpdir());
	fuzz_set(&fuzz_conf->pyroscope_spool_dir, fuzz_spool);
	fuzz_conf->pyroscope_timeout = 5;
	fuzz_conf->pyroscope_flush_timeout = 5;
	/* The profile's time is fixed, long past: not to be expired. */
	fuzz_conf->pyroscope_max_age = 0;
}

static struct profile *
fuzz_profile(void)
{
	struct profile	*p;
	const char	*frames[] = { "main", "work", "leaf" };

	p = profile_create(PROFILE_TYPE_CPU, 10000000,
	    1700000000123456789LL, 15000000000LL);
	profile_label_set(p, "service_name", "fuzz");
	profile_add(p, frames, 3, 7);
	return p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct pyroscope_stats	 st;
	struct pyroscope	*py;
	struct profile		*p;
	struct pprof_buf	*bufs;
	int			 api;

	pthread_mutex_lock(&fuzz_lock);
	free(fuzz_answer);
	fuzz_answer = xmalloc(len > 0 ? len : 1);
	memcpy(fuzz_answer, data, len);
	fuzz_answer_len = len;
	pthread_mutex_unlock(&fuzz_lock);

	fuzz_empty_dir(fuzz_tmpdir());
	/* Both APIs: the push (protobuf) and the legacy ingest. */
	for (api = 0; api < 2; api++) {
		fuzz_conf->pyroscope_api = api == 0 ? PYROSCOPE_API_PUSH :
		    PYROSCOPE_API_INGEST;
		py = pyroscope_create(fuzz_loop, fuzz_conf);
		p = fuzz_profile();
		bufs = pprof_encode_all(&p, 1);
		pyroscope_round(py, fuzz_conf, &p, bufs, 1,
		    1700000000000000000LL, 1700000015000000000LL);
		profile_free(p);
		pyroscope_flush(py);
		pyroscope_stats(py, &st);
		/* Each profile is sent, rejected, or waits in the spool. */
		if (st.profiles_sent + st.dropped_profiles +
		    st.spool_files == 0)
			abort();
		pyroscope_log_state(py);
		pyroscope_free(py);
		pprof_bufs_free(bufs, 1);
	}
	return 0;
}
