/*
 * Where a runtime's walker plugs into the stack walk, #included by
 * bpf/profile.bpf.c after its helpers: the one place the programs ask
 * which runtime a pid runs.  A pid of a runtime's type (struct
 * runtime_ops's pid_type, src/runtime/runtime.h) is profiled as a
 * native one is, and its walker adds a stack of its own beside the
 * native one: pyperf.h's for CPython.  A new runtime's walker is its
 * header, included here, and a case in each function below (its type
 * in RUNTIME_PID_CASES).  One that is a step of the native walk instead
 * (V8, HotSpot) records its frames in the native walk
 * (rtframe.bpf.h), and its pid type only says that the records of the
 * walk are stored beside the native stack.
 */
#ifndef EBPFSPY_RUNTIME_BPF_H
#define EBPFSPY_RUNTIME_BPF_H

#include "pyperf.h"

/* The pid types of the runtimes' walkers, as case labels. */
#define RUNTIME_PID_CASES	case PROFILE_PID_PYTHON: case PROFILE_PID_V8:

/* Defined below in profile.bpf.c. */
static __always_inline int sample_in_user_mode(struct bpf_perf_event_data *);

/* Is a pid of this type profiled: natively, or by a runtime's walker? */
static __always_inline int
runtime_is_profiled(__u8 type)
{
	return type == PROFILE_PID_FP || type == PROFILE_PID_PYTHON ||
	    type == PROFILE_PID_V8;
}

/*
 * A sample's user stacks: the native one, and its runtime's.  Python:
 * in the interpreter's own code no native frame runs above Python, so
 * the native stack is walked only if the thread runs no Python.
 */
static __always_inline void
runtime_sample_stacks(struct bpf_perf_event_data *ctx,
    struct task_struct *task, struct profile_pid_config *cfg,
    struct profile_key *key)
{
	int	py = cfg->type == PROFILE_PID_PYTHON, inside = 0;

	if (py && sample_in_user_mode(ctx) &&
	    py_in_interpreter(key->pid, PT_REGS_IP(&ctx->regs))) {
		inside = 1;
		key->pystack = py_stack_store(task, key->pid, 0);
	}
	if (key->pystack == 0)
		key->ustack = ustack_store(ctx, cfg, key->pid);
	/*
	 * V8: the records the native walk just made (rtframe.bpf.h).  No
	 * test of the pid's type here: a value live across the walk would
	 * double the states the verifier checks it in.
	 */
	if (key->pystack == 0)
		key->pystack = rt_stack_taken();
	if (py && !inside)
		key->pystack = py_stack_store(task, key->pid, key->ustack);
}

/* A thread blocks: where in its runtime's code, beside its ustack. */
static __always_inline void
runtime_offcpu_stacks(struct task_struct *prev,
    struct profile_pid_config *cfg, __u32 tgid,
    struct profile_offcpu_start *start)
{
	if (cfg->type == PROFILE_PID_PYTHON)
		start->pystack = py_stack_store(prev, tgid, start->ustack);
	else
		start->pystack = rt_stack_taken();
}

#endif
