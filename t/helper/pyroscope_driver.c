/*
 * Drives the Pyroscope sink the way the daemon does, without BPF: a
 * libev loop, a round every -i seconds with -n targets of synthetic
 * profiles, SIGHUP reloads the config, SIGTERM (or -r rounds) flushes
 * and exits.  For the t61xx tests and bench/push.sh.
 *
 * usage: pyroscope_driver -c conf [-i seconds] [-n targets] [-r rounds]
 *	      [-s stacks] [-t cpu|offcpu|both] [-p prefix] [-v]
 *
 * stdout: "ready", then per round
 *	"round N start S end E profiles P cpu_us U"
 * (S and E in ns since the epoch; U the CPU time pyroscope_round took),
 * and at exit "stats: ok N retry N failed N retries N bytes N profiles N
 * spool_files N spool_bytes N dropped N expired N trimmed N
 * trimmed_samples N".
 */
#include <sys/resource.h>

#include <ev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "util/log.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "push/pyroscope.h"
#include "util/xmalloc.h"

static struct config	*conf;
static const char	*conf_path;
static struct pyroscope	*py;
static double		 interval = 1;
static int		 ntargets = 3, nrounds, nstacks = 20, round_no;
static int		 types = 1;	/* 1 cpu, 2 offcpu, 3 both */
static const char	*prefix = "svc";
static int64_t		 last_end;

static int64_t
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long
cpu_us(void)
{
	struct rusage	 ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L +
	    ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static struct profile *
make_profile(enum profile_type type, int target, int64_t start, int64_t end)
{
	struct profile	*p;
	const char	*frames[4];
	char		 svc[64], f2[64], f3[64], f4[64], pod[64];
	uint64_t	 period;
	int		 i;

	period = type == PROFILE_TYPE_CPU ? 1000000000 / conf->sample_rate : 1;
	p = profile_create(type, period, start, end - start);
	snprintf(svc, sizeof(svc), "%s%d", prefix, target);
	profile_label_set(p, "service_name", svc);
	snprintf(pod, sizeof(pod), "pod-%d", target);
	profile_label_set(p, "pod", pod);
	profile_label_set(p, "host.name", "box");	/* must be renamed */
	for (i = 0; i < nstacks; i++) {
		snprintf(f2, sizeof(f2), "main");
		snprintf(f3, sizeof(f3), "work_%d", i % 7);
		snprintf(f4, sizeof(f4), "leaf_%d", i);
		frames[0] = svc;
		frames[1] = f2;
		frames[2] = f3;
		frames[3] = f4;
		profile_add(p, frames, 4, (uint64_t)(i + 1));
	}
	return p;
}

static void
round_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct profile	**profs;
	struct pprof_buf *bufs;
	int64_t		 start = last_end, end = now_ns();
	size_t		 n = 0, i;
	long		 c0, c1;
	int		 t;

	profs = xcalloc(2 * ntargets, sizeof(*profs));
	for (t = 0; t < ntargets; t++) {
		if (types & 1)
			profs[n++] = make_profile(PROFILE_TYPE_CPU, t, start,
			    end);
		if (types & 2)
			profs[n++] = make_profile(PROFILE_TYPE_OFFCPU, t,
			    start, end);
	}
	/* The push's cost with the encoding sinks.c makes for it. */
	c0 = cpu_us();
	bufs = pprof_encode_all(profs, n);
	pyroscope_round(py, conf, profs, bufs, n, start, end);
	pprof_bufs_free(bufs, n);
	c1 = cpu_us();
	for (i = 0; i < n; i++)
		profile_free(profs[i]);
	free(profs);
	round_no++;
	printf("round %d start %lld end %lld profiles %zu cpu_us %ld\n",
	    round_no, (long long)start, (long long)end, n, c1 - c0);
	fflush(stdout);
	last_end = end;
	if (nrounds > 0 && round_no >= nrounds)
		ev_break(loop, EVBREAK_ALL);
}

static void
signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*nc;
	size_t			 i;

	if (w->signum != SIGHUP) {
		ev_break(loop, EVBREAK_ALL);
		return;
	}
	if ((nc = config_load(conf_path, 0, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			log_warnx("%s", errs.v[i]);
		config_errors_clear(&errs);
		return;
	}
	config_keep_restart(conf, nc);
	if (pyroscope_configure(py, nc) == -1) {
		log_warnx("reload: [pyroscope] kept");
		config_free(nc);
		return;
	}
	config_free(conf);
	conf = nc;
	printf("reloaded\n");
	fflush(stdout);
}

static void
usage(void)
{
	fprintf(stderr, "usage: pyroscope_driver -c conf [-i seconds] "
	    "[-n targets] [-r rounds] [-s stacks] [-t cpu|offcpu|both] "
	    "[-p prefix] [-v]\n");
	exit(1);
}

int
main(int argc, char *argv[])
{
	struct config_errors	 errs = { NULL, 0 };
	struct pyroscope_stats	 st;
	struct ev_loop		*loop;
	ev_timer		 timer;
	ev_signal		 sigterm, sigint, sighup;
	size_t			 i;
	int			 ch, verbose = 0;

	while ((ch = getopt(argc, argv, "c:i:n:p:r:s:t:v")) != -1) {
		switch (ch) {
		case 'c':
			conf_path = optarg;
			break;
		case 'i':
			interval = atof(optarg);
			break;
		case 'n':
			ntargets = atoi(optarg);
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'r':
			nrounds = atoi(optarg);
			break;
		case 's':
			nstacks = atoi(optarg);
			break;
		case 't':
			types = strcmp(optarg, "offcpu") == 0 ? 2 :
			    strcmp(optarg, "both") == 0 ? 3 : 1;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	if (conf_path == NULL || interval <= 0 || ntargets < 1)
		usage();
	log_init(1, verbose);
	if ((conf = config_load(conf_path, 0, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.v[i]);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	loop = ev_default_loop(0);
	py = pyroscope_create(loop, conf);
	ev_timer_init(&timer, round_cb, interval, interval);
	ev_timer_start(loop, &timer);
	ev_signal_init(&sigterm, signal_cb, SIGTERM);
	ev_signal_start(loop, &sigterm);
	ev_signal_init(&sigint, signal_cb, SIGINT);
	ev_signal_start(loop, &sigint);
	ev_signal_init(&sighup, signal_cb, SIGHUP);
	ev_signal_start(loop, &sighup);
	last_end = now_ns();
	printf("ready\n");
	fflush(stdout);
	ev_run(loop, 0);

	pyroscope_flush(py);
	pyroscope_log_state(py);
	pyroscope_stats(py, &st);
	printf("stats: ok %llu retry %llu failed %llu retries %llu bytes %llu "
	    "profiles %llu spool_files %llu spool_bytes %llu dropped %llu "
	    "expired %llu trimmed %llu trimmed_samples %llu\n",
	    (unsigned long long)st.requests_ok,
	    (unsigned long long)st.requests_retry,
	    (unsigned long long)st.requests_failed,
	    (unsigned long long)st.retries,
	    (unsigned long long)st.bytes_sent,
	    (unsigned long long)st.profiles_sent,
	    (unsigned long long)st.spool_files,
	    (unsigned long long)st.spool_bytes,
	    (unsigned long long)st.dropped_profiles,
	    (unsigned long long)st.expired_profiles,
	    (unsigned long long)st.trimmed_profiles,
	    (unsigned long long)st.trimmed_samples);
	fflush(stdout);
	pyroscope_free(py);
	config_free(conf);
	return 0;
}
