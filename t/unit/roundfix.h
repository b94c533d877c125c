/*
 * The round over a null session (src/session/session_null.c), for the
 * t-round_*.c tests: the real process table, symbolizer, profiles and
 * sinks, fed by the test with the events, counts and stacks BPF would
 * have written.  Processes are this test's children, forks of it, so
 * their stacks are addresses of this binary's functions, named from its
 * symbol table.  Each process the test uses is a target of its own
 * (pid = N), so that its service is known whatever its cgroup.
 */
#ifndef EBPFSPY_ROUNDFIX_H
#define EBPFSPY_ROUNDFIX_H

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "bpf/profile.h"
#include "config.h"
#include "round/collect.h"
#include "round/pids.h"
#include "runtime/runtime.h"
#include "session/session.h"
#include "session/session_null.h"
#include "sink/sinks.h"
#include "sym/resolve.h"
#include "util/xmalloc.h"

struct roundfix {
	char		 dir[64];
	char		 path[128];	/* the config file */
	struct config	*conf;
	struct ev_loop	*loop;
	struct session	*s;
	struct resolve	*r;
	struct pids	*p;
	struct runtimes	*rts;		/* none: native stacks only */
	struct sinks	*sinks;
	struct collect	*c;
	pid_t		 kids[4];
	int		 nkids;
	int		 rate;		/* sample_rate; 0: 100 */
};

/* Frames of the stacks fed: functions of this binary, a few bytes in. */
static volatile int roundfix_sink;

void	round_leaf_a(void);
void	round_leaf_b(void);
void	round_caller(void);

__attribute__((noinline)) void
round_leaf_a(void)
{
	roundfix_sink++;
	roundfix_sink++;
}

__attribute__((noinline)) void
round_leaf_b(void)
{
	roundfix_sink--;
	roundfix_sink--;
}

__attribute__((noinline)) void
round_caller(void)
{
	round_leaf_a();
	round_leaf_b();
}

#define ROUNDFIX_IP(f)	((uint64_t)(uintptr_t)(f) + 4)

static void
roundfix_event_cb(const struct profile_event *ev, void *arg)
{
	struct roundfix	*f = arg;

	if (f->p != NULL)
		pids_event(f->p, ev);
}

/* A child that waits to be killed: a live process for /proc. */
static pid_t
roundfix_kid(struct roundfix *f)
{
	pid_t	 pid;

	if ((pid = fork()) == -1) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		for (;;)
			pause();
	}
	f->kids[f->nkids++] = pid;
	return pid;
}

/*
 * Write the config: the output under the test's directory, folded files
 * only, no metrics listener, and the lines given (targets, push).
 */
static struct config *
roundfix_conf(struct roundfix *f, const char *extra)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf;
	FILE			*fp;
	size_t			 i;

	if ((fp = fopen(f->path, "w")) == NULL) {
		perror(f->path);
		exit(1);
	}
	fprintf(fp, "[daemon]\ncollect_interval = 3600\n"
	    "[profile]\nsample_rate = %d\n[metrics]\nlisten =\n"
	    "[output]\ndir = %s/out\npprof = no\nfolded = yes\nsvg = no\n"
	    "[targets]\nshort_lived_ms = 0\n%s", f->rate > 0 ? f->rate : 100,
	    f->dir, extra);
	fclose(fp);
	if ((conf = config_load(f->path, 0, &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			fprintf(stderr, "%s\n", errs.v[i]);
		exit(1);
	}
	return conf;
}

/* f zeroed, its kids forked already: they are in the config. */
static void
roundfix_open(struct roundfix *f, const char *extra)
{
	snprintf(f->dir, sizeof(f->dir), "/tmp/t-round.XXXXXX");
	if (mkdtemp(f->dir) == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(f->path, sizeof(f->path), "%s/ebpfspy.conf", f->dir);
	f->conf = roundfix_conf(f, extra);
	f->loop = ev_loop_new(EVFLAG_AUTO);
	f->s = session_null_create(f->conf, roundfix_event_cb, f);
	f->r = resolve_create(f->conf);
	f->rts = runtimes_create(NULL, 0, NULL);
	f->p = pids_create(f->s, f->r, f->rts, f->conf);
	f->sinks = sinks_create(f->loop, f->conf);
	f->c = collect_create(f->s, f->p, f->r, f->sinks);
}

static void
roundfix_close(struct roundfix *f)
{
	char	 cmd[128];
	int	 i;

	sinks_settle(f->sinks);
	collect_free(f->c);
	sinks_free(f->sinks);
	pids_free(f->p);
	runtimes_free(f->rts);
	resolve_free(f->r);
	session_close(f->s);
	ev_loop_destroy(f->loop);
	config_free(f->conf);
	for (i = 0; i < f->nkids; i++) {
		kill(f->kids[i], SIGKILL);
		waitpid(f->kids[i], NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "%s: not removed\n", f->dir);
}

static void
roundfix_event(struct roundfix *f, uint32_t type, pid_t pid,
    const char *comm, uint64_t arg, uint64_t arg2)
{
	struct profile_event	 ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.pid = pid;
	snprintf(ev.comm, sizeof(ev.comm), "%s", comm);
	ev.arg = arg;
	ev.arg2 = arg2;
	session_null_event(f->s, &ev);
}

/* n samples of pid, kind, on stack id (its frames fed once). */
static void
roundfix_count(struct roundfix *f, pid_t pid, uint32_t kind, uint64_t id,
    uint64_t n)
{
	struct profile_key	 key;
	uint64_t		 ip[2];

	ip[0] = id == 1 ? ROUNDFIX_IP(round_leaf_a) : ROUNDFIX_IP(round_leaf_b);
	ip[1] = ROUNDFIX_IP(round_caller);
	session_null_stack(f->s, id, ip, 2);
	memset(&key, 0, sizeof(key));
	key.pid = pid;
	key.tid = pid;
	key.kind = kind;
	key.ustack = id;
	session_null_count(f->s, &key, n);
}

/*
 * The folded lines of a type and service, every file of its directory
 * (one a round), in one allocated string.
 */
static char *
roundfix_folded(struct roundfix *f, const char *type, const char *service)
{
	char		 dir[256], path[512], *all, buf[4096];
	struct dirent	*de;
	DIR		*d;
	FILE		*fp;
	size_t		 len = 0, n;

	all = xstrdup("");
	sinks_settle(f->sinks);
	snprintf(dir, sizeof(dir), "%s/out/%s/%s", f->dir, type, service);
	if ((d = opendir(dir)) == NULL)
		return all;
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n < 7 || strcmp(de->d_name + n - 7, ".folded") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
			all = xreallocarray(all, len + n + 1, 1);
			memcpy(all + len, buf, n);
			len += n;
			all[len] = '\0';
		}
		fclose(fp);
	}
	closedir(d);
	return all;
}

/*
 * A test's start: a child forked, the target service takes it (and the
 * config lines more), the round opened.  The child's pid.
 */
static pid_t
roundfix_start(struct roundfix *f, const char *service, const char *more)
{
	char	*extra;
	pid_t	 kid;

	memset(f, 0, sizeof(*f));
	kid = roundfix_kid(f);
	xasprintf(&extra, "[target \"%s\"]\npid = %d\n"
	    "label.service_name = %s\n%s", service, (int)kid, service, more);
	roundfix_open(f, extra);
	free(extra);
	return kid;
}

/* An exec of pid as comm, n samples on stack id, its first sample. */
static void
roundfix_exec(struct roundfix *f, pid_t pid, const char *comm, uint64_t id,
    uint64_t n)
{
	roundfix_event(f, PROFILE_EVENT_EXEC, pid, comm, 1, getpid());
	roundfix_count(f, pid, PROFILE_KIND_CPU, id, n);
	roundfix_event(f, PROFILE_EVENT_SAMPLED, pid, comm, id, 0);
}

/* The folded text holds that line; if not, show it. */
static int
roundfix_has(const char *folded, const char *line, const char *what)
{
	const char	*p, *nl;

	if (ok(strstr(folded, line) != NULL, "%s", what))
		return 1;
	printf("#   wanted: %s", line);
	for (p = folded; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		printf("#   folded: %.*s\n", (int)(nl - p), p);
	}
	return 0;
}

#endif
