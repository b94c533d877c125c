/*
 * Types shared by the BPF programs (bpf/profile.bpf.c) and the daemon.
 * Fixed-width types only: this header is compiled by clang -target bpf
 * against vmlinux.h and by cc against <linux/types.h>.
 */
#ifndef EBPFSPY_PROFILE_H
#define EBPFSPY_PROFILE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define PROFILE_STACK_DEPTH	127
#define PROFILE_COMM_LEN	16

/* How a process is profiled, written by userspace into pid_config. */
enum profile_pid_type {
	PROFILE_PID_UNKNOWN = 0,	/* placeholder: request sent, no answer */
	PROFILE_PID_NONE = 1,		/* not profiled: no stack walk */
	PROFILE_PID_FP = 2,		/* frame-pointer native stacks */
	PROFILE_PID_PYTHON = 3,		/* CPython frames (pyperf) */
	PROFILE_PID_ERROR = 4,		/* evaluation failed: not profiled */
};

struct profile_pid_config {
	__u8	type;			/* enum profile_pid_type */
	__u8	collect_user;
	__u8	collect_kernel;
	__u8	flags;			/* PROFILE_PID_F_* */
	__u32	pad;
	__u64	notify_lo;		/* NOTIFY: the executable's code */
	__u64	notify_hi;
};

/*
 * Tell userspace when a user stack of this pid first holds a frame of
 * its executable's code [notify_lo, notify_hi).  Set after an exec: the
 * maps read then hold the binary and the loader but not the shared
 * libraries the loader is about to map; once the program's own code
 * runs, the loader has mapped them, and the maps are worth reading
 * again while the process is still alive.
 */
#define PROFILE_PID_F_NOTIFY	0x1

/* What a count measures. */
enum profile_kind {
	PROFILE_KIND_CPU = 0,		/* samples */
	PROFILE_KIND_OFFCPU = 1,	/* nanoseconds blocked */
	PROFILE_KIND_MAX = 2,
};

/*
 * Key of the counts map.  Stacks are content-addressed: a stack's id is a
 * 64-bit hash of its frames, and the frames are stored once in the stacks
 * map under that id.  Unlike a BPF stack-trace map's bucket index, two
 * different stacks practically never share an id, so no sample is ever
 * given another stack's frames or dropped for a bucket collision.
 * An id of 0 means "no stack" (not collected, or the walk failed).
 */
struct profile_key {
	__u32	pid;			/* tgid */
	__u32	tid;			/* thread id, or 0 unless per-thread */
	__u64	kstack;
	__u64	ustack;
	__u32	kind;			/* enum profile_kind */
	__u32	pad;
};

struct profile_stack {
	__u64	ip[PROFILE_STACK_DEPTH];
};

/* Events sent through the BPF ring buffer. */
enum profile_event_type {
	PROFILE_EVENT_UNKNOWN_PID = 1,	/* first sample of a pid */
	PROFILE_EVENT_EXEC = 2,
	PROFILE_EVENT_EXIT = 3,		/* the whole process is gone */
	PROFILE_EVENT_SAMPLED = 4,	/* first sample since NOTIFY was set */
};

struct profile_event {
	__u32	type;
	__u32	pid;
	char	comm[PROFILE_COMM_LEN];
};

/* Off-CPU: when and where a thread blocked, keyed by thread id. */
struct profile_offcpu_start {
	__u64	ts;
	__u64	kstack;
	__u64	ustack;
	__u32	pid;
	__u32	pending;	/* pid had no config yet: check at wakeup */
};

/* Per-CPU counters in the stats array map. */
enum profile_stat {
	PROFILE_STAT_SAMPLES = 0,	/* perf samples seen */
	PROFILE_STAT_COUNTED,		/* samples added to counts */
	PROFILE_STAT_IDLE,		/* idle task samples skipped */
	PROFILE_STAT_KTHREAD,		/* kernel thread samples skipped */
	PROFILE_STAT_NOT_PROFILED,	/* pid config says not profiled */
	PROFILE_STAT_UNKNOWN_PID,	/* unknown pid requests sent */
	PROFILE_STAT_UNKNOWN_DROP,	/* samples of pids awaiting config */
	PROFILE_STAT_PID_MAP_FULL,	/* placeholder insert failed */
	PROFILE_STAT_COUNTS_FULL,	/* counts map full: sample lost */
	PROFILE_STAT_STACKS_FULL,	/* stacks map full: stack lost */
	PROFILE_STAT_USTACK_ERR,	/* user stack walk failed */
	PROFILE_STAT_KSTACK_ERR,	/* kernel stack walk failed */
	PROFILE_STAT_RINGBUF_LOST,	/* event not taken by ring buffer */
	PROFILE_STAT_EXEC,		/* exec events */
	PROFILE_STAT_EXIT,		/* process exit events */
	PROFILE_STAT_OFFCPU_SWITCH,	/* blocked switches recorded */
	PROFILE_STAT_OFFCPU_NS,		/* blocked nanoseconds counted */
	PROFILE_STAT_OFFCPU_START_FULL,	/* start map full: wait lost */
	PROFILE_STAT_OFFCPU_SHORT,	/* waits below the minimum */
	PROFILE_STAT_OFFCPU_LONG,	/* waits above the maximum */
	PROFILE_STAT_EXITING,		/* samples of exiting tasks skipped */
	PROFILE_STAT_OFFCPU_PENDING_DROP, /* pending wait, not profiled */
	PROFILE_STAT_MAX
};

/* offcpu_states bits, matching the kernel's TASK_* state bits. */
#define PROFILE_TASK_INTERRUPTIBLE	0x1
#define PROFILE_TASK_UNINTERRUPTIBLE	0x2

#endif
