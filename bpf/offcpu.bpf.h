/*
 * Off-CPU: the sched_switch programs, the time a thread was blocked by
 * the stacks it blocked in.
 */
#ifndef EBPFSPY_OFFCPU_BPF_H
#define EBPFSPY_OFFCPU_BPF_H

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

	/*
	 * next's wait closes first: with prev's reads live meanwhile, a
	 * raw_tp program's stack went over the 512 bytes.
	 */
	offcpu_in(TASK_READ(btf, next, pid),
	    TASK_READ(btf, next, se.sum_exec_runtime));
	if (!preempt && (prev_state & offcpu_states) != 0 &&
	    (tgid = TASK_READ(btf, prev, tgid)) != 0)
		offcpu_out(ctx, prev, tgid, TASK_READ(btf, prev, pid),
		    TASK_READ(btf, prev, flags), bpf_ktime_get_ns(),
		    TASK_READ(btf, prev, se.sum_exec_runtime));
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

#endif
