/*
 * The walk that the sample and the off-CPU programs share: stacks stored
 * under the hash of their frames and sent to userspace once a round, the
 * user stack by unwind tables (unwind.bpf.h) or frame pointers, a
 * runtime's frames by its walker (runtime.bpf.h), the counts, and which
 * task is looked at at all.
 */
#ifndef EBPFSPY_STACK_BPF_H
#define EBPFSPY_STACK_BPF_H

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

#endif
