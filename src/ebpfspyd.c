/*
 * ebpfspyd: command line, startup, the event loop and its signals and
 * timers.  Everything runs on one libev loop: signals arrive through a
 * signalfd, collection rounds through a timerfd, configuration changes
 * through inotify (watch.c), so no handler ever runs asynchronously.
 */
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "round/collect.h"
#include "dwarf/srcline.h"
#include "config.h"
#include "ebpfspyd.h"
#include "util/log.h"
#include "metrics/metrics.h"
#include "round/pids.h"
#include "push/debuginfod.h"
#include "push/pyroscope.h"
#include "jvm/jvm.h"
#include "python/python.h"
#include "v8/v8.h"
#include "reload.h"
#include "runtime/runtime.h"
#include "sym/resolve.h"
#include "session/session.h"
#include "sink/sinks.h"
#include "sym/symfile.h"
#include "sym/symstats.h"
#include "unwind/unwind_maps.h"
#include "watch.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#ifndef EBPFSPY_VERSION
#define EBPFSPY_VERSION	"unknown"
#endif

/*
 * The runtime plug-ins each process is looked at for, in this order
 * (runtime/runtime.h): a new runtime is a row here.
 */
static const struct runtime_ops *const ebpfspyd_runtimes[] = {
	&python_runtime,
	&jvm_runtime,
	&v8_runtime,
	&unwind_runtime,
};



static void __attribute__((noreturn))
ebpfspyd_usage(FILE *f, int status)
{
	fprintf(f, "usage: ebpfspyd [-dhnVv] [-c file] [-l file] [-o dir] "
	    "[-p pidfile] [-t seconds]\n");
	exit(status);
}

/* -h: the usage, then each flag as ebpfspyd(8) describes it. */
static void __attribute__((noreturn))
ebpfspyd_help(void)
{
	printf("usage: ebpfspyd [-dhnVv] [-c file] [-l file] [-o dir] "
	    "[-p pidfile] [-t seconds]\n"
	    "  -c file     read the configuration from file (default %s)\n"
	    "  -d          stay in the foreground and log to standard error\n"
	    "  -h          print this help and exit\n"
	    "  -l file     log to file, not [daemon] log_file or syslog\n"
	    "  -n          check the configuration and exit; with -v, "
	    "print it\n"
	    "  -o dir      write profiles under dir, not [output] dir\n"
	    "  -p pidfile  write the process id to pidfile, locked until "
	    "exit\n"
	    "  -t seconds  profile for seconds, do a final round and exit\n"
	    "  -V          print the version and exit\n"
	    "  -v          be more verbose; repeat for more\n",
	    EBPFSPY_CONF);
	exit(0);
}

/* We chdir("/") when daemonized: keep paths valid for reloads and exit. */
static char *
ebpfspyd_abspath(const char *path)
{
	char	*cwd, *abs;

	if (*path == '/')
		return xstrdup(path);
	if ((cwd = getcwd(NULL, 0)) == NULL)
		fatal("getcwd");
	xasprintf(&abs, "%s/%s", cwd, path);
	free(cwd);
	return abs;
}

void
ebpfspyd_conf_override(struct ebpfspyd *d, struct config *conf)
{
	if (d->opt_outdir != NULL) {
		free(conf->output_dir);
		conf->output_dir = xstrdup(d->opt_outdir);
	}
}

/*
 * The log file: -l, else [daemon] log_file, else none.  Opened again
 * at each reload, so that a file moved away by logrotate is left.
 */
const char *
ebpfspyd_log_path(struct ebpfspyd *d, const struct config *conf)
{
	return d->opt_logfile != NULL ? d->opt_logfile : conf->log_file;
}

/* Load the configuration, printing every error; NULL on error. */
static struct config *
ebpfspyd_conf_load(struct ebpfspyd *d, const char *path)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf;
	size_t			 i;

	if ((conf = config_load(path, d->conf_missing_ok, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.v[i]);
		config_errors_clear(&errs);
		return NULL;
	}
	ebpfspyd_conf_override(d, conf);
	return conf;
}

static void
ebpfspyd_event_cb(const struct profile_event *ev, void *arg)
{
	struct ebpfspyd	*d = arg;

	if (d->pids != NULL)
		pids_event(d->pids, ev);
}

/* Stop: a final round, then leave ev_run; main frees everything. */
static void
ebpfspyd_stop(struct ebpfspyd *d, const char *why)
{
	if (d->exiting)
		return;
	d->exiting = 1;
	/*
	 * The final round is the last: a round timer that came due with
	 * the stop would run after it, in the same loop iteration, and
	 * write a stray round of a few ms after the summary, drawn by no
	 * flame graph.
	 */
	ev_io_stop(d->loop, &d->timer_io);
	log_info("%s: stopping after a final round", why);
	if (collect_round(d->collect, d->conf, 1) == -1)
		log_warnx("final round failed");
	/* What a sink could not deliver yet goes to disk, not away. */
	sinks_flush(d->sinks);
	ebpfspyd_round_log(d);
	ebpfspyd_summary(d);
	ev_break(d->loop, EVBREAK_ALL);
}

static void
ebpfspyd_signal_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ebpfspyd			*d = w->data;
	struct signalfd_siginfo		 si;
	ssize_t				 n;

	for (;;) {
		if ((n = read(d->signal_fd, &si, sizeof(si))) == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				log_warn("signalfd read");
			return;
		}
		if (n != sizeof(si)) {
			log_warnx("signalfd: short read (%zd bytes)", n);
			return;
		}
		switch (si.ssi_signo) {
		case SIGHUP:
			log_debug("SIGHUP from pid %u: reload",
			    (unsigned)si.ssi_pid);
			ebpfspyd_reload_ask(d);
			break;
		case SIGTERM:
		case SIGINT:
			ebpfspyd_stop(d, si.ssi_signo == SIGTERM ?
			    "SIGTERM" : "SIGINT");
			return;
		case SIGUSR1:
			ebpfspyd_log_state(d);
			break;
		default:
			log_debug("unexpected signal %u", si.ssi_signo);
			break;
		}
	}
}

static void
ebpfspyd_timer_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ebpfspyd	*d = w->data;
	uint64_t	 expired;
	ssize_t		 n;

	if ((n = read(d->timer_fd, &expired, sizeof(expired))) == -1) {
		if (errno != EAGAIN && errno != EINTR)
			log_warn("timerfd read");
		return;
	}
	if (n != sizeof(expired))
		return;
	/* A late round covers the whole time since the last one. */
	if (expired > 1)
		log_debug("round late: %llu intervals elapsed",
		    (unsigned long long)expired);
	d->rounds++;
	if (collect_round(d->collect, d->conf, 0) == -1)
		d->round_failures++;
	ebpfspyd_round_log(d);
}

int
ebpfspyd_timer_set(struct ebpfspyd *d)
{
	struct itimerspec	 its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = d->conf->collect_interval;
	its.it_interval.tv_sec = d->conf->collect_interval;
	if (timerfd_settime(d->timer_fd, 0, &its, NULL) == -1) {
		log_warn("timerfd_settime");
		return -1;
	}
	log_debug("a round every %lld s", d->conf->collect_interval);
	return 0;
}

static void
ebpfspyd_run_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	ebpfspyd_stop(w->data, "run time over");
}

/*
 * The signals we handle are blocked and read from a signalfd, so that
 * they are ordinary loop events; libev installs no handler for them.
 */
static void
ebpfspyd_signals_open(struct ebpfspyd *d)
{
	static const int	 sigs[] = { SIGHUP, SIGTERM, SIGINT, SIGUSR1 };
	struct sigaction	 sa;
	sigset_t		 mask;
	size_t			 i;

	sigemptyset(&mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&mask, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) == -1)
		fatal("sigprocmask");
	if ((d->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK |
	    SFD_CLOEXEC)) == -1)
		fatal("signalfd");
	ev_io_init(&d->signal_io, ebpfspyd_signal_cb, d->signal_fd, EV_READ);
	d->signal_io.data = d;
	ev_io_start(d->loop, &d->signal_io);

	/* A reader gone away is an error return, not a reason to die. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPIPE, &sa, NULL) == -1)
		fatal("sigaction SIGPIPE");
}

static void
ebpfspyd_timer_open(struct ebpfspyd *d)
{
	if ((d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
	    TFD_CLOEXEC)) == -1)
		fatal("timerfd_create");
	if (ebpfspyd_timer_set(d) == -1)
		fatalx("cannot arm the round timer");
	ev_io_init(&d->timer_io, ebpfspyd_timer_cb, d->timer_fd, EV_READ);
	d->timer_io.data = d;
	ev_io_start(d->loop, &d->timer_io);
}

static void
ebpfspyd_ready(struct ebpfspyd *d)
{
	struct config	*c = d->conf;
	const char	*types;

	if (c->cpu && c->offcpu)
		types = "cpu and offcpu";
	else if (c->cpu)
		types = "cpu";
	else if (c->offcpu)
		types = "offcpu";
	else
		types = "nothing";
	log_info("ready: profiling %s, sample_rate %lld Hz, a round every "
	    "%lld s, output %s, pid %ld", types, c->sample_rate,
	    c->collect_interval, c->output_dir, (long)getpid());
	if (d->pidfile != NULL)
		ebpfspyd_daemon_pidfile_write(d);
	if (d->ready_fd != -1) {
		log_startfd(-1);
		if (write(d->ready_fd, EBPFSPYD_READY "\n", 2) != 2)
			log_warn("cannot tell the parent we are ready");
		close(d->ready_fd);
		d->ready_fd = -1;
	}
}

/* The push counters, for the metrics page. */
static void
ebpfspyd_push_cb(struct metrics_push *mp, void *arg)
{
	struct pyroscope_stats	 st;

	sinks_push_stats(arg, &st);
	mp->requests[0].outcome = "ok";
	mp->requests[0].n = st.requests_ok;
	mp->requests[1].outcome = "retry";
	mp->requests[1].n = st.requests_retry;
	mp->requests[2].outcome = "failed";
	mp->requests[2].n = st.requests_failed;
	mp->nrequests = 3;
	mp->retries = st.retries;
	mp->spool_bytes = st.spool_bytes;
	mp->spool_dropped = st.dropped_profiles;
	mp->expired = st.expired_profiles;
	mp->trimmed = st.trimmed_profiles;
	mp->trimmed_samples = st.trimmed_samples;
}

/* What /metrics and /debug/state show of the daemon, at each request. */
static void
ebpfspyd_view_cb(struct metrics_view *v, void *arg)
{
	struct ebpfspyd	*d = arg;

	v->conf = d->conf;
	v->conf_path = d->conf_path;
	v->started = d->started;
	v->round_failures = d->round_failures;
	v->reloads = d->reloads;
	v->reload_failures = d->reload_failures;
	v->session = d->session;
	v->pids = d->pids;
	v->resolve = d->resolve;
	v->collect = d->collect;
	v->unwind = d->unwind;
	v->v8 = runtimes_find(d->runtimes, &v8_runtime);
	v->jvm = runtimes_find(d->runtimes, &jvm_runtime);
	v->debuginfod = d->debuginfod;
}

/* The runtimes, made as the table says; /metrics reads the unwinder's. */
static void
ebpfspyd_runtimes_open(struct ebpfspyd *d)
{
	struct runtime_env	 env;

	env.loop = d->loop;
	env.session = d->session;
	env.conf = d->conf;
	d->runtimes = runtimes_create(ebpfspyd_runtimes,
	    sizeof(ebpfspyd_runtimes) / sizeof(ebpfspyd_runtimes[0]), &env);
	d->unwind = runtimes_find(d->runtimes, &unwind_runtime);
}

static void
ebpfspyd_free(struct ebpfspyd *d)
{
	ev_io_stop(d->loop, &d->signal_io);
	ev_io_stop(d->loop, &d->timer_io);
	ev_timer_stop(d->loop, &d->run_timer);
	close(d->signal_fd);
	close(d->timer_fd);
	watch_close(d->watch);
	reload_free(d->reload);
	metrics_free(d->metrics);
	collect_free(d->collect);
	sinks_free(d->sinks);
	pids_free(d->pids);
	runtimes_free(d->runtimes);
	session_close(d->session);
	debuginfod_free(d->debuginfod);
	resolve_free(d->resolve);
	config_free(d->conf);
	ebpfspyd_daemon_outdir_hold(d, -1);
	ebpfspyd_daemon_pidfile_remove(d);
	log_info("exiting");
	free(d->pidfile);
	free(d->pidlock);
	free(d->conf_path);
	free(d->opt_outdir);
	free(d->opt_logfile);
	log_file_open(NULL, 0);
	ev_loop_destroy(d->loop);
}

int
ebpfspyd_main(int argc, char **argv)
{
	struct ebpfspyd	 state, *d = &state;
	const char	*path = EBPFSPY_CONF, *errstr = NULL;
	char		*end;
	int		 ch, fd, foreground = 0, check = 0, verbose = 0;

	xmalloc_init();
	memset(d, 0, sizeof(*d));
	d->conf_missing_ok = 1;
	d->ready_fd = d->signal_fd = d->timer_fd = d->pidfile_fd = -1;
	d->pidlock_fd = d->outdir_fd = -1;

	while ((ch = getopt(argc, argv, "c:dhl:no:p:t:Vv")) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			d->conf_missing_ok = 0;
			break;
		case 'd':
			foreground = 1;
			break;
		case 'h':
			ebpfspyd_help();
		case 'l':
			free(d->opt_logfile);
			d->opt_logfile = ebpfspyd_abspath(optarg);
			break;
		case 'n':
			check = 1;
			break;
		case 'o':
			free(d->opt_outdir);
			d->opt_outdir = ebpfspyd_abspath(optarg);
			break;
		case 'p':
			free(d->pidfile);
			d->pidfile = ebpfspyd_abspath(optarg);
			break;
		case 't':
			errno = 0;
			d->run_seconds = strtoll(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || errno != 0 ||
			    d->run_seconds < 1 || d->run_seconds > INT_MAX)
				errstr = optarg;
			break;
		case 'V':
			printf("ebpfspyd %s\n", EBPFSPY_VERSION);
			exit(0);
		case 'v':
			verbose++;
			break;
		default:
			ebpfspyd_usage(stderr, 1);
		}
	}
	if (optind != argc)
		ebpfspyd_usage(stderr, 1);
	if (errstr != NULL) {
		fprintf(stderr, "ebpfspyd: -t %s: expected seconds, 1 to %d\n",
		    errstr, INT_MAX);
		exit(1);
	}

	if ((d->conf = ebpfspyd_conf_load(d, path)) == NULL)
		exit(1);
	if (check) {
		if (verbose)
			config_dump(d->conf, stdout);
		printf("configuration OK\n");
		config_free(d->conf);
		free(d->opt_outdir);
		free(d->opt_logfile);
		free(d->pidfile);
		return 0;
	}
	/*
	 * Profiles, the spool and the log are root's, whatever starts
	 * the daemon: the unit's UMask, here too.
	 */
	umask(027);
	d->conf_path = ebpfspyd_abspath(path);
	if (d->pidfile != NULL)
		ebpfspyd_daemon_pidfile_lock(d);

	log_init(foreground, verbose);
	/* Before the fork: a log that cannot be opened is said here. */
	if (log_file_open(ebpfspyd_log_path(d, d->conf),
	    d->conf->log_file_bytes) == -1) {
		fprintf(stderr, "ebpfspyd: log file %s: %s\n",
		    ebpfspyd_log_path(d, d->conf), strerror(errno));
		exit(1);
	}
	if (!foreground)
		ebpfspyd_daemon_fork(d);
	d->started = clock_ns(CLOCK_MONOTONIC);
	ebpfspyd_check_nofile();
	ebpfspyd_check_caps(d->conf);
	ebpfspyd_check_btf();
	ebpfspyd_check_dirs(d->conf);
	/* It said why: a second daemon of the directory stops here. */
	if (ebpfspyd_daemon_outdir_lock(d, d->conf, &fd) == -1)
		exit(1);
	ebpfspyd_daemon_outdir_hold(d, fd);

	if ((d->loop = ev_default_loop(EVFLAG_AUTO)) == NULL)
		fatalx("cannot initialize the event loop");
	ebpfspyd_signals_open(d);

	if ((d->resolve = resolve_create(d->conf)) == NULL)
		fatalx("cannot start the symbolizer");
	if ((d->session = session_open(d->loop, d->conf, ebpfspyd_event_cb,
	    d)) == NULL)
		fatalx("cannot start the BPF session, not starting");
	/*
	 * Kernel stacks will be named: read kallsyms now, not in the first
	 * round's time -- after our programs loaded, since a stack walked
	 * from a tracepoint starts in them and is known by their names.
	 */
	if (d->conf->collect_kernel)
		resolve_kernel_load(d->resolve);
	d->debuginfod = debuginfod_create(d->loop, d->resolve, d->conf);
	ebpfspyd_runtimes_open(d);
	if ((d->pids = pids_create(d->session, d->resolve, d->runtimes,
	    d->conf)) == NULL)
		fatalx("cannot create the process table");
	if ((d->sinks = sinks_create(d->loop, d->conf)) == NULL)
		fatalx("cannot set up the sinks");
	if ((d->collect = collect_create(d->session, d->pids,
	    d->resolve, d->sinks)) == NULL)
		fatalx("cannot set up collection rounds");
	ebpfspyd_timer_open(d);
	d->metrics = metrics_create(d->loop, d->conf, ebpfspyd_view_cb, d);
	metrics_set_push(d->metrics, ebpfspyd_push_cb, d->sinks);
	d->reload = reload_create(d->loop, ebpfspyd_reload_cb, d);
	d->watch = watch_open(d->loop, d->conf_path, ebpfspyd_reload_ask_cb,
	    d);
	ev_timer_init(&d->run_timer, ebpfspyd_run_cb,
	    (ev_tstamp)d->run_seconds, 0.);
	d->run_timer.data = d;
	if (d->run_seconds > 0) {
		/* Count from now, not from before the BPF programs loaded. */
		ev_now_update(d->loop);
		ev_timer_start(d->loop, &d->run_timer);
	}

	ebpfspyd_ready(d);
	ev_run(d->loop, 0);

	ebpfspyd_free(d);
	return 0;
}
