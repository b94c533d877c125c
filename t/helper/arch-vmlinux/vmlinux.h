/*
 * The few kernel types bpf/arch.h reads, for t/t9004-arch-bpf.sh: x86's
 * and arm64's, laid out as each kernel's are (arch/x86/include/asm/
 * ptrace.h, arch/arm64/include/uapi/asm/ptrace.h, processor.h), so that
 * the offsets the macros compile to can be checked.  There is no arm64
 * vmlinux.h to compile the BPF programs against (doc/arm64.md); this is
 * the part of one the architecture header needs.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;

enum bpf_func_id { BPF_FUNC_probe_read_kernel = 113 };
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};
enum {
	BPF_NOEXIST = 1,
	BPF_F_NO_PREALLOC = 1,
	BPF_F_MMAPABLE = 1024,
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
	BPF_RB_AVAIL_DATA = 0,
	BPF_RB_RING_SIZE = 1,
};

#pragma clang attribute push (__attribute__((preserve_access_index)), \
	apply_to = record)
#if defined(__TARGET_ARCH_x86)
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip;
	unsigned short cs, __csh;
	unsigned int __pad;
	unsigned long flags, sp;
	unsigned short ss, __ssh;
};
typedef struct pt_regs bpf_user_pt_regs_t;
struct thread_struct {
	unsigned long sp;
	unsigned short es, ds, fsindex, gsindex;
	unsigned long fsbase;
};
#else
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
struct pt_regs {
	union {
		struct user_pt_regs user_regs;
		struct {
			__u64 regs[31];
			__u64 sp;
			__u64 pc;
			__u64 pstate;
		};
	};
	__u64 orig_x0;
};
typedef struct user_pt_regs bpf_user_pt_regs_t;
struct thread_struct {
	struct { unsigned long tp_value, tp2_value; } uw;
};
#endif
struct bpf_perf_event_data {
	bpf_user_pt_regs_t regs;
	__u64 sample_period;
	__u64 addr;
};
struct task_struct {
	int pid;
	struct thread_struct thread;
};
#pragma clang attribute pop

#endif
