/*
 * A collection round: drain the counts BPF aggregated since the last
 * round, give every frame a name, add each stack to the profile of its
 * target and type, and hand the profiles to the sinks.  Then the dead
 * are forgotten and the caches age.
 *
 * Each stack is rooted at the process's comm; user frames come first
 * (outermost to innermost), kernel frames on top of them.  Return
 * addresses are looked up at address - 1, the call instruction, so a
 * call that ends a function is not named after the next function.
 */
#include <sys/types.h>

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "bpf/profile.h"
#include "collect.h"
#include "collect_frame.h"
#include "config.h"
#include "log.h"
#include "pids.h"
#include "profile.h"
#include "python.h"
#include "resolve.h"
#include "session.h"
#include "proc.h"
#include "sinks.h"
#include "target.h"
#include "stacknames.h"
#include "stacks.h"
#include "symstats.h"
#include "xmalloc.h"

#define COLLECT_BATCH		4096
#define COLLECT_MAX_FRAMES	(1 + 2 * PROFILE_STACK_DEPTH + 2 + \
				    PROFILE_PY_DEPTH + 1)
/* Named stacks unused this many rounds are forgotten. */
#define COLLECT_NAMES_ROUNDS	3
/* Free heap bytes below which a round's end does not trim. */
#define COLLECT_TRIM_BYTES	(2 * 1024 * 1024)
/* Rounds between two trims, at least. */
#define COLLECT_TRIM_ROUNDS	8

struct collect_prof {
	int		 kind;
	char		*service;	/* the target's label identity */
	struct profile	*p;
};

struct collect {
	struct session		*session;
	struct pids		*pids;
	struct resolve		*resolve;
	struct stacks		*stacks;
	struct symstats		*symstats;	/* names found, per service */
	struct stacks		*pystacks;	/* Python frames */

	struct profile_key	*keys;
	uint64_t		*vals;
	size_t			 cap, n;
	int			 no_batch;	/* kernel lacks batch ops */

	struct stacknames	*names;		/* kept across rounds */
	uint64_t		 names_epoch;	/* of resolve's names */
	uint32_t		 ids[COLLECT_MAX_FRAMES];	/* a stack */
	uint32_t		 unknown[COLLECT_MAX_FRAMES];
	uint32_t		 fids[COLLECT_FRAME_INLINE_MAX];	/* a frame */
	uint32_t		 comm_id;	/* the last comm interned */

	struct collect_prof	*profs;		/* open addressing */
	size_t			 nprofs, profs_size;
	struct profile		**round_profs;	/* handed to the sinks */
	struct sinks		*sinks;

	int64_t			 start_real;	/* round start, ns */
	uint64_t		 rounds;
	uint64_t		 trims;		/* rounds that trimmed */
	uint64_t		 trim_round;	/* the last that trimmed */
	uint64_t		 samples, offcpu_ns, lost_stacks;
	double			 last_ms, total_ms;
	size_t			 last_entries, last_profiles;
};

static int64_t
collect_now(clockid_t clk)
{
	struct timespec	 ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A native stack record of BPF's ring. */
static void
collect_stack_cb(uint64_t id, const uint64_t *ip, size_t n, void *arg)
{
	struct collect	*c = arg;

	stacks_add(c->stacks, id, ip, n);
}

/*
 * A native stack for whoever asks the session (an exec's first sample,
 * a new Python stack): peeked at, so that asking keeps no stack longer.
 */
static int
collect_stack_lookup_cb(uint64_t id, struct profile_stack *st, void *arg)
{
	struct collect	*c = arg;
	const uint64_t	*ip;
	size_t		 n;

	if ((ip = stacks_peek(c->stacks, id, &n)) == NULL)
		return -1;
	if (n > PROFILE_STACK_DEPTH)
		n = PROFILE_STACK_DEPTH;
	memcpy(st->ip, ip, n * sizeof(*ip));
	return 0;
}

struct collect *
collect_create(struct session *session, struct pids *pids,
    struct resolve *resolve, struct sinks *sinks)
{
	struct collect	*c;

	c = xcalloc(1, sizeof(*c));
	c->session = session;
	c->pids = pids;
	c->resolve = resolve;
	c->stacks = stacks_create();
	session_set_stack_cb(session, collect_stack_cb,
	    collect_stack_lookup_cb, c);
	c->symstats = symstats_create();
	c->pystacks = stacks_create_map(session_pystacks_fd(session),
	    sizeof(struct profile_pystack) / sizeof(uint64_t),
	    python_stack_words);
	c->cap = COLLECT_BATCH;
	c->keys = xcalloc(c->cap, sizeof(*c->keys));
	c->vals = xcalloc(c->cap, sizeof(*c->vals));
	c->names = stacknames_create(COLLECT_NAMES_ROUNDS,
	    4 * 32768);
	c->names_epoch = resolve_epoch(resolve);
	c->profs_size = 64;
	c->profs = xcalloc(c->profs_size, sizeof(*c->profs));
	c->round_profs = xcalloc(c->profs_size, sizeof(*c->round_profs));
	c->sinks = sinks;
	c->start_real = collect_now(CLOCK_REALTIME);
	return c;
}

static void
collect_profs_clear(struct collect *c)
{
	size_t	 i;

	for (i = 0; i < c->profs_size; i++) {
		profile_free(c->profs[i].p);
		free(c->profs[i].service);
		memset(&c->profs[i], 0, sizeof(c->profs[i]));
	}
	c->nprofs = 0;
}

void
collect_free(struct collect *c)
{
	if (c == NULL)
		return;
	session_set_stack_cb(c->session, NULL, NULL, NULL);
	collect_profs_clear(c);
	free(c->profs);
	free(c->round_profs);
	stacks_free(c->stacks);
	symstats_free(c->symstats);
	stacks_free(c->pystacks);
	free(c->keys);
	free(c->vals);
	stacknames_free(c->names);
	free(c);
}

static void
collect_reserve(struct collect *c, size_t more)
{
	while (c->n + more > c->cap) {
		c->cap *= 2;
		c->keys = xreallocarray(c->keys, c->cap, sizeof(*c->keys));
		c->vals = xreallocarray(c->vals, c->cap, sizeof(*c->vals));
	}
}

/* Where the kernel has no batch operations: one entry at a time. */
static void
collect_drain_iter(struct collect *c, int fd)
{
	struct profile_key	 key, next;
	void			*prev = NULL;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		collect_reserve(c, 1);
		if (bpf_map_lookup_elem(fd, &next, &c->vals[c->n]) == 0) {
			c->keys[c->n] = next;
			c->n++;
		}
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < c->n; i++)
		bpf_map_delete_elem(fd, &c->keys[i]);
}

/* Take every count out of the kernel map. */
static void
collect_drain(struct collect *c)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct profile_key	 in, out;
	__u32			 count;
	int			 fd = session_counts_fd(c->session), err;
	int			 first = 1;

	c->n = 0;
	if (c->no_batch) {
		collect_drain_iter(c, fd);
		return;
	}
	for (;;) {
		collect_reserve(c, COLLECT_BATCH);
		count = COLLECT_BATCH;
		err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in,
		    &out, c->keys + c->n, c->vals + c->n, &count, &opts);
		if (err != 0 && errno != ENOENT && errno != ENOSPC) {
			if (first && (errno == EINVAL || errno == ENOTSUP ||
			    errno == EOPNOTSUPP)) {
				log_info("no batch map operations: iterating");
				c->no_batch = 1;
				collect_drain_iter(c, fd);
				return;
			}
			log_warn("drain counts map");
			return;
		}
		c->n += count;
		if (err != 0 && errno == ENOENT)
			return;
		if (err != 0 && errno == ENOSPC && count == 0) {
			/* A bucket holds more than a batch: unlikely. */
			log_warnx("drain counts map: bucket over batch size");
			return;
		}
		in = out;
		first = 0;
	}
}

/*
 * On the final round, threads still blocked count up to now: their
 * start stays in the kernel map, their time is added here.
 */
static void
collect_offcpu_inflight(struct collect *c, const struct config *conf)
{
	struct profile_offcpu_start	 st;
	__u32				 key, next;
	void				*prev = NULL;
	int64_t				 now = collect_now(CLOCK_MONOTONIC);
	int				 fd = session_offcpu_fd(c->session);
	uint64_t			 delta;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		/* ts 0: the thread is not blocked (bpf/profile.bpf.c). */
		if (bpf_map_lookup_elem(fd, &next, &st) != 0 || st.ts == 0 ||
		    (int64_t)st.ts > now)
			continue;
		delta = now - st.ts;
		if (delta < (uint64_t)conf->offcpu_min_block_us * 1000)
			continue;
		if (conf->offcpu_max_block_us != 0 &&
		    delta > (uint64_t)conf->offcpu_max_block_us * 1000)
			continue;
		collect_reserve(c, 1);
		memset(&c->keys[c->n], 0, sizeof(c->keys[c->n]));
		c->keys[c->n].pid = st.pid;
		c->keys[c->n].kstack = st.kstack;
		c->keys[c->n].ustack = st.ustack;
		c->keys[c->n].pystack = st.pystack;
		c->keys[c->n].kind = st.pending ?
		    PROFILE_KIND_OFFCPU_PENDING : PROFILE_KIND_OFFCPU;
		c->vals[c->n] = delta;
		c->n++;
	}
}

static uint64_t
collect_hash(const char *s, int kind)
{
	uint64_t	 h = 1469598103934665603ULL ^ kind;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/*
 * The profile of a target and type.  A process's target is the one in
 * force at the end of the round: after a reload that changed targets,
 * what was counted before goes to the new ones.
 */
static struct profile *
collect_profile(struct collect *c, const struct config *conf, int kind,
    const struct pids_proc *proc, int64_t now)
{
	const struct target_labels	*l = proc->labels;
	const char			*service;
	struct collect_prof		*old, *e;
	size_t				 i, oldsize;

	if ((c->nprofs + 1) * 2 > c->profs_size) {
		old = c->profs;
		oldsize = c->profs_size;
		c->profs_size *= 2;
		c->profs = xcalloc(c->profs_size, sizeof(*c->profs));
		c->round_profs = xreallocarray(c->round_profs, c->profs_size,
		    sizeof(*c->round_profs));
		c->nprofs = 0;
		for (i = 0; i < oldsize; i++) {
			if (old[i].p == NULL)
				continue;
			e = &c->profs[collect_hash(old[i].service,
			    old[i].kind) & (c->profs_size - 1)];
			while (e->p != NULL) {
				if (++e == c->profs + c->profs_size)
					e = c->profs;
			}
			*e = old[i];
			c->nprofs++;
		}
		free(old);
	}
	service = l != NULL ? l->key : proc->comm;
	e = &c->profs[collect_hash(service, kind) & (c->profs_size - 1)];
	while (e->p != NULL) {
		if (e->kind == kind && strcmp(e->service, service) == 0)
			return e->p;
		if (++e == c->profs + c->profs_size)
			e = c->profs;
	}
	e->kind = kind;
	e->service = xstrdup(service);
	if (kind == PROFILE_KIND_CPU)
		e->p = profile_create(PROFILE_TYPE_CPU,
		    1000000000ULL / conf->sample_rate, c->start_real,
		    now - c->start_real);
	else
		e->p = profile_create(PROFILE_TYPE_OFFCPU, 1, c->start_real,
		    now - c->start_real);
	if (l != NULL) {
		for (i = 0; i < l->n; i++)
			profile_label_set(e->p, l->v[i].name, l->v[i].value);
	} else
		profile_label_set(e->p, "service_name", proc->comm);
	c->nprofs++;
	return e->p;
}

/* Append a name to the stack being built. */
static void
collect_name(struct collect *c, size_t *nframes, const char *name)
{
	if (*nframes >= COLLECT_MAX_FRAMES)
		return;
	c->ids[(*nframes)++] = stacknames_intern(c->names, name);
}

/*
 * A stack's root, the process's comm: most counts of a round are of a
 * few processes, so the last one interned is checked first.  Its name
 * says whether the id is still it (names are cleared now and then).
 */
static void
collect_comm(struct collect *c, const char *comm, size_t *nframes)
{
	if (*comm == '\0' ||
	    strcmp(stacknames_name(c->names, c->comm_id), comm) != 0)
		c->comm_id = stacknames_intern(c->names, comm);
	c->ids[(*nframes)++] = c->comm_id;
}

/*
 * A stack named in an earlier round, of the same generation: its names,
 * and the frame counts it had then.  1 if it was there.
 */
static int
collect_stack_cached(struct collect *c, const char *service, uint64_t gen,
    uint64_t id, int user, size_t *nframes)
{
	const uint32_t	*ids;
	size_t		 n, nunknown, i, room;

	if ((ids = stacknames_get(c->names, gen, id, &n, &nunknown)) == NULL)
		return 0;
	/* Sampled: the stacks module must know, though not read it. */
	stacks_touch(c->stacks, id);
	room = COLLECT_MAX_FRAMES - *nframes;
	memcpy(c->ids + *nframes, ids, (n < room ? n : room) * sizeof(*ids));
	*nframes += n < room ? n : room;
	if (user) {
		/* Counted as when it was named: all its frames. */
		symstats_known(c->symstats, service, n - nunknown);
		for (i = 0; i < nunknown; i++)
			symstats_frame(c->symstats, service,
			    stacknames_name(c->names, ids[n + i]));
	}
	return 1;
}

/* The n frames of a process whose mappings are gone: all unknown. */
static void
collect_stack_unknown(struct collect *c, const char *service, size_t n,
    size_t *nframes)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		symstats_frame(c->symstats, service, "[unknown]");
		collect_name(c, nframes, "[unknown]");
	}
}

/*
 * The frames of a stack, outermost first.  A stack named before under
 * the same generation of the process's mappings (or the kernel's
 * symbols) gets the names it had; else it is named frame by frame
 * (collect_frame_name()), and kept unless a name may change meanwhile.
 * User frames are counted per service, named or not.
 */
static void
collect_stack(struct collect *c, struct pids_proc *proc, uint64_t id,
    int user, size_t *nframes)
{
	const char	*service;
	const uint32_t	*ids;
	const uint64_t	*ip;
	size_t		 n, i, j, nn, skip, start = *nframes, nunknown = 0;
	uint64_t	 unstable, known = 0;
	uint32_t	 flags;

	if (id == 0)
		return;
	service = proc->labels != NULL ? proc->labels->service : proc->comm;
	if ((!user || proc->rp != NULL) && collect_stack_cached(c, service,
	    collect_frame_gen(c->resolve, proc->rp, user), id, user,
	    nframes))
		return;
	if ((ip = stacks_get(c->stacks, id, &n)) == NULL) {
		c->lost_stacks++;
		collect_name(c, nframes, "[lost stack]");
		return;
	}
	if (user && proc->rp == NULL) {
		collect_stack_unknown(c, service, n, nframes);
		return;
	}
	unstable = resolve_unstable(c->resolve);
	/*
	 * A kernel stack walked from a tracepoint starts in the tracing
	 * machinery and our own program: not the task's, drop them.
	 */
	skip = 0;
	while (!user && skip < n) {
		(void)collect_frame_name(c->names, c->resolve, NULL, 0,
		    skip > 0 ? ip[skip] - 1 : ip[skip], &nn, &flags, c->fids);
		if (!(flags & COLLECT_FRAME_BPF))
			break;
		skip++;
	}
	for (i = n; i-- > skip;) {
		ids = collect_frame_name(c->names, c->resolve, proc->rp, user,
		    i > 0 ? ip[i] - 1 : ip[i], &nn, &flags, c->fids);
		for (j = 0; j < nn; j++) {
			if (*nframes < COLLECT_MAX_FRAMES)
				c->ids[(*nframes)++] = ids[j];
			if (!user)
				continue;
			if (!(flags & COLLECT_FRAME_UNKNOWN(j))) {
				known++;
				continue;
			}
			symstats_frame(c->symstats, service,
			    stacknames_name(c->names, ids[j]));
			if (nunknown < COLLECT_MAX_FRAMES)
				c->unknown[nunknown++] = ids[j];
		}
	}
	if (user)
		symstats_known(c->symstats, service, known);
	if (resolve_unstable(c->resolve) != unstable ||
	    *nframes >= COLLECT_MAX_FRAMES)
		return;
	stacknames_put(c->names, collect_frame_gen(c->resolve, proc->rp,
	    user), id, c->ids + start, *nframes - start, c->unknown,
	    nunknown);
}

/*
 * A thread's name: as BPF saw it, else as /proc has it, else its id.
 */
static const char *
collect_thread_name(struct collect *c, uint32_t pid, uint32_t tid, char *buf,
    size_t len)
{
	char	 name[64], comm[PROFILE_COMM_LEN];
	ssize_t	 n;

	if (bpf_map_lookup_elem(session_thread_comm_fd(c->session), &tid,
	    comm) == 0) {
		comm[sizeof(comm) - 1] = '\0';
		snprintf(buf, len, "%s", comm);
		return buf;
	}
	snprintf(name, sizeof(name), "task/%u/comm", tid);
	if ((n = proc_read_file(pid, name, buf, len)) > 0) {
		if (buf[n - 1] == '\n')
			buf[n - 1] = '\0';
		return buf;
	}
	snprintf(buf, len, "[%u]", tid);
	return buf;
}

/*
 * A Python process's user frames: its Python stack, outermost first,
 * then the native frames that ran above the interpreter at the sample
 * (a C extension, libc), innermost last.  Without its Python stack
 * (a thread that runs no Python), its native stack as any process's.
 */
static void
collect_python(struct collect *c, struct pids_proc *proc,
    const struct profile_key *key, size_t *nframes)
{
	const struct profile_py_frame	*f;
	struct python			*py = pids_python(c->pids);
	const uint64_t			*w, *ip;
	size_t				 nw, n, i, above = 0, nip = 0;
	uint32_t			 flags;

	if ((w = stacks_get(c->pystacks, key->pystack, &nw)) == NULL ||
	    python_stack_frames(w, nw, &f, &n, &flags) == -1) {
		c->lost_stacks++;
		collect_name(c, nframes, "[lost python stack]");
		collect_stack(c, proc, key->ustack, 1, nframes);
		return;
	}
	if (flags & PROFILE_PY_F_TRUNCATED)
		collect_name(c, nframes, "[truncated]");
	for (i = n; i-- > 0;)
		collect_name(c, nframes, python_frame_name(py, proc->py,
		    &f[i]));
	if (key->ustack != 0 && proc->py != NULL &&
	    (ip = stacks_get(c->stacks, key->ustack, &nip)) != NULL)
		above = python_proc_native_above(py, proc->py, ip, nip);
	for (i = above; i-- > 0;)
		collect_name(c, nframes, proc->rp == NULL ? "[unknown]" :
		    resolve_user(c->resolve, proc->rp, i > 0 ? ip[i] - 1 :
		    ip[i]));
}

static void
collect_entry(struct collect *c, const struct config *conf,
    const struct profile_key *key, uint64_t val, int64_t now)
{
	const char		*labels[4];
	struct pids_proc	*proc;
	struct profile		*p;
	char			 pidbuf[16], tname[PROFILE_COMM_LEN];
	size_t			 nframes = 0, nl;
	uint32_t		 kind = key->kind;

	if (kind >= PROFILE_KIND_MAX || val == 0)
		return;
	proc = pids_get(c->pids, key->pid);
	if (kind == PROFILE_KIND_OFFCPU_PENDING) {
		/* Waited before we knew the pid: ours if it is profiled. */
		if (proc->type != PROFILE_PID_FP &&
		    proc->type != PROFILE_PID_PYTHON)
			return;
		kind = PROFILE_KIND_OFFCPU;
	}
	collect_comm(c, proc->comm, &nframes);
	if (key->pystack != 0)
		collect_python(c, proc, key, &nframes);
	else
		collect_stack(c, proc, key->ustack, 1, &nframes);
	collect_stack(c, proc, key->kstack, 0, &nframes);
	p = collect_profile(c, conf, kind, proc, now);
	nl = 0;
	if (conf->label_pid) {
		snprintf(pidbuf, sizeof(pidbuf), "%u", key->pid);
		labels[nl * 2] = "pid";
		labels[nl++ * 2 + 1] = pidbuf;
	}
	if (conf->label_thread_name && key->tid != 0) {
		labels[nl * 2] = "thread_name";
		labels[nl++ * 2 + 1] = collect_thread_name(c, key->pid,
		    key->tid, tname, sizeof(tname));
	}
	profile_add_ids(p, stacknames_names(c->names), c->ids, nframes, val,
	    labels, nl);
	if (kind == PROFILE_KIND_CPU)
		c->samples += val;
	else
		c->offcpu_ns += val;
}

#ifdef __GLIBC__
/*
 * A round frees what it built, and tables dropped from the caches leave
 * holes under live allocations that free() never gives back: return
 * those pages, so that the daemon's RSS is what it holds.  Only when
 * the free bytes are worth it, and at most every COLLECT_TRIM_ROUNDS
 * rounds: a trim walks the heap, and the pages it returns fault back
 * in, zeroed, when the next round allocates as much again (trimmed
 * every round, a round of 10,000 stacks spent a tenth of its time so).
 */
static void
collect_trim(struct collect *c)
{
#if __GLIBC__ > 2 || __GLIBC_MINOR__ >= 33
	struct mallinfo2	 mi;
#endif

	if (c->trims > 0 && c->rounds - c->trim_round < COLLECT_TRIM_ROUNDS)
		return;
#if __GLIBC__ > 2 || __GLIBC_MINOR__ >= 33
	mi = mallinfo2();
	if (mi.fordblks < COLLECT_TRIM_BYTES || mi.fordblks < mi.uordblks / 4)
		return;
#endif
	malloc_trim(0);
	c->trims++;
	c->trim_round = c->rounds;
}
#endif

int
collect_round(struct collect *c, const struct config *conf, int final)
{
	struct stacks_stats	 st;
	struct stacknames_stats	 ns;
	int64_t		 t0, t1, t2, t3, now, u0, u1, u2, u3;
	double		 cpu_ms;
	size_t		 i, n;
	int		 rc = 0;

	t0 = collect_now(CLOCK_MONOTONIC);
	u0 = collect_now(CLOCK_PROCESS_CPUTIME_ID);
	/*
	 * The sinks draw the last round's flame graphs from its profiles
	 * once the loop is idle: if that has not happened yet, now.
	 */
	sinks_settle(c->sinks);
	collect_profs_clear(c);
	if (resolve_epoch(c->resolve) != c->names_epoch) {
		/* Names come out otherwise now: name every stack again. */
		stacknames_clear(c->names);
		c->names_epoch = resolve_epoch(c->resolve);
	}
	stacknames_configure(c->names, COLLECT_NAMES_ROUNDS,
	    4 * (size_t)conf->stack_map_entries);
	/*
	 * Stacks sampled from now on are sent again: those counted in the
	 * next round are there then, whatever this round keeps.
	 */
	session_stack_gen_next(c->session);
	/* Events first: a pid's exec or exit precedes its counts. */
	session_drain_events(c->session);
	collect_drain(c);
	if (final && session_offcpu_attached(c->session))
		collect_offcpu_inflight(c, conf);
	/*
	 * A sample's stack is in the ring before its count is added
	 * (bpf/profile.bpf.c): now every stack of the counts drained is.
	 */
	session_drain_events(c->session);
	now = collect_now(CLOCK_REALTIME);
	t1 = collect_now(CLOCK_MONOTONIC);
	u1 = collect_now(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < c->n; i++)
		collect_entry(c, conf, &c->keys[i], c->vals[i], now);
	t2 = collect_now(CLOCK_MONOTONIC);
	u2 = collect_now(CLOCK_PROCESS_CPUTIME_ID);

	for (i = 0, n = 0; i < c->profs_size; i++) {
		if (c->profs[i].p != NULL)
			c->round_profs[n++] = c->profs[i].p;
	}
	if (sinks_round(c->sinks, conf, c->round_profs, n, c->start_real,
	    now) == -1)
		rc = -1;
	c->last_entries = c->n;
	c->last_profiles = c->nprofs;
	t3 = collect_now(CLOCK_MONOTONIC);
	u3 = collect_now(CLOCK_PROCESS_CPUTIME_ID);

	stacks_round_end(c->stacks);
	stacks_round_end(c->pystacks);
	stacknames_round_end(c->names);
	pids_round_end(c->pids);
	resolve_round_end(c->resolve);
#ifdef __GLIBC__
	collect_trim(c);
#endif
	c->rounds++;
	c->start_real = now;
	c->last_ms = (collect_now(CLOCK_MONOTONIC) - t0) / 1e6;
	c->total_ms += c->last_ms;
	/* The CPU the round took: its wall time also holds waits for one. */
	cpu_ms = (collect_now(CLOCK_PROCESS_CPUTIME_ID) - u0) / 1e6;
	log_debug("round %llu: %zu counts, %zu profiles, %.1f ms, %.1f ms CPU",
	    (unsigned long long)c->rounds, c->last_entries, c->last_profiles,
	    c->last_ms, cpu_ms);
	/* Where the time went: not a line that starts with "round". */
	stacks_stats(c->stacks, &st);
	stacknames_stats(c->names, &ns);
	log_debug("collect: round %llu: drain %.1f, name %.1f, sinks %.1f, "
	    "end %.1f ms (CPU %.1f, %.1f, %.1f, %.1f); so far %llu stacks not "
	    "held, %llu received, %llu named again, %llu named from their "
	    "names kept, %llu trims", (unsigned long long)c->rounds,
	    (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6,
	    c->last_ms - (t3 - t0) / 1e6, (u1 - u0) / 1e6, (u2 - u1) / 1e6,
	    (u3 - u2) / 1e6, cpu_ms - (u3 - u0) / 1e6,
	    (unsigned long long)st.misses,
	    (unsigned long long)st.records, (unsigned long long)ns.misses,
	    (unsigned long long)ns.hits, (unsigned long long)c->trims);
	return rc;
}

void
collect_log_state(struct collect *c)
{
	struct stacknames_stats	 ns;
	struct stacks_stats	 st;
	struct resolve_stats	 rs;

	stacks_stats(c->stacks, &st);
	resolve_stats(c->resolve, &rs);
	log_info("collect: %llu rounds, last %.1f ms with %zu counts and %zu "
	    "profiles; %llu samples, %llu off-CPU ns, %llu lost stacks",
	    (unsigned long long)c->rounds, c->last_ms, c->last_entries,
	    c->last_profiles, (unsigned long long)c->samples,
	    (unsigned long long)c->offcpu_ns,
	    (unsigned long long)c->lost_stacks);
	log_info("stacks: %zu cached, %llu hits, %llu misses, %llu lost, "
	    "%llu records, %llu of stacks held already", st.entries,
	    (unsigned long long)st.hits, (unsigned long long)st.misses,
	    (unsigned long long)st.lost, (unsigned long long)st.records,
	    (unsigned long long)st.again);
	stacknames_stats(c->names, &ns);
	log_info("stack names: %zu stacks, %zu frames, %zu names, %zu bytes; "
	    "stacks %llu hits %llu misses, frames %llu hits %llu misses, "
	    "%llu cleared", ns.stacks, ns.frames, ns.names, ns.bytes,
	    (unsigned long long)ns.hits, (unsigned long long)ns.misses,
	    (unsigned long long)ns.frame_hits,
	    (unsigned long long)ns.frame_misses,
	    (unsigned long long)ns.cleared);
	log_info("symbols: %llu frames, %llu named, %llu unknown; %zu tables "
	    "(%zu bytes), %zu kernel symbols, cache %llu hits %llu misses, "
	    "%llu kept when maps were read again; maps read again %llu times "
	    "for an address, not for %llu addresses of no code",
	    (unsigned long long)rs.frames, (unsigned long long)rs.named,
	    (unsigned long long)rs.unknown, rs.files, rs.file_bytes, rs.ksyms,
	    (unsigned long long)rs.hits, (unsigned long long)rs.misses,
	    (unsigned long long)rs.kept, (unsigned long long)rs.rereads,
	    (unsigned long long)rs.bad_skips);
}

void
collect_stats(struct collect *c, struct collect_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->rounds = c->rounds;
	st->samples = c->samples;
	st->offcpu_ns = c->offcpu_ns;
	st->lost_stacks = c->lost_stacks;
	st->last_ms = c->last_ms;
	st->total_ms = c->total_ms;
	st->last_end = c->rounds > 0 ? c->start_real : 0;
	st->last_entries = c->last_entries;
	st->last_profiles = c->last_profiles;
	stacks_stats(c->stacks, &st->stacks);
}

const struct symstats *
collect_symstats(struct collect *c)
{
	return c->symstats;
}
