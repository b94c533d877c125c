/*
 * Unwind tables shared by the table builder (src/unwind_table.c), the
 * daemon that loads them (src/unwind_maps.c) and the BPF walker
 * (bpf/unwind.bpf.h).  x86_64 only.  Addresses in a file's table are
 * ELF virtual addresses of that file; the walker converts a runtime pc
 * with the mapping's bias (vaddr = pc - bias).
 * The format is fixed by /work/notes/unwind-format.md: change it only
 * with the agreement of both sides.
 * Fixed-width types only: compiled by clang -target bpf against
 * vmlinux.h and by cc against <linux/types.h>.
 */
#ifndef EBPFSPY_UNWIND_H
#define EBPFSPY_UNWIND_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define UNWIND_PAGE_SHIFT   16          /* 64 KiB pages of vaddr */
enum unwind_kind {                       /* struct unwind_row.kind */
    UNWIND_CFA_RSP = 0,     /* CFA = rsp + cfa_off */
    UNWIND_CFA_RBP = 1,     /* CFA = rbp + cfa_off */
    UNWIND_PLT = 2,         /* CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0) */
    UNWIND_DEREF = 3,       /* CFA = *(rsp + cfa_off) + 8 (OpenSSL realign) */
    UNWIND_SIGNAL = 4,      /* signal frame: ucontext at rsp (__restore_rt);
                               rip/rsp/rbp from uc_mcontext */
    UNWIND_STOP = 5,        /* DW_CFA_undefined rip: outermost frame */
    UNWIND_INVALID = 6,     /* rule we cannot follow: frame-pointer step */
    UNWIND_GAP = 7,         /* no FDE covers pc from here on: fp step */
};
struct unwind_row {         /* 8 bytes, sorted by pc, unique pc */
    __u32 pc;               /* first vaddr (low 32 bits of vaddr - file's
                               pc_base) the row applies to, up to the
                               next row's pc */
    __u16 cfa_off;          /* bytes; larger than 65535 -> INVALID */
    __u8  kind;             /* enum unwind_kind */
    __s8  rbp_off;          /* rbp saved at CFA + 8*rbp_off; 0: rbp
                               unchanged (same value as in the callee) */
};
struct unwind_page {        /* one per 64 KiB page of [pc_base, pc_end) */
    __u32 first;            /* index (within the file's rows) of the row
                               covering the page's first byte */
    __u32 n;                /* rows to search: from first, through the
                               last row starting in the page (n >= 1) */
};

#endif
