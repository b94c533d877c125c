/*
 * On-CPU: the program of the software cpu-clock perf event, one sample of
 * the current task's stacks each tick.
 */
#ifndef EBPFSPY_ONCPU_BPF_H
#define EBPFSPY_ONCPU_BPF_H

/* A sample taken in user mode has no kernel stack to walk. */
static __always_inline int
sample_in_user_mode(struct bpf_perf_event_data *ctx)
{
#if defined(ARCH_CTX_USER_MODE)
	return ARCH_CTX_USER_MODE(ctx);
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

#endif
