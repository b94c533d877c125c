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

#include "arch.h"
#include "profile.h"

#define PF_EXITING	0x00000004
#define PF_KTHREAD	0x00200000

char LICENSE[] SEC("license") = "GPL";

/*
 * The programs, each in a file of its own, and what they share.  One
 * object, one skeleton: they share the maps and the knobs.
 */
#include "maps.bpf.h"
#include "stack.bpf.h"
#include "oncpu.bpf.h"
#include "offcpu.bpf.h"

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
