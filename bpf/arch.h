/*
 * What differs between x86_64 and arm64, in one place (issue 32;
 * doc/arm64.md says what of arm64 is left to do).  ebpfspy runs on
 * x86_64 only: the arm64 parts here are written from the psABI, the
 * kernel's and glibc's sources, and checked by what runs here (the
 * table builder on aarch64 files, t/unit/t-unwind_arm64.c; this header
 * compiled for both BPF targets, t/t9004-arch-bpf.sh), never on an
 * arm64 machine.
 *
 * Two kinds of reader.  The BPF programs (bpf/unwind.bpf.h,
 * bpf/oncpu.bpf.h, bpf/pyperf.h) see __TARGET_ARCH_x86 or
 * __TARGET_ARCH_arm64 and vmlinux.h; the userspace sees __x86_64__ or
 * __aarch64__.  The table builder (src/unwind/) is neither: it reads
 * files of either architecture on any host, by their e_machine, so the
 * DWARF register numbers of both are here, unconditionally.
 *
 * Not here, because nothing differs: system calls are named through
 * the C library's SYS_* and __NR_* of the host; the vDSO is "[vdso]"
 * in /proc/PID/maps on both, an ELF image of the host's architecture
 * whose table the builder reads like any file's.
 */
#ifndef EBPFSPY_ARCH_H
#define EBPFSPY_ARCH_H

/*
 * DWARF register numbers of the CFA rules the unwind tables keep: the
 * frame pointer, the stack pointer, and the return address column.
 * arm64's return address is the link register x30, which a leaf
 * function never saves: its rows say so (UNWIND_RA_LR, bpf/unwind.h).
 */
#define ARCH_X86_64_DWARF_FP	6	/* rbp */
#define ARCH_X86_64_DWARF_SP	7	/* rsp */
#define ARCH_X86_64_DWARF_RA	16	/* the return address column */
#define ARCH_ARM64_DWARF_FP	29	/* x29 */
#define ARCH_ARM64_DWARF_RA	30	/* x30, the link register */
#define ARCH_ARM64_DWARF_SP	31	/* sp */

#if defined(__TARGET_ARCH_x86) || \
    (!defined(__TARGET_ARCH_arm64) && defined(__x86_64__))
#define ARCH_X86_64		1
#elif defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
#define ARCH_ARM64		1
#endif

#if defined(ARCH_X86_64)
/* Above this, an address is not user space (4-level paging or 5). */
#define ARCH_USER_MAX		0x00ffffffffffffffULL
/* A return address as it is on the stack. */
#define ARCH_RA_STRIP(ra)	(ra)
/* The relocation a position-independent pointer gets (Go's moduledata). */
#define ARCH_R_RELATIVE		8	/* R_X86_64_RELATIVE */
/*
 * glibc 2.27+: struct pthread's specific_1stblock and specific, from
 * the thread pointer (fs_base), which points at struct pthread.
 */
#define ARCH_PY_TSD		1
#define ARCH_PY_TSD_FIRST	0x310
#define ARCH_PY_TSD_SECOND	0x510
#elif defined(ARCH_ARM64)
/* 52-bit virtual addresses at most. */
#define ARCH_USER_MAX		0x000fffffffffffffULL
/*
 * With pointer authentication (Debian builds with
 * -mbranch-protection=standard) a saved x30 carries a signature above
 * the address: strip what a 48-bit address space leaves over.  A
 * kernel with 52-bit addresses would need its mask (ptrace's
 * NT_ARM_PAC_MASK) from userspace.
 */
#define ARCH_RA_STRIP(ra)	((ra) & 0x0000ffffffffffffULL)
#define ARCH_R_RELATIVE		1027	/* R_AARCH64_RELATIVE */
/*
 * glibc on arm64 puts struct pthread below the thread pointer
 * (tpidr_el0, TLS_DTV_AT_TP): the offsets are from tp minus its size,
 * which nobody has measured on an arm64 glibc yet.  Python is refused
 * until then (src/python/python.c).
 */
#define ARCH_PY_TSD		0
#define ARCH_PY_TSD_FIRST	0
#define ARCH_PY_TSD_SECOND	0
#else
#define ARCH_USER_MAX		0x00ffffffffffffffULL
#define ARCH_RA_STRIP(ra)	(ra)
#define ARCH_R_RELATIVE		0
#define ARCH_PY_TSD		0
#define ARCH_PY_TSD_FIRST	0
#define ARCH_PY_TSD_SECOND	0
#endif

#if defined(__TARGET_ARCH_x86) || defined(__TARGET_ARCH_arm64)
/*
 * The BPF side: the user registers a walk starts from (the task's
 * struct pt_regs, bpf_task_pt_regs), whether a perf sample interrupted
 * user mode (the sample's bpf_user_pt_regs_t), the thread pointer, and
 * a signal frame's saved registers.  ARCH_REGS_LR is the caller's
 * return address while the first frame has not saved it: x30 on
 * arm64; x86_64 has none (0), its call pushes the address.
 */
#if defined(__TARGET_ARCH_x86)
#define ARCH_REGS_IP(r)		((r)->ip)
#define ARCH_REGS_SP(r)		((r)->sp)
#define ARCH_REGS_FP(r)		((r)->bp)
#define ARCH_REGS_LR(r)		0
/* HotSpot's interpreter keeps the bytecode pointer in r13. */
#define ARCH_REGS_BCP(r)	((r)->r13)
/* The context only allows whole-word loads; cs is a u16. */
#define ARCH_CTX_USER_MODE(ctx)	((*(volatile __u64 *)((char *)&(ctx)->regs + \
	__builtin_offsetof(struct pt_regs, cs)) & 3) == 3)
#define ARCH_THREAD_POINTER(task) BPF_CORE_READ(task, thread.fsbase)
/*
 * __restore_rt's frame: the ucontext at rsp, its uc_mcontext at +40;
 * there rbp rbx rdx rax rcx rsp rip from +80.
 */
#define ARCH_SIG_REGS		(40 + 80)
#define ARCH_SIG_NREGS		7	/* __u64s read from ARCH_SIG_REGS */
#define ARCH_SIG_FP		0
#define ARCH_SIG_LR		(-1)	/* none */
#define ARCH_SIG_SP		5
#define ARCH_SIG_IP		6
#else
#define ARCH_REGS_IP(r)		((r)->pc)
#define ARCH_REGS_SP(r)		((r)->sp)
#define ARCH_REGS_FP(r)		((r)->regs[29])
#define ARCH_REGS_LR(r)		((r)->regs[30])
#define ARCH_REGS_BCP(r)	0	/* HotSpot is walked on x86_64 only */
/* PSTATE's mode bits: 0 is EL0t, user mode. */
#define ARCH_CTX_USER_MODE(ctx)	((*(volatile __u64 *)((char *)&(ctx)->regs + \
	__builtin_offsetof(struct user_pt_regs, pstate)) & 0xf) == 0)
#define ARCH_THREAD_POINTER(task) BPF_CORE_READ(task, thread.uw.tp_value)
/*
 * __kernel_rt_sigreturn's frame: struct rt_sigframe at sp, a siginfo
 * (128 bytes) then the ucontext, whose uc_mcontext (at +176) holds
 * fault_address, then regs[31], sp, pc: read from regs[29] on, x29
 * x30 sp pc side by side.
 */
#define ARCH_SIG_REGS		(128 + 176 + 8 + 29 * 8)
#define ARCH_SIG_NREGS		4	/* __u64s read from ARCH_SIG_REGS */
#define ARCH_SIG_FP		0
#define ARCH_SIG_LR		1
#define ARCH_SIG_SP		2
#define ARCH_SIG_IP		3
#endif
#endif

#endif
