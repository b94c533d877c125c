/*
 * The null session (OpenSMTPD's queue_null is the model): the session's
 * table of operations over memory, no BPF, so that a test runs the
 * round -- the process table, naming, profiles, sinks -- without root.
 * The test feeds it what BPF would have written: events, counts and
 * native stacks, and reads the pid config map the round wrote.  Stacks
 * are kept by the stack store the libbpf session uses (stacks.c).
 */
#include <sys/types.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/profile.h"
#include "config/config.h"
#include "session.h"
#include "session_null.h"
#include "session_ops.h"
#include "stacks.h"
#include "util/xmalloc.h"

struct session_null_pid {
	pid_t				 pid;
	struct profile_pid_config	 cfg;
};

struct session_null {
	const struct session_ops *ops;		/* first: session_ops.h */
	session_event_cb	 cb;
	void			*cb_arg;
	struct profile_event	*events;
	size_t			 nevents;
	/* Counts fed, then drained: valid until the next drain. */
	struct profile_key	*keys, *dkeys;
	uint64_t		*vals, *dvals;
	size_t			 ncounts, ndrained;
	struct session_null_pid	*pids;
	size_t			 npids;
	struct stacks		*stacks;
	struct stacks_map	 pymap;
	int			 fail_prepare;
	int			 cpu, offcpu;
	long long		 rate;
};

/* The change a prepare made: only what the commit puts in force. */
struct session_change {
	int			 cpu, offcpu;
	long long		 rate;
};

static const struct session_ops session_null_ops;

static struct session_null *
session_null(struct session *s)
{
	return (struct session_null *)(void *)s;
}

static int
session_null_py_lookup(void *arg, uint64_t id, uint64_t *buf)
{
	return -1;
}

static size_t
session_null_py_delete(void *arg, const uint64_t *ids, size_t n)
{
	return 0;
}

static int
session_null_py_next_key(void *arg, const uint64_t *prev, uint64_t *next)
{
	return -1;
}

struct session *
session_null_create(const struct config *conf, session_event_cb cb,
    void *arg)
{
	struct session_null	*n;
	struct session_change	*c;

	n = xcalloc(1, sizeof(*n));
	n->ops = &session_null_ops;
	n->cb = cb;
	n->cb_arg = arg;
	n->stacks = stacks_create();
	n->pymap.lookup = session_null_py_lookup;
	n->pymap.delete = session_null_py_delete;
	n->pymap.next_key = session_null_py_next_key;
	n->pymap.arg = n;
	c = session_prepare((struct session *)n, conf);
	session_commit((struct session *)n, c);
	return (struct session *)n;
}

static void
session_null_close(struct session *s)
{
	struct session_null	*n = session_null(s);

	stacks_free(n->stacks);
	free(n->events);
	free(n->keys);
	free(n->vals);
	free(n->dkeys);
	free(n->dvals);
	free(n->pids);
	free(n);
}

void
session_null_fail_prepare(struct session *s, int fail)
{
	session_null(s)->fail_prepare = fail;
}

long long
session_null_rate(struct session *s)
{
	return session_null(s)->rate;
}

static struct session_change *
session_null_prepare(struct session *s, const struct config *conf)
{
	struct session_change	*c;

	if (session_null(s)->fail_prepare) {
		errno = EPERM;
		return NULL;
	}
	c = xcalloc(1, sizeof(*c));
	c->cpu = conf->cpu;
	c->offcpu = conf->offcpu;
	c->rate = conf->sample_rate;
	return c;
}

static void
session_null_commit(struct session *s, struct session_change *c)
{
	struct session_null	*n = session_null(s);

	n->cpu = c->cpu;
	n->offcpu = c->offcpu;
	n->rate = c->rate;
	free(c);
}

static void
session_null_abort(struct session *s, struct session_change *c)
{
	free(c);
}

static struct session_null_pid *
session_null_pid_find(struct session_null *n, pid_t pid)
{
	size_t	 i;

	for (i = 0; i < n->npids; i++) {
		if (n->pids[i].pid == pid)
			return &n->pids[i];
	}
	return NULL;
}

void
session_null_event(struct session *s, const struct profile_event *ev)
{
	struct session_null	*n = session_null(s);
	struct session_null_pid	*np;

	n->events = xreallocarray(n->events, n->nevents + 1,
	    sizeof(*n->events));
	n->events[n->nevents++] = *ev;
	/* What BPF does to the map as it sends the event. */
	np = session_null_pid_find(n, ev->pid);
	if (ev->type == PROFILE_EVENT_EXIT && np != NULL)
		*np = n->pids[--n->npids];
	else if ((ev->type == PROFILE_EVENT_UNKNOWN_PID ||
	    ev->type == PROFILE_EVENT_EXEC) && np == NULL) {
		n->pids = xreallocarray(n->pids, n->npids + 1,
		    sizeof(*n->pids));
		np = &n->pids[n->npids++];
		memset(np, 0, sizeof(*np));
		np->pid = ev->pid;
		np->cfg.type = PROFILE_PID_UNKNOWN;
		np->cfg.flags = PROFILE_PID_F_PENDING;
	}
}

static void
session_null_drain_events(struct session *s)
{
	struct session_null	*n = session_null(s);
	struct profile_event	*ev;
	size_t			 i, nev;

	/* Taken first: the callback may feed more, for the next drain. */
	ev = n->events;
	nev = n->nevents;
	n->events = NULL;
	n->nevents = 0;
	for (i = 0; i < nev; i++)
		n->cb(&ev[i], n->cb_arg);
	free(ev);
}

void
session_null_count(struct session *s, const struct profile_key *key,
    uint64_t val)
{
	struct session_null	*n = session_null(s);
	size_t			 i;

	/* One entry a key, as in BPF's hash map. */
	for (i = 0; i < n->ncounts; i++) {
		if (memcmp(&n->keys[i], key, sizeof(*key)) == 0) {
			n->vals[i] += val;
			return;
		}
	}
	n->keys = xreallocarray(n->keys, n->ncounts + 1, sizeof(*n->keys));
	n->vals = xreallocarray(n->vals, n->ncounts + 1, sizeof(*n->vals));
	n->keys[n->ncounts] = *key;
	n->vals[n->ncounts++] = val;
}

static size_t
session_null_counts_drain(struct session *s, const struct profile_key **keys,
    const uint64_t **vals)
{
	struct session_null	*n = session_null(s);

	free(n->dkeys);
	free(n->dvals);
	n->dkeys = n->keys;
	n->dvals = n->vals;
	n->ndrained = n->ncounts;
	n->keys = NULL;
	n->vals = NULL;
	n->ncounts = 0;
	*keys = n->dkeys;
	*vals = n->dvals;
	return n->ndrained;
}

/* Nothing is blocked in a null session: the counts drained, again. */
static size_t
session_null_offcpu_inflight(struct session *s, uint64_t min_ns,
    uint64_t max_ns, const struct profile_key **keys, const uint64_t **vals)
{
	struct session_null	*n = session_null(s);

	*keys = n->dkeys;
	*vals = n->dvals;
	return n->ndrained;
}

static int
session_null_pid_set(struct session *s, pid_t pid,
    const struct profile_pid_config *cfg)
{
	struct session_null_pid	*np;

	/* Over an entry "BPF" made only, as session_maps.c. */
	if ((np = session_null_pid_find(session_null(s), pid)) == NULL) {
		errno = ENOENT;
		return -1;
	}
	np->cfg = *cfg;
	return 0;
}

static int
session_null_pid_delete(struct session *s, pid_t pid)
{
	struct session_null	*n = session_null(s);
	struct session_null_pid	*np;

	if ((np = session_null_pid_find(n, pid)) == NULL) {
		errno = ENOENT;
		return -1;
	}
	*np = n->pids[--n->npids];
	return 0;
}

static int
session_null_pid_get(struct session *s, pid_t pid,
    struct profile_pid_config *cfg)
{
	struct session_null_pid	*np;

	if ((np = session_null_pid_find(session_null(s), pid)) == NULL) {
		errno = ENOENT;
		return -1;
	}
	*cfg = np->cfg;
	return 0;
}

static pid_t *
session_null_pid_keys(struct session *s, size_t *nkeys)
{
	struct session_null	*n = session_null(s);
	pid_t			*v;
	size_t			 i;

	v = xcalloc(n->npids + 1, sizeof(*v));
	for (i = 0; i < n->npids; i++)
		v[i] = n->pids[i].pid;
	*nkeys = n->npids;
	return v;
}

static struct session_unwind *
session_null_unwind(struct session *s)
{
	return NULL;
}

static int
session_null_thread_comm(struct session *s, pid_t tid, char *buf,
    size_t len)
{
	return -1;
}

static int
session_null_pyinfo_set(struct session *s, pid_t pid,
    const struct profile_py_info *pi)
{
	return 0;
}

static int
session_null_pyinfo_get(struct session *s, pid_t pid,
    struct profile_py_info *pi)
{
	errno = ENOENT;
	return -1;
}

static int
session_null_pyinfo_delete(struct session *s, pid_t pid)
{
	return 0;
}

static int
session_null_pystack_read(struct session *s, uint64_t id,
    struct profile_pystack *st)
{
	errno = ENOENT;
	return -1;
}

static const struct stacks_map *
session_null_pystacks_map(struct session *s)
{
	return &session_null(s)->pymap;
}

static int
session_null_v8info_set(struct session *s, pid_t pid,
    const struct profile_v8_info *vi)
{
	return 0;
}

static int
session_null_jvminfo_set(struct session *s, pid_t pid,
    const struct profile_jvm_info *ji)
{
	return 0;
}

static int
session_null_rtstack_read(struct session *s, uint64_t id,
    struct profile_rtstack *st)
{
	errno = ENOENT;
	return -1;
}

/* Nothing kept: deletes of a pid's layout or a stack succeed. */
static int
session_null_rt_delete(struct session *s, uint64_t id)
{
	return 0;
}

static int
session_null_v8info_delete(struct session *s, pid_t pid)
{
	return session_null_rt_delete(s, pid);
}

void
session_null_stack(struct session *s, uint64_t id, const uint64_t *ip,
    size_t n)
{
	stacks_add(session_null(s)->stacks, id, ip, n);
}

static void
session_null_stack_gen_next(struct session *s)
{
}

static const uint64_t *
session_null_stack_get(struct session *s, uint64_t id, size_t *n)
{
	return stacks_get(session_null(s)->stacks, id, n);
}

static void
session_null_stack_touch(struct session *s, uint64_t id)
{
	stacks_touch(session_null(s)->stacks, id);
}

static int
session_null_stack_lookup(struct session *s, uint64_t id,
    struct profile_stack *st)
{
	const uint64_t	*ip;
	size_t		 n;

	memset(st, 0, sizeof(*st));
	if ((ip = stacks_peek(session_null(s)->stacks, id, &n)) == NULL)
		return -1;
	if (n > PROFILE_STACK_DEPTH)
		n = PROFILE_STACK_DEPTH;
	memcpy(st->ip, ip, n * sizeof(*ip));
	return 0;
}

static void
session_null_stacks_round_end(struct session *s)
{
	stacks_round_end(session_null(s)->stacks);
}

static void
session_null_stacks_stats(struct session *s, struct stacks_stats *st)
{
	stacks_stats(session_null(s)->stacks, st);
}

static long long
session_null_map_entries(struct session *s, enum session_map which,
    long long max)
{
	struct session_null	*n = session_null(s);

	if (which == SESSION_MAP_PID_CONFIG)
		return n->npids;
	if (which == SESSION_MAP_COUNTS)
		return n->ncounts;
	return 0;
}

static void
session_null_stats(struct session *s, uint64_t *stats)
{
	memset(stats, 0, PROFILE_STAT_MAX * sizeof(*stats));
}

static int
session_null_ncpus(struct session *s)
{
	return session_null(s)->cpu ? 1 : 0;
}

static int
session_null_cpu_attached(struct session *s)
{
	return session_null(s)->cpu;
}

static int
session_null_offcpu_attached(struct session *s)
{
	return session_null(s)->offcpu;
}

static const struct session_ops session_null_ops = {
	.close = session_null_close,
	.prepare = session_null_prepare,
	.commit = session_null_commit,
	.abort = session_null_abort,
	.drain_events = session_null_drain_events,
	.pid_set = session_null_pid_set,
	.pid_delete = session_null_pid_delete,
	.pid_get = session_null_pid_get,
	.pid_keys = session_null_pid_keys,
	.unwind = session_null_unwind,
	.counts_drain = session_null_counts_drain,
	.offcpu_inflight = session_null_offcpu_inflight,
	.thread_comm = session_null_thread_comm,
	.pyinfo_set = session_null_pyinfo_set,
	.pyinfo_get = session_null_pyinfo_get,
	.pyinfo_delete = session_null_pyinfo_delete,
	.pystack_read = session_null_pystack_read,
	.pystacks_map = session_null_pystacks_map,
	.v8info_set = session_null_v8info_set,
	.v8info_delete = session_null_v8info_delete,
	.jvminfo_set = session_null_jvminfo_set,
	.jvminfo_delete = session_null_v8info_delete,
	.rtstack_read = session_null_rtstack_read,
	.rtstack_delete = session_null_rt_delete,
	.stack_gen_next = session_null_stack_gen_next,
	.stack_get = session_null_stack_get,
	.stack_touch = session_null_stack_touch,
	.stack_lookup = session_null_stack_lookup,
	.stacks_round_end = session_null_stacks_round_end,
	.stacks_stats = session_null_stacks_stats,
	.map_entries = session_null_map_entries,
	.stats = session_null_stats,
	.ncpus = session_null_ncpus,
	.cpu_attached = session_null_cpu_attached,
	.offcpu_attached = session_null_offcpu_attached,
};
