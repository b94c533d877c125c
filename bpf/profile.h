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

#include "hash.h"		/* bpf/hash.h: hash_mix() */

#define PROFILE_STACK_DEPTH	127
/*
 * Bits of the stack_seen tags (bpf/profile.bpf.c) that hold the
 * generation; the others hold the stack id's.
 */
#define PROFILE_STACK_GEN_MASK	0xffffULL
#define PROFILE_COMM_LEN	16

/* How a process is profiled, written by userspace into pid_config. */
enum profile_pid_type {
	PROFILE_PID_UNKNOWN = 0,	/* placeholder: request sent, no answer */
	PROFILE_PID_NONE = 1,		/* not profiled: no stack walk */
	PROFILE_PID_FP = 2,		/* frame-pointer native stacks */
	PROFILE_PID_PYTHON = 3,		/* CPython frames (pyperf) */
	PROFILE_PID_ERROR = 4,		/* evaluation failed: not profiled */
	PROFILE_PID_V8 = 5,		/* native, with V8 frame records */
};

struct profile_pid_config {
	__u8	type;			/* enum profile_pid_type */
	__u8	collect_user;
	__u8	collect_kernel;
	__u8	flags;			/* PROFILE_PID_F_* */
	__u32	dropped;		/* PENDING: samples dropped so far */
	__u64	notify_lo;		/* NOTIFY: the executable's code */
	__u64	notify_hi;
};

/*
 * Tell userspace when a user stack of this pid first holds a frame in
 * [notify_lo, notify_hi), with the stack's id.  Set after an exec with
 * the whole address space: userspace reads a process's maps and symbol
 * tables at its first sample, not at its exec, so a process that never
 * runs on a sampled CPU costs nothing.  Set again with the executable's
 * code when that first sample was still in the loader: the maps read
 * then lacked the shared libraries the loader was about to map; once
 * the program's own code runs, they are mapped, and worth reading again
 * while the process is still alive.
 */
#define PROFILE_PID_F_NOTIFY	0x1
/*
 * Not looked at yet (set with NOTIFY after an exec): its on-CPU samples
 * are dropped, and its off-CPU waits kept as pending, until userspace
 * has read its maps and rewritten its config, as for an unknown pid: a
 * sample counted before then could not be named once the process is
 * gone.
 */
#define PROFILE_PID_F_PENDING	0x2
/* A PENDING pid that userspace has not answered is asked about again. */
#define PROFILE_PENDING_RETRY	64

/* What a count measures. */
enum profile_kind {
	PROFILE_KIND_CPU = 0,		/* samples */
	PROFILE_KIND_OFFCPU = 1,	/* nanoseconds blocked */
	/*
	 * A wait that began and ended before userspace answered its pid:
	 * userspace counts it as OFFCPU if the pid turned out profiled.
	 */
	PROFILE_KIND_OFFCPU_PENDING = 2,
	PROFILE_KIND_MAX = 3,
};

/*
 * Key of the counts map.  Stacks are content-addressed: a stack's id is a
 * 64-bit hash of its frames, and the frames are sent under that id
 * through the stack ring (stack_rb), once a generation.  Unlike a BPF
 * stack-trace map's bucket index, two different stacks practically
 * never share an id, so no sample is ever given another stack's frames
 * or dropped for a bucket collision.
 * An id of 0 means "no stack" (not collected, or the walk failed).
 */
struct profile_key {
	__u32	pid;			/* tgid */
	__u32	tid;			/* thread id, or 0 unless per-thread */
	__u64	kstack;
	__u64	ustack;
	__u64	pystack;		/* the runtime's stack: Python frames
					   (bpf/pyperf.h) or the records of
					   runtime frames (bpf/rtframe.bpf.h) */
	__u32	kind;			/* enum profile_kind */
	__u32	pad;
};

/* Frames leaf first, then 0s up to the end of the value. */
struct profile_stack {
	__u64	ip[PROFILE_STACK_DEPTH];
};

/*
 * A record of the stack ring: only the n frames walked are sent, so a
 * record is 16 + 8 * n bytes.  BPF walks the stack into a whole one.
 */
struct profile_stack_rec {
	__u64	id;
	__u32	n;
	__u32	pad;
	__u64	ip[PROFILE_STACK_DEPTH];
};

/* Events sent through the BPF ring buffer. */
enum profile_event_type {
	PROFILE_EVENT_UNKNOWN_PID = 1,	/* first sample of a pid */
	PROFILE_EVENT_EXEC = 2,
	PROFILE_EVENT_EXIT = 3,		/* the whole process is gone */
	PROFILE_EVENT_SAMPLED = 4,	/* NOTIFY hit: the stack's id in arg */
	PROFILE_EVENT_PYSTACK = 5,	/* a new Python stack: id in arg */
	PROFILE_EVENT_UNWIND_MAPS = 6,	/* the unwinder met code in no
					   mapping it knows (a library
					   loaded since): the pc in arg */
};

struct profile_event {
	__u32	type;
	__u32	pid;
	char	comm[PROFILE_COMM_LEN];
	__u64	arg;			/* PYSTACK: the Python stack's id;
					   SAMPLED: the user stack's id;
					   EXEC: 1 if BPF profiles it
					   already (exec_profiled);
					   EXIT: its lifetime, ns */
	__u64	arg2;			/* PYSTACK: the native stack's id;
					   EXEC: its parent's pid */
};

/*
 * Off-CPU: when and where a thread blocked, keyed by thread id.  The
 * entry stays while the thread lives; ts is 0 while it is not blocked.
 */
struct profile_offcpu_start {
	__u64	ts;
	__u64	ran;		/* the thread's CPU time (sum_exec_runtime) */
	__u64	kstack;
	__u64	ustack;
	__u64	pystack;
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
	PROFILE_STAT_STACKS_FULL,	/* stack ring full: stack lost */
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
	PROFILE_STAT_PY_STACKS,		/* Python stacks walked */
	PROFILE_STAT_PY_NO_THREAD,	/* thread without a Python state */
	PROFILE_STAT_PY_READ_ERR,	/* Python frame read failed */
	PROFILE_STAT_PY_TRUNCATED,	/* deeper than [python] depth */
	PROFILE_STAT_PY_STACKS_FULL,	/* pystacks map full: stack lost */
	PROFILE_STAT_OFFCPU_UNSEEN_IN,	/* wait ended by an untraced switch */
	PROFILE_STAT_RT_STACKS,		/* stacks with runtime frame records */
	PROFILE_STAT_RT_FRAMES,		/* runtime frames recorded */
	PROFILE_STAT_RT_NOT_FUNC,	/* V8 frame: no JSFunction at fp-16 */
	PROFILE_STAT_RT_READ_ERR,	/* runtime frame or object unreadable */
	PROFILE_STAT_RT_TRUNCATED,	/* more records than PROFILE_RT_DEPTH */
	PROFILE_STAT_RT_STACKS_FULL,	/* rtstacks map full: records lost */
	PROFILE_STAT_RT_JVM_NO_BLOB,	/* pc in a code cache, no blob at it */
	PROFILE_STAT_RT_JVM_BAD_RA,	/* a Java frame's return address is
					   not in the code cache: stopped */
	PROFILE_STAT_MAX
};

/*
 * Python (bpf/pyperf.h, src/python/python.c).  Userspace writes what the walker
 * needs to know of a process's interpreter into py_info; the walker
 * stores each stack of interpreter frames under a hash of its content,
 * as native stacks are, and names nothing: userspace reads the code
 * objects.
 */
#define PROFILE_PY_DEPTH	128	/* frames kept; [python] depth <= */

enum profile_py_kind {
	PROFILE_PY_FRAMEOBJ = 1,	/* 3.8-3.10: PyFrameObject chain */
	PROFILE_PY_IFRAME = 2,		/* 3.11+: _PyInterpreterFrame */
};

/* One interpreter: addresses, and the offsets of its fields in bytes. */
struct profile_py_info {
	__u64	runtime;		/* address of _PyRuntime */
	__u64	code_type;		/* address of PyCode_Type */
	__u64	serial;			/* of the writer, src/python/python.c */
	__u64	text_lo;		/* the interpreter's code */
	__u64	text_hi;
	__u8	kind;			/* enum profile_py_kind */
	__u8	has_cframe;		/* 3.11/3.12: tstate->cframe first */
	__u8	has_owner;		/* 3.12+: skip shim frames */
	__u8	self_type;		/* 3.8-3.10: record type(first arg) */
	__u16	tss_key;		/* Py_tss_t autoTSSkey in _PyRuntime */
	__u16	ts_frame;		/* tstate->frame/cframe/current_frame */
	__u16	cframe_frame;		/* _PyCFrame.current_frame */
	__u16	f_code;			/* f_code / f_executable */
	__u16	f_back;			/* f_back / previous */
	__u16	f_instr;		/* f_lasti / prev_instr / instr_ptr */
	__u16	f_owner;
	__u16	f_localsplus;
	__u16	co_argcount;
	__u16	co_firstlineno;
	__u16	co_filename;
	__u16	co_name;
	__u16	co_code;		/* co_code_adaptive (3.11+) */
	__u16	tsd_first;		/* glibc: pthread specific_1stblock */
	__u16	tsd_second;		/* glibc: pthread specific[] */
	__u16	pad[3];
};

/*
 * One frame: the code object, where in it (raw: f_lasti for 3.8-3.10,
 * the byte offset of the instruction pointer from co_code_adaptive for
 * 3.11+), and a check of the code object's head, so that userspace can
 * tell a code object freed and replaced at the same address.
 */
struct profile_py_frame {
	__u64	code;
	__u64	self_type;		/* 3.8-3.10: type of self, or 0 */
	__s32	lasti;
	__u32	check;
};

#define PROFILE_PY_F_TRUNCATED	0x1	/* outer frames were dropped */

/*
 * The check of a code object: its first line, argument count, and the
 * addresses of its name and file name strings, mixed.  Computed by the
 * walker from the code object it saw and by userspace from the one it
 * reads: a different object at a reused address does not match.
 */
static inline __u32
profile_py_check(__u64 name, __u64 filename, __u32 firstlineno,
    __u32 argcount)
{
	__u64	h;

	h = hash_mix(name ^ (filename << 7) ^ ((__u64)firstlineno << 32) ^
	    argcount);
	return (__u32)h ^ (__u32)(h >> 32);
}

struct profile_pystack {
	__u32			n;
	__u32			flags;		/* PROFILE_PY_F_* */
	struct profile_py_frame	f[PROFILE_PY_DEPTH];
};

/*
 * Runtime frames that are native frames too (V8 today, HotSpot next:
 * /work/shared/notes/jvm-v8.md): the native walker (bpf/unwind.bpf.h)
 * steps over them by frame pointer, and for each one it appends a
 * record of what the runtime says ran there, tagged with the index of
 * its native frame.  The records of a walk are stored content-addressed
 * in rtstacks, their id in the counts key's pystack beside the native
 * stack's; userspace names each recorded native frame by its record.
 */
#define PROFILE_RT_DEPTH	128	/* records kept; a power of 2 */

enum profile_rt_kind {
	PROFILE_RT_V8_INTERP = 1,	/* ptr SFI, offset: bytecode offset */
	PROFILE_RT_V8_JIT = 2,		/* ptr SFI, offset: pc - code start;
					   check: the Code object's low bits */
	PROFILE_RT_JVM_INTERP = 3,	/* ptr Method*, offset: bci (~0: none);
					   check: its ConstMethod* >> 3 */
	PROFILE_RT_JVM_JIT = 4,		/* ptr nmethod*, offset: pc - it;
					   check: its compile id */
	PROFILE_RT_JVM_STUB = 5,	/* ptr the CodeBlob: no method */
};

struct profile_rt_frame {
	__u64	ptr;		/* the runtime's object naming the frame */
	__u32	offset;		/* where in it: bytecode offset, bci, pc */
	__u32	check;		/* for userspace: the object is the one */
	__u16	index;		/* of its native frame in the user stack */
	__u8	kind;		/* enum profile_rt_kind */
	__u8	pad[5];
};

struct profile_rtstack {
	__u32			n;
	__u32			flags;		/* PROFILE_PY_F_TRUNCATED */
	struct profile_rt_frame	f[PROFILE_RT_DEPTH];
};

/*
 * What the walker needs of one V8 (src/v8/v8.c): where its code is and
 * the v8dbg_ constants of its frames and objects.  Offsets of heap
 * objects are from the object's untagged address.
 */
struct profile_v8_info {
	__u64	builtins_lo;		/* embedded builtins: addresses in */
	__u64	builtins_hi;		/* the file (pc - bias) */
	__u64	serial;			/* of the writer */
	__u16	type_func_lo;		/* JSFunction instance types */
	__u16	type_func_hi;		/* inclusive */
	__u16	type_sfi;
	__u16	type_code;
	__u16	type_bytecode;
	__u16	map;			/* HeapObject::map */
	__u16	map_type;		/* Map::instance_type (u16) */
	__u16	func_shared;		/* JSFunction::shared */
	__u16	func_code;		/* JSFunction::code */
	__u16	code_start;		/* Code: instruction start pointer,
					   or inline start when code_inline */
	__u8	code_inline;		/* start = Code + code_start */
	__u8	pad[3];
	__s16	fp_function;		/* -16 */
	__s16	fp_bytecode_array;	/* -32 */
	__s16	fp_bytecode_offset;	/* -40 */
	__s16	fp_context;		/* -8: marker when bit 0 clear */
};

/*
 * What the walker needs of one HotSpot JVM (src/jvm/jvm_runtime.c): its
 * code heaps with their segment maps, and the offsets of the CodeBlob
 * and nmethod fields it reads, from the JVM's own vmStructs.
 */
#define PROFILE_JVM_HEAPS	4

struct profile_jvm_heap {
	__u64	low;			/* reserved: the heap grows up to */
	__u64	high;
	__u64	segmap;			/* one byte a segment */
	__u32	shift;			/* log2 of a segment's size */
	__u32	pad;
};

struct profile_jvm_info {
	__u64			cc_low;		/* every heap's span */
	__u64			cc_high;
	struct profile_jvm_heap	heap[PROFILE_JVM_HEAPS];
	__u32			nheaps;
	__u16			heapblock_size;	/* the blob after it */
	__u16			cb_name;	/* const char* */
	__u16			cb_frame_size;	/* int, in words */
	__u16			cb_frame_complete; /* from the code */
	__u16			cb_code_begin;	/* pointer, or int offset */
	__u16			nm_compile_id;	/* int */
	__u16			method_constmethod;
	__u16			cm_size;	/* the bytecodes after it */
	__u8			cb_frame_complete_size; /* 2 or 4 */
	__u8			cb_code_ptrs;	/* code begin a pointer */
	__s8			fp_method;	/* interpreter frame: -24 */
	__s8			fp_bcp;		/* -64: bytes from rbp */
};

/* offcpu_states bits, matching the kernel's TASK_* state bits. */
#define PROFILE_TASK_INTERRUPTIBLE	0x1
#define PROFILE_TASK_UNINTERRUPTIBLE	0x2

#endif
