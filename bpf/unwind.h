/*
 * Unwind tables shared by the table builder (src/unwind/unwind_table.c), the
 * daemon that loads them (src/unwind/unwind_maps.c) and the BPF walker
 * (bpf/unwind.bpf.h).  x86_64's and arm64's rows (bpf/arch.h: rsp is
 * arm64's sp, rbp its x29; the return address rule in the kind's high
 * bits).  Addresses in a file's table are
 * ELF virtual addresses of that file; the walker converts a runtime pc
 * with the mapping's bias (vaddr = pc - bias).
 * The format is this header: change it in the builder and the walker
 * together.
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
    UNWIND_DEREF = 3,       /* CFA = *(rsp + (__s16)cfa_off) + 8 (OpenSSL
                               realign; the offset may be negative) */
    UNWIND_SIGNAL = 4,      /* signal frame: ucontext at rsp (__restore_rt);
                               rip/rsp/rbp from uc_mcontext */
    UNWIND_STOP = 5,        /* DW_CFA_undefined rip: outermost frame */
    UNWIND_INVALID = 6,     /* rule we cannot follow: frame-pointer step */
    UNWIND_GAP = 7,         /* no FDE covers pc from here on: fp step */
};
/*
 * Where the return address is: struct unwind_row.kind's high bits.
 * Always UNWIND_RA_CFA8 on x86_64, whose call pushes it.  arm64's call
 * leaves it in x30, which a function saves where it likes (usually
 * beside x29, the frame record) or not at all (a leaf).
 */
#define UNWIND_KIND_MASK    0x0f
#define UNWIND_RA_MASK      0x30
#define UNWIND_RA_CFA8      0x00    /* at CFA - 8 */
#define UNWIND_RA_LR        0x10    /* in the link register: not saved */
#define UNWIND_RA_FP        0x20    /* at CFA + 8*rbp_off + 8, beside the
                                       saved frame pointer */
#define UNWIND_RA_SLOT      0x30    /* at CFA + 8*rbp_off; the frame
                                       pointer is not saved */
struct unwind_row {         /* 8 bytes, sorted by pc, unique pc */
    __u32 pc;               /* first vaddr (low 32 bits of vaddr - file's
                               pc_base) the row applies to, up to the
                               next row's pc */
    __u16 cfa_off;          /* bytes; larger than 65535 -> INVALID */
    __u8  kind;             /* enum unwind_kind | UNWIND_RA_* */
    __s8  rbp_off;          /* rbp saved at CFA + 8*rbp_off; 0: rbp
                               unchanged (same value as in the callee);
                               UNWIND_RA_SLOT: the return address's */
};
struct unwind_page {        /* one per 64 KiB page of [pc_base, pc_end) */
    __u32 first;            /* index (within the file's rows) of the row
                               covering the page's first byte */
    __u32 n;                /* rows to search: from first, through the
                               last row starting in the page (n >= 1) */
};

/*
 * Below: the BPF maps' values, owned by the walker's side
 * (bpf/unwind.bpf.h, src/unwind/unwind_maps.c).  The table builder need not
 * look at them.
 */

/* unwind_file.hit: units of about a second. */
#define UNWIND_HIT_SHIFT	30

/* Mappings of a process the walker knows, at most. */
#define UNWIND_PROC_MAPS	256
/* A mapping whose file has no record: never a valid file id. */
#define UNWIND_NO_FILE		0xffffffffU

/*
 * The outermost frame of a user stack whose walk did not reach the
 * outermost frame, or met code whose table was not loaded yet: never a
 * user address.  Userspace names it "[truncated]".
 */
#define UNWIND_TRUNCATED_IP	0xfffffffffffffff0ULL

/*
 * uw_files (ARRAY, mmapped by the daemon), by file id: where a file's
 * rows and pages lie in uw_rows and uw_pages.  nrows is written last
 * and cleared first: 0 means no table (not built yet, evicted, or
 * none), and the walker takes a frame-pointer step; with
 * UNWIND_FILE_NO_CFI, none will come (the file has no CFI): the step is
 * the file's own way, not a stack cut short.
 */
#define UNWIND_FILE_NO_CFI	0x1
struct unwind_file {
	__u32	row_base;
	__u32	nrows;
	__u32	page_base;
	__u32	npages;
	__u64	pc_base;
	__u64	pc_end;
	__u32	hit;		/* BPF: when last walked, CLOCK_MONOTONIC
				   nanoseconds >> UNWIND_HIT_SHIFT */
	__u32	flags;		/* UNWIND_FILE_* */
	__u32	gen;		/* the publication: a daemon-wide count,
				   never 0 for a table, reused only after
				   2^32 publications */
	__u32	pad;
};

/*
 * uw_rcache (PERCPU_ARRAY): the rows found last, by a hash of (file id,
 * pc offset).  An entry serves only while the file's slot still holds
 * the publication it was found in (gen): a table evicted, rebuilt or
 * given to another file has another gen, and its entries miss.
 */
#define UNWIND_RCACHE_SLOTS	4096	/* a power of 2 */
struct unwind_rcache_entry {
	__u32			file;
	__u32			gen;
	__u32			off;
	__u32			pad;
	struct unwind_row	row;
};

/* One executable mapping: vaddr = pc - bias. */
struct unwind_mapping {
	__u64	start;
	__u64	end;
	__u64	bias;
	__u32	file_id;	/* index of uw_files */
	__u32	flags;
};

/*
 * uw_procs (HASH, tgid ->): the mappings, sorted by start; anonymous
 * code (JIT) has file_id UNWIND_NO_FILE.  A pc in none of them makes
 * the walker ask for the maps to be read again (a library loaded
 * since), not before asked, in CLOCK_MONOTONIC nanoseconds >>
 * UNWIND_ASK_SHIFT (about 67 ms): it then sets asked UNWIND_ASK_WAIT
 * later, and the daemon's answer sets it, later and later while its
 * answers find nothing new.
 */
#define UNWIND_ASK_SHIFT	26
#define UNWIND_ASK_WAIT		16
struct unwind_proc {
	__u32			n;
	__u32			asked;
	struct unwind_mapping	m[UNWIND_PROC_MAPS];
};

/* How user stacks are walked, [profile] unwind. */
enum unwind_mode {
	UNWIND_MODE_FP = 0,	/* frame pointers only: bpf_get_stack */
	UNWIND_MODE_AUTO = 1,	/* tables, frame pointers where none */
	UNWIND_MODE_DWARF = 2,	/* tables only: stop where there is none */
};

/*
 * Per-CPU counters of the walker (uw_stats).  Each walk ends one way
 * (COMPLETE to BAD_FRAME); the others count walks that met a frame of
 * that kind at least once, and frames.
 */
enum unwind_stat {
	UNWIND_STAT_WALKS = 0,		/* user stacks walked */
	UNWIND_STAT_COMPLETE,		/* reached the outermost frame */
	UNWIND_STAT_DEPTH,		/* truncated: [profile] unwind_depth */
	UNWIND_STAT_READ_FAULT,		/* truncated: stack not readable */
	UNWIND_STAT_BAD_FRAME,		/* truncated: CFA or rbp not sane */
	UNWIND_STAT_NO_RULE,		/* truncated: dwarf and no table */
	UNWIND_STAT_NO_PROC,		/* walks of a pid with no mappings */
	UNWIND_STAT_NO_TABLE,		/* walks meeting a file not loaded */
	UNWIND_STAT_NO_MAPPING,		/* walks meeting unknown code */
	UNWIND_STAT_INVALID,		/* walks meeting an INVALID/GAP row */
	UNWIND_STAT_FP_FALLBACK,	/* walks with a frame-pointer step */
	UNWIND_STAT_FRAMES_TABLE,	/* frames stepped by a table */
	UNWIND_STAT_FRAMES_FP,		/* frames stepped by frame pointer */
	UNWIND_STAT_SIGNAL,		/* signal frames stepped through */
	UNWIND_STAT_USTACKS,		/* user stacks stored, any mode */
	UNWIND_STAT_USTACK_NS,		/* the time their walks took */
	UNWIND_STAT_TRUNCATED,		/* given UNWIND_TRUNCATED_IP */
	UNWIND_STAT_MAPS_ASKED,		/* maps asked to be read again */
	UNWIND_STAT_RCACHE_HIT,		/* rows found in uw_rcache */
	UNWIND_STAT_MAX
};

#endif
