// SPDX-License-Identifier: GPL-2.0
/*
 * ebpfspy's BPF side: on-CPU samples from a software cpu-clock perf event,
 * off-CPU time from sched_switch, process exec/exit from the scheduler
 * tracepoints.  Counts are aggregated here, keyed by {pid, kernel stack,
 * user stack}; userspace drains them once per round.  The stacks' frames
 * go to userspace through a ring buffer, each once a round.
 *
 * Every tracepoint is attached as a raw or BTF tracepoint: neither needs
 * tracefs mounted, and neither needs kprobes, which this kernel lacks.
 *
 * A pid seen for the first time gets an UNKNOWN placeholder in the pid
 * config map and one request to userspace; pids that are not profiled
 * cost no stack walk.  Stacks are stored under a 64-bit hash of their
 * frames rather than in a stack-trace map, so a bucket collision can
 * never drop a sample or give it another stack's frames.  A stack goes
 * to userspace through a ring buffer of its own, once a round: a table
 * tagged with the round's generation says which were sent, so a round
 * takes its stacks without a system call per stack.  Exec and exit
 * events that need no answer, and stacks, do not wake the daemon until
 * a quarter of their ring buffer is full; each round reads them first.
 * User stacks are walked with unwind tables (unwind.bpf.h), a runtime's
 * frames by its walker (runtime.bpf.h: Python's, pyperf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "profile.h"

#define PF_EXITING	0x00000004
#define PF_KTHREAD	0x00200000

char LICENSE[] SEC("license") = "GPL";

/*
 * Live knobs: in .bss/.data so that a reload changes them without
 * reloading the programs.
 */
int collect_kthreads = 0;
int collect_idle = 0;
int collect_user = 1;		/* for pids whose config is pending */
int collect_kernel = 1;
int per_thread = 0;
/* Without targets_only every process is profiled: an exec needs no answer. */
int exec_profiled = 0;
__u32 offcpu_states = PROFILE_TASK_INTERRUPTIBLE |
    PROFILE_TASK_UNINTERRUPTIBLE;
__u64 offcpu_min_ns = 1000;
__u64 offcpu_max_ns = 0;

/* Sizes are set by userspace before load from the config. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct profile_pid_config);
} pid_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct profile_key);
	__type(value, __u64);
} counts SEC(".maps");

/*
 * Native stacks go to userspace through their own ring, so that a
 * round takes them without a system call per stack, and so that they
 * never crowd the process events out of theirs.  Each stack is sent
 * once a generation (a round: userspace bumps stack_gen at each
 * round's start), the daemon keeps its copy while it is counted, and
 * stack_seen says which were sent this generation (stack_store).
 * Userspace sizes both: stack_seen a power of two of entries,
 * stack_seen_mask the number less one; stack_rb some 64 bytes a stack.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} stack_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 2048 * 1024);
} stack_rb SEC(".maps");

const volatile __u32 stack_seen_mask = 65535;
volatile __u32 stack_gen;	/* 0 before userspace sets it: as 1 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct profile_offcpu_start);
} offcpu_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROFILE_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Thread names for the thread_name label, taken when a thread is seen:
 * a thread that has exited by the end of the round keeps its name.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, char[PROFILE_COMM_LEN]);
} thread_comm SEC(".maps");

/*
 * A stack is too large for the 512-byte BPF stack: walk into this,
 * behind the header of its ring record.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct profile_stack_rec);
} scratch SEC(".maps");

static __always_inline void
stat_add(__u32 idx, __u64 n)
{
	__u64	*v;

	v = bpf_map_lookup_elem(&stats, &idx);
	if (v != NULL)
		*v += n;
}

/*
 * Events that need an answer wake userspace up at once.  The others
 * (exec and exit when no answer is needed) wait for the next of those,
 * or for the drain at the start of each round, unless a quarter of the
 * ring is unread: then they wake userspace to make room, so that a
 * burst of processes is read before the ring fills.  A machine that
 * starts hundreds of processes a second must not wake the daemon twice
 * for each, and an idle one must not wake it at all between rounds.
 * Waking is forced: the kernel's default wakes only when the record is
 * the first one unread, which it is not behind records that did not
 * wake.
 */
static __always_inline __u64
event_quiet_flags(void)
{
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >=
	    bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 4)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void
event_send_args(__u32 type, __u32 pid, __u64 arg, __u64 arg2, __u64 flags)
{
	struct profile_event	ev = {};

	ev.type = type;
	ev.pid = pid;
	ev.arg = arg;
	ev.arg2 = arg2;
	bpf_get_current_comm(ev.comm, sizeof(ev.comm));
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), flags) != 0)
		stat_add(PROFILE_STAT_RINGBUF_LOST, 1);
}

static __always_inline void
event_send_flags(__u32 type, __u32 pid, __u64 arg, __u64 flags)
{
	event_send_args(type, pid, arg, 0, flags);
}

static __always_inline void
event_send_arg(__u32 type, __u32 pid, __u64 arg)
{
	event_send_flags(type, pid, arg, BPF_RB_FORCE_WAKEUP);
}

static __always_inline void
event_send(__u32 type, __u32 pid)
{
	event_send_arg(type, pid, 0);
}

/*
 * The config of a pid.  A pid seen for the first time gets an UNKNOWN
 * placeholder and one request to userspace; the placeholder is the rate
 * limit, and the sample that found it is dropped.
 */
static __always_inline struct profile_pid_config *
pid_config_get(__u32 pid)
{
	struct profile_pid_config	*cfg, unknown = {};

	cfg = bpf_map_lookup_elem(&pid_config, &pid);
	if (cfg != NULL)
		return cfg;
	if (bpf_map_update_elem(&pid_config, &pid, &unknown,
	    BPF_NOEXIST) != 0) {
		/* Another CPU won the race, or the map is full. */
		if (bpf_map_lookup_elem(&pid_config, &pid) == NULL)
			stat_add(PROFILE_STAT_PID_MAP_FULL, 1);
		return NULL;
	}
	stat_add(PROFILE_STAT_UNKNOWN_PID, 1);
	event_send(PROFILE_EVENT_UNKNOWN_PID, pid);
	return NULL;
}

/* Slots of stack_seen looked at for a stack, from its home slot on. */
#define STACK_SEEN_PROBES	8

/*
 * Send a stack record unless it went this generation.  A stack_seen
 * slot holds a tag: the id's high bits and the generation it was sent
 * in, in the low bits; never 0, as the generation is not.  A slot of
 * another generation is free, so a new round frees them all at once.
 * Loads and stores are plain: two CPUs that race for a slot or a stack
 * send it twice, which costs userspace a lookup.  The tag is written
 * after the record is committed: a sample that finds it and sends
 * nothing has its stack in the ring before its count is added.  With
 * no slot free among the probes, the stack is sent anyway.  0 when it
 * is in the ring, -1 when the ring is full.
 */
static __always_inline int
stack_send(struct profile_stack_rec *rec, __u64 h, __u32 n)
{
	__u64	 gen, tag, t, *v, *slot = NULL, flags = BPF_RB_NO_WAKEUP;
	__u32	 i, k;

	gen = stack_gen & PROFILE_STACK_GEN_MASK;
	if (gen == 0)
		gen = 1;
	tag = (h & ~PROFILE_STACK_GEN_MASK) | gen;
	for (i = 0; i < STACK_SEEN_PROBES; i++) {
		k = ((__u32)(h >> 16) + i) & stack_seen_mask;
		if ((v = bpf_map_lookup_elem(&stack_seen, &k)) == NULL)
			break;
		t = *(volatile __u64 *)v;
		if (t == tag)
			return 0;
		if ((t & PROFILE_STACK_GEN_MASK) != gen) {
			slot = v;
			break;
		}
	}
	rec->id = h;
	rec->n = n;
	rec->pad = 0;
	/*
	 * Userspace reads the ring at each round's start; a quarter of it
	 * unread (a round of many new stacks) wakes it to make room.
	 */
	if (bpf_ringbuf_query(&stack_rb, BPF_RB_AVAIL_DATA) >
	    bpf_ringbuf_query(&stack_rb, BPF_RB_RING_SIZE) / 4)
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&stack_rb, rec, 16 + n * sizeof(__u64),
	    flags) != 0)
		return -1;
	if (slot != NULL)
		*(volatile __u64 *)slot = tag;
	return 0;
}

/*
 * Send the n frames walked into buf (the scratch record) under their
 * hash: the stack's id, or 0 when the ring has no room for it.
 */
static __always_inline __u64
stack_send_walked(struct profile_stack_rec *buf, long n,
    struct profile_pid_config *cfg, __u32 pid)
{
	__u64				 h, lo = 0, hi = 0;
	int				 i, hit = 0;

	if (n > PROFILE_STACK_DEPTH)
		n = PROFILE_STACK_DEPTH;
	if (cfg != NULL && (cfg->flags & PROFILE_PID_F_NOTIFY)) {
		lo = cfg->notify_lo;
		hi = cfg->notify_hi;
	}
	h = 0x9e3779b97f4a7c15ULL ^ (__u64)n;
	for (i = 0; i < PROFILE_STACK_DEPTH; i++) {
		if (i >= n)
			break;
		h = (h ^ buf->ip[i]) * 0x100000001b3ULL;
		h ^= h >> 29;
		if (buf->ip[i] >= lo && buf->ip[i] < hi)
			hit = 1;
	}
	h = hash_mix(h);
	if (h == 0)
		h = 1;
	if (stack_send(buf, h, n) != 0) {
		stat_add(PROFILE_STAT_STACKS_FULL, 1);
		h = 0;
	}
	/* The stack goes with the event: did it run the executable? */
	if (hit) {
		cfg->flags &= ~PROFILE_PID_F_NOTIFY;
		event_send_arg(PROFILE_EVENT_SAMPLED, pid, h);
	}
	return h;
}

/*
 * Walk a stack and send it under the hash of its frames (stack_send()).
 * Returns the id, 0 when there is no stack, or when the ring has no
 * room for it: the sample is counted without that stack.  Content
 * addressing means two different stacks never share an id the way
 * stack-trace map buckets do.
 */
static __always_inline __u64
stack_store(void *ctx, __u64 flags, __u32 err_stat,
    struct profile_pid_config *cfg, __u32 pid)
{
	struct profile_stack_rec	*buf;
	__u32				 zero = 0;
	long				 n;

	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (buf == NULL)
		return 0;
	n = bpf_get_stack(ctx, buf->ip, sizeof(buf->ip), flags);
	if (n < 0)
		stat_add(err_stat, 1);
	if (n <= 0)
		return 0;
	return stack_send_walked(buf, n / sizeof(__u64), cfg, pid);
}

/* The walker of unwind tables: bpf/unwind.bpf.h. */
#include "unwind.bpf.h"

/*
 * The current task's user stack: walked with unwind tables unless
 * [profile] unwind is fp, with frame pointers by bpf_get_stack then.
 */
static __always_inline __u64
ustack_store(void *ctx, struct profile_pid_config *cfg, __u32 pid)
{
	struct profile_stack_rec	*buf;
	__u32				 zero = 0, n;
	__u64				 t0 = bpf_ktime_get_ns(), h = 0;

	/* What the walk costs, by mode: bench/unwind-cost.sh. */
	if (unwind_mode == UNWIND_MODE_FP)
		h = stack_store(ctx, BPF_F_USER_STACK,
		    PROFILE_STAT_USTACK_ERR, cfg, pid);
	else if ((n = uw_walk_user(pid)) != 0 &&
	    (buf = bpf_map_lookup_elem(&scratch, &zero)) != NULL)
		h = stack_send_walked(buf, n, cfg, pid);
	uw_stat_add(UNWIND_STAT_USTACKS, 1);
	uw_stat_add(UNWIND_STAT_USTACK_NS, bpf_ktime_get_ns() - t0);
	return h;
}

static __always_inline void
count_add(struct profile_key *key, __u64 v)
{
	__u64	*c;

	c = bpf_map_lookup_elem(&counts, key);
	if (c == NULL) {
		if (bpf_map_update_elem(&counts, key, &v, BPF_NOEXIST) == 0)
			return;
		c = bpf_map_lookup_elem(&counts, key);
		if (c == NULL) {
			stat_add(PROFILE_STAT_COUNTS_FULL, 1);
			return;
		}
	}
	__sync_fetch_and_add(c, v);
}

/* The runtimes' walkers (Python's) and where they plug in. */
#include "runtime.bpf.h"

/*
 * Should this task be looked at at all?  Returns its config or NULL.
 * flags are the task's.  With pending, a pid whose config userspace has
 * not written yet (a process that blocks right after its exec) is
 * returned too.
 */
static __always_inline struct profile_pid_config *
task_config_flags(__u32 tgid, __u32 flags, int pending)
{
	struct profile_pid_config	*cfg;

	if (tgid == 0) {
		if (!collect_idle) {
			stat_add(PROFILE_STAT_IDLE, 1);
			return NULL;
		}
	} else {
		if ((flags & PF_KTHREAD) && !collect_kthreads) {
			stat_add(PROFILE_STAT_KTHREAD, 1);
			return NULL;
		}
		/*
		 * An exiting task has no user maps left to name, and its
		 * process may be forgotten already: a request now would
		 * make a new, nameless entry of a dead pid.
		 */
		if (flags & PF_EXITING) {
			stat_add(PROFILE_STAT_EXITING, 1);
			return NULL;
		}
	}
	cfg = pid_config_get(tgid);
	if (cfg == NULL)
		return NULL;
	switch (cfg->type) {
	case PROFILE_PID_FP:
	RUNTIME_PID_CASES
		return cfg;
	case PROFILE_PID_UNKNOWN:
		if (pending)
			return cfg;
		stat_add(PROFILE_STAT_UNKNOWN_DROP, 1);
		return NULL;
	default:
		stat_add(PROFILE_STAT_NOT_PROFILED, 1);
		return NULL;
	}
}

static __always_inline struct profile_pid_config *
task_config(struct task_struct *task, __u32 tgid)
{
	return task_config_flags(tgid, tgid != 0 ?
	    BPF_CORE_READ(task, flags) : 0, 0);
}

/*
 * A thread's name rarely changes: an update of the LRU map (a lock, and
 * an eviction when full) only when it is new or did.
 */
static __always_inline void
thread_comm_note(__u32 tid)
{
	__u64	 comm[PROFILE_COMM_LEN / 8], *old;

	bpf_get_current_comm(comm, sizeof(comm));
	old = bpf_map_lookup_elem(&thread_comm, &tid);
	if (old != NULL && old[0] == comm[0] && old[1] == comm[1])
		return;
	bpf_map_update_elem(&thread_comm, &tid, comm, BPF_ANY);
}

/* A sample taken in user mode has no kernel stack to walk. */
static __always_inline int
sample_in_user_mode(struct bpf_perf_event_data *ctx)
{
#if defined(__TARGET_ARCH_x86)
	/* The context only allows whole-word loads; cs is a u16. */
	__u64	cs = *(volatile __u64 *)((char *)&ctx->regs +
	    __builtin_offsetof(struct pt_regs, cs));

	return (cs & 3) == 3;
#else
	return 0;
#endif
}

SEC("perf_event")
int
on_cpu_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct		*task;
	struct profile_pid_config	*cfg;
	struct profile_key		 key = {};
	__u64				 id;

	stat_add(PROFILE_STAT_SAMPLES, 1);
	id = bpf_get_current_pid_tgid();
	task = (struct task_struct *)bpf_get_current_task();
	if ((cfg = task_config(task, id >> 32)) == NULL)
		return 0;
	if (cfg->flags & PROFILE_PID_F_PENDING) {
		/*
		 * Its first sample: ask userspace to look at it.  Ask
		 * again every PROFILE_PENDING_RETRY samples while it has
		 * not answered: a request lost (a full ring buffer) must
		 * not leave the process unprofiled for good.
		 */
		if ((cfg->flags & PROFILE_PID_F_NOTIFY) ||
		    ++cfg->dropped % PROFILE_PENDING_RETRY == 0) {
			__u64	h = 0;

			/*
			 * The first request carries the sample's user
			 * stack: when it ran the executable's code
			 * already (past the loader), one read of the
			 * maps is all the process needs.
			 */
			if ((cfg->flags & PROFILE_PID_F_NOTIFY) &&
			    cfg->collect_user)
				h = stack_store(ctx, BPF_F_USER_STACK,
				    PROFILE_STAT_USTACK_ERR, NULL, 0);
			cfg->flags &= ~PROFILE_PID_F_NOTIFY;
			event_send_arg(PROFILE_EVENT_SAMPLED, id >> 32, h);
		}
		stat_add(PROFILE_STAT_UNKNOWN_DROP, 1);
		return 0;
	}
	key.pid = id >> 32;
	key.tid = per_thread ? (__u32)id : 0;
	key.kind = PROFILE_KIND_CPU;
	if (per_thread)
		thread_comm_note(key.tid);
	if (cfg->collect_kernel && !sample_in_user_mode(ctx))
		key.kstack = stack_store(ctx, 0, PROFILE_STAT_KSTACK_ERR,
		    NULL, 0);
	if (cfg->collect_user && key.pid != 0)
		runtime_sample_stacks(ctx, task, cfg, &key);
	count_add(&key, 1);
	stat_add(PROFILE_STAT_COUNTED, 1);
	return 0;
}

/*
 * A thread leaves the CPU blocked: remember when and where, keyed by its
 * thread id.  It comes back: add the time to the stacks it blocked in.
 * Preemption of a runnable thread is not blocking and is not counted.
 *
 * This runs on every context switch of the machine, so it is written
 * for its cost.  Switch-in of a thread never seen blocked is one map
 * lookup.  A thread's entry is written in place and marked unused (ts
 * 0) when it comes back, not inserted and deleted on every wait: an
 * insert and a delete in a hash map cost a bucket lock and a free-list
 * round trip each.  The entry goes when the thread exits (on_exit), so
 * the map holds at most the live threads that have blocked, and an
 * insert that finds it full is counted (offcpu_start_full).  Only this
 * thread's own switches write its entry: its switch-out on the CPU it
 * leaves, then its switch-in, which the scheduler orders after it
 * (p->on_cpu), and its exit, from its own context.
 *
 * The two stack walks are what the remaining cost is made of; see
 * bench/README, offcpu-cost.sh, for their share.  Both are taken at
 * switch-out, where the thread is still current: the user stack of
 * another task cannot be walked, and the kernel stack walked later for
 * a sleeping task (bpf_get_task_stack) leaves out every function in
 * .sched.text (schedule_timeout, mutex_lock's slow path, rwsem and
 * completion waits, io_schedule...), the very frames that say what a
 * thread waited for.
 *
 * With btf (tp_btf) prev and next are trusted pointers and are read
 * directly; a raw tracepoint reads them through bpf_probe_read_kernel.
 */
#define TASK_READ(btf, t, f)	((btf) ? (t)->f : BPF_CORE_READ((t), f))

/*
 * Add the wait that sp holds, ended at end, and mark it closed.
 */
static __always_inline void
offcpu_count(struct profile_offcpu_start *sp, __u32 tid, __u64 end)
{
	struct profile_key		 key = {};
	__u64				 delta;

	delta = end > sp->ts ? end - sp->ts : 0;
	sp->ts = 0;
	key.pid = sp->pid;
	key.tid = per_thread ? tid : 0;
	key.kstack = sp->kstack;
	key.ustack = sp->ustack;
	key.pystack = sp->pystack;
	key.kind = PROFILE_KIND_OFFCPU;
	if (sp->pending) {
		struct profile_pid_config	*pc;

		pc = bpf_map_lookup_elem(&pid_config, &key.pid);
		if (pc != NULL && (pc->type == PROFILE_PID_UNKNOWN ||
		    (pc->flags & PROFILE_PID_F_PENDING)))
			key.kind = PROFILE_KIND_OFFCPU_PENDING;	/* still */
		else if (pc == NULL || !runtime_is_profiled(pc->type)) {
			stat_add(PROFILE_STAT_OFFCPU_PENDING_DROP, 1);
			return;
		}
	}
	if (delta < offcpu_min_ns) {
		stat_add(PROFILE_STAT_OFFCPU_SHORT, 1);
		return;
	}
	if (offcpu_max_ns != 0 && delta > offcpu_max_ns) {
		stat_add(PROFILE_STAT_OFFCPU_LONG, 1);
		return;
	}
	count_add(&key, delta);
	stat_add(PROFILE_STAT_OFFCPU_NS, delta);
}

/*
 * Close the wait that sp holds, seen to end by now: it ended the CPU
 * time the thread had since it blocked (ran - sp->ran) before now.
 * That is 0 unless the thread was switched in once already without a
 * sched_switch event (this VM does not trace some switches, perf sees
 * the same) and has run since.
 */
static __always_inline void
offcpu_close(struct profile_offcpu_start *sp, __u32 tid, __u64 now,
    __u64 ran)
{
	if (ran > sp->ran && ran - sp->ran < now)
		now -= ran - sp->ran;
	offcpu_count(sp, tid, now);
}

/* The thread comes back: its wait ends. */
static __always_inline void
offcpu_in(__u32 tid, __u64 ran)
{
	struct profile_offcpu_start	*sp;

	sp = bpf_map_lookup_elem(&offcpu_start, &tid);
	if (sp == NULL || sp->ts == 0)
		return;
	offcpu_close(sp, tid, bpf_ktime_get_ns(), ran);
}

static __always_inline void
offcpu_out(void *ctx, struct task_struct *prev, __u32 tgid, __u32 tid,
    __u32 flags, __u64 now, __u64 ran)
{
	struct profile_offcpu_start	*sp, start = {};
	struct profile_pid_config	*cfg;

	/* A wait still open: its end went untraced (offcpu_close()). */
	if ((sp = bpf_map_lookup_elem(&offcpu_start, &tid)) != NULL &&
	    sp->ts != 0) {
		stat_add(PROFILE_STAT_OFFCPU_UNSEEN_IN, 1);
		offcpu_close(sp, tid, now, ran);
	}
	if ((cfg = task_config_flags(tgid, flags, 1)) == NULL)
		return;
	/* prev is still current: its stacks are walked. */
	if (per_thread)
		thread_comm_note(tid);
	start.pid = tgid;
	start.pending = cfg->type == PROFILE_PID_UNKNOWN ||
	    (cfg->flags & PROFILE_PID_F_PENDING) != 0;
	if (start.pending ? collect_kernel : cfg->collect_kernel)
		start.kstack = stack_store(ctx, 0, PROFILE_STAT_KSTACK_ERR,
		    NULL, 0);
	if (start.pending ? collect_user : cfg->collect_user)
		start.ustack = ustack_store(ctx, cfg, tgid);
	/* A thread blocks in a runtime's code (Python's): where in it. */
	if (cfg->collect_user)
		runtime_offcpu_stacks(prev, cfg, tgid, &start);
	start.ts = now;
	start.ran = ran;
	if (sp != NULL)
		*sp = start;
	else if (bpf_map_update_elem(&offcpu_start, &tid, &start,
	    BPF_NOEXIST) != 0) {
		stat_add(PROFILE_STAT_OFFCPU_START_FULL, 1);
		return;
	}
	stat_add(PROFILE_STAT_OFFCPU_SWITCH, 1);
}

static __always_inline int
offcpu_switch(void *ctx, bool preempt, struct task_struct *prev,
    struct task_struct *next, unsigned int prev_state, const int btf)
{
	__u32	 tgid;

	if (!preempt && (prev_state & offcpu_states) != 0 &&
	    (tgid = TASK_READ(btf, prev, tgid)) != 0)
		offcpu_out(ctx, prev, tgid, TASK_READ(btf, prev, pid),
		    TASK_READ(btf, prev, flags), bpf_ktime_get_ns(),
		    TASK_READ(btf, prev, se.sum_exec_runtime));
	offcpu_in(TASK_READ(btf, next, pid),
	    TASK_READ(btf, next, se.sum_exec_runtime));
	return 0;
}

SEC("tp_btf/sched_switch")
int
BPF_PROG(offcpu_switch_btf, bool preempt, struct task_struct *prev,
    struct task_struct *next, unsigned int prev_state)
{
	return offcpu_switch(ctx, preempt, prev, next, prev_state, 1);
}

SEC("raw_tp/sched_switch")
int
BPF_PROG(offcpu_switch_raw, bool preempt, struct task_struct *prev,
    struct task_struct *next, unsigned int prev_state)
{
	return offcpu_switch(ctx, preempt, prev, next, prev_state, 0);
}

/*
 * exec: the pid runs a new image.  With exec_profiled it is profiled
 * natively at once, and its first sample is reported (NOTIFY, any
 * frame): userspace reads its maps then, and needs to hear of the exec
 * only before that.  Otherwise (targets_only) its samples are dropped
 * (the placeholder) until userspace has matched it and written its
 * config.
 */
SEC("raw_tp/sched_process_exec")
int
on_exec(void *ctx)
{
	struct profile_pid_config	 cfg = {};
	struct task_struct		*task;
	__u32				 pid;

	pid = bpf_get_current_pid_tgid() >> 32;
	if (exec_profiled) {
		cfg.type = PROFILE_PID_FP;
		cfg.collect_user = collect_user;
		cfg.collect_kernel = collect_kernel;
		cfg.flags = PROFILE_PID_F_NOTIFY | PROFILE_PID_F_PENDING;
		cfg.notify_lo = 0;
		cfg.notify_hi = ~0ULL;
	}
	if (bpf_map_update_elem(&pid_config, &pid, &cfg, BPF_ANY) != 0)
		stat_add(PROFILE_STAT_PID_MAP_FULL, 1);
	/* The old image's mappings would walk the new one's stacks. */
	bpf_map_delete_elem(&uw_procs, &pid);
	stat_add(PROFILE_STAT_EXEC, 1);
	/* Its parent: where its samples go if it is short-lived. */
	task = (struct task_struct *)bpf_get_current_task();
	event_send_args(PROFILE_EVENT_EXEC, pid, exec_profiled != 0,
	    BPF_CORE_READ(task, real_parent, tgid),
	    exec_profiled ? event_quiet_flags() : BPF_RB_FORCE_WAKEUP);
	return 0;
}

/*
 * exit: fires for every thread.  A thread's off-CPU start is dropped so
 * the map cannot leak; the process is reported once, when its last
 * thread goes (signal->live reached 0), whichever thread that is.
 */
SEC("raw_tp/sched_process_exit")
int
on_exit(void *ctx)
{
	struct profile_offcpu_start	*sp;
	struct task_struct		*task;
	__u64				 id;
	__u32				 tid, pid;

	id = bpf_get_current_pid_tgid();
	tid = (__u32)id;
	pid = id >> 32;
	task = (struct task_struct *)bpf_get_current_task();
	/* A wait whose end went untraced (offcpu_close()) ends here. */
	if ((sp = bpf_map_lookup_elem(&offcpu_start, &tid)) != NULL &&
	    sp->ts != 0) {
		stat_add(PROFILE_STAT_OFFCPU_UNSEEN_IN, 1);
		offcpu_close(sp, tid, bpf_ktime_get_ns(),
		    BPF_CORE_READ(task, se.sum_exec_runtime));
	}
	bpf_map_delete_elem(&offcpu_start, &tid);
	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	bpf_map_delete_elem(&uw_procs, &pid);
	/* Never seen: nothing to forget.  Else forgotten here and now. */
	if (bpf_map_delete_elem(&pid_config, &pid) != 0)
		return 0;
	stat_add(PROFILE_STAT_EXIT, 1);
	/* How long it lived, from its fork: is it a short command? */
	event_send_flags(PROFILE_EVENT_EXIT, pid, bpf_ktime_get_ns() -
	    BPF_CORE_READ(task, group_leader, start_time),
	    event_quiet_flags());
	return 0;
}
