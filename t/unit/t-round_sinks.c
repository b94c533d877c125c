/*
 * The round over a null session, at its end: the targets in force then
 * take the round's samples, a push that fails costs the files nothing,
 * and a files sink that fails fails the round, not the next one.
 */
#include <sys/socket.h>

#include <netinet/in.h>

#include "tap.h"
#include "roundfix.h"
#include "push/pyroscope.h"

/*
 * A reload between the samples and the round moves the process to
 * another target: the round's samples go to the new one.
 */
static void
test_target_change(void)
{
	struct roundfix		 f;
	struct session_change	*change;
	struct config		*old;
	char			*extra, *folded;
	pid_t			 kid;

	kid = roundfix_start(&f, "before", "");
	roundfix_exec(&f, kid, "kid", 1, 6);
	session_drain_events(f.s);

	/* Reload: what ebpfspyd_reload() does, with the same modules. */
	xasprintf(&extra, "[target \"after\"]\npid = %d\n"
	    "label.service_name = after\n", (int)kid);
	old = f.conf;
	f.conf = roundfix_conf(&f, extra);
	free(extra);
	change = session_prepare(f.s, f.conf);
	ok(change != NULL, "the null session takes the new config");
	session_commit(f.s, change);
	sinks_configure(f.sinks, f.conf);
	pids_configure(f.p, f.conf);
	config_free(old);

	roundfix_count(&f, kid, PROFILE_KIND_CPU, 2, 2);
	is_int(collect_round(f.c, f.conf, 0), 0, "round");
	folded = roundfix_folded(&f, "cpu", "after");
	roundfix_has(folded, "kid;round_caller;round_leaf_a 6\n",
	    "samples before the reload go to the new target");
	roundfix_has(folded, "kid;round_caller;round_leaf_b 2\n",
	    "samples after it too");
	free(folded);
	folded = roundfix_folded(&f, "cpu", "before");
	is_str(folded, "", "the old target has no profile");
	free(folded);
	roundfix_close(&f);
}

/* A port of the loopback nobody listens on. */
static int
closed_port(void)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	int			 fd, port;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd == -1 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		perror("bind");
		exit(1);
	}
	port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

static void
timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	ev_break(loop, EVBREAK_ALL);
}

/*
 * A push to a server that refuses the connection: the round succeeds,
 * its files are written, the push is kept to be tried again.
 */
static void
test_push_fails(void)
{
	struct roundfix		 f;
	struct pyroscope_stats	 ps;
	ev_timer		 t;
	char			*folded, push[128];
	pid_t			 kid;
	int			 i;

	snprintf(push, sizeof(push), "[pyroscope]\nurl = http://127.0.0.1:%d\n",
	    closed_port());
	kid = roundfix_start(&f, "pushed", push);
	roundfix_exec(&f, kid, "kid", 1, 9);
	is_int(collect_round(f.c, f.conf, 0), 0, "the round succeeds");
	/* Run the loop until the push has failed, 10 s at most. */
	ev_timer_init(&t, timeout_cb, 0.1, 0.);
	for (i = 0; i < 100; i++) {
		ev_timer_start(f.loop, &t);
		ev_run(f.loop, 0);
		ev_timer_stop(f.loop, &t);
		sinks_push_stats(f.sinks, &ps);
		if (ps.requests_retry > 0)
			break;
	}
	is_int(ps.requests_ok, 0, "nothing acknowledged");
	ok(ps.requests_retry >= 1, "the push failed, to be retried (%llu)",
	    (unsigned long long)ps.requests_retry);
	ok(ps.queued + ps.spool_files >= 1, "its request is kept "
	    "(%llu queued, %llu spooled)", (unsigned long long)ps.queued,
	    (unsigned long long)ps.spool_files);
	is_int(ps.dropped_profiles, 0, "no profile dropped");
	folded = roundfix_folded(&f, "cpu", "pushed");
	roundfix_has(folded, "kid;round_caller;round_leaf_a 9\n",
	    "the files are written all the same");
	free(folded);
	roundfix_close(&f);
}

/*
 * The output directory cannot be made (a file is in its way): the round
 * fails and says so; once it can, the next round's files are written.
 */
static void
test_sink_fails(void)
{
	struct roundfix		 f;
	struct sinks_info	 si;
	char			*folded, out[128];
	pid_t			 kid;
	FILE			*fp;

	kid = roundfix_start(&f, "stuck", "");
	snprintf(out, sizeof(out), "%s/out", f.dir);
	if ((fp = fopen(out, "w")) == NULL) {
		perror(out);
		exit(1);
	}
	fclose(fp);
	roundfix_exec(&f, kid, "kid", 1, 4);
	is_int(collect_round(f.c, f.conf, 0), -1, "the round fails");
	sinks_info(f.sinks, &si);
	is_int(si.file_errors, 1, "one file error");

	unlink(out);
	roundfix_count(&f, kid, PROFILE_KIND_CPU, 2, 3);
	is_int(collect_round(f.c, f.conf, 0), 0, "the next round succeeds");
	folded = roundfix_folded(&f, "cpu", "stuck");
	is_str(folded, "kid;round_caller;round_leaf_b 3\n",
	    "its files hold its own samples");
	free(folded);
	roundfix_close(&f);
}

int
main(void)
{
	test_target_change();
	test_push_fails();
	test_sink_fails();
	return done_testing();
}
