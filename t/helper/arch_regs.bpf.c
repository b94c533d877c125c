/*
 * bpf/arch.h's BPF macros, each in a function of its own, compiled by
 * t/t9004-arch-bpf.sh for -D__TARGET_ARCH_x86 and
 * -D__TARGET_ARCH_arm64 against t/helper/arch-vmlinux/vmlinux.h (x86 also
 * against bpf/vmlinux/x86/vmlinux.h); the test reads
 * the offsets of the loads in the disassembly.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "arch.h"

char LICENSE[] SEC("license") = "GPL";

/* One function a register, its load's offset read by the test. */
#define ARCH_REG_FN(name, macro)					\
	__noinline __u64 name(struct pt_regs *r) { return macro(r); }

ARCH_REG_FN(arch_ip, ARCH_REGS_IP)
ARCH_REG_FN(arch_sp, ARCH_REGS_SP)
ARCH_REG_FN(arch_fp, ARCH_REGS_FP)
ARCH_REG_FN(arch_lr, ARCH_REGS_LR)

__noinline int
arch_user(struct bpf_perf_event_data *ctx)
{
	return ARCH_CTX_USER_MODE(ctx);
}

__noinline __u64
arch_tp(struct task_struct *task)
{
	return ARCH_THREAD_POINTER(task);
}

__noinline __u64
arch_strip(__u64 ra)
{
	return ARCH_RA_STRIP(ra) + ARCH_USER_MAX + ARCH_SIG_REGS +
	    ARCH_SIG_NREGS + ARCH_SIG_FP + ARCH_SIG_SP + ARCH_SIG_IP;
}

/*
 * The table walker itself, with the shared maps of bpf/maps.bpf.h: for
 * arm64, the one compile its code gets.
 */
#include "profile.h"
#include "maps.bpf.h"
#include "unwind.bpf.h"

SEC("perf_event")
int
arch_walk(struct bpf_perf_event_data *ctx)
{
	return uw_walk_user(1);
}
