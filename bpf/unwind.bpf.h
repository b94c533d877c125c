/*
 * The user stack walker of tables built from .eh_frame (bpf/unwind.h),
 * #included by bpf/profile.bpf.c after its helpers and its scratch map.
 * Both the perf_event program and the sched_switch program walk with it
 * when [profile] unwind is not fp.
 *
 * It starts from the task's user registers (bpf_task_pt_regs: at a
 * sample in user mode they are the interrupted ones, in a syscall or at
 * a context switch the ones saved at kernel entry) and takes one frame
 * per bpf_loop() iteration.  A frame: the mapping of its pc (the last
 * one found, else a binary search of the process's sorted mappings),
 * the file's page index, a binary search of the page's rows, the CFA,
 * and one read of the return address (with the saved rbp beside it in
 * the usual layout).  The registers are bpf/arch.h's: x86_64's, or
 * arm64's, whose first frame may have its return address in x30 yet
 * (written for arm64, never run there: doc/arm64.md).  A frame without a table (no mapping known, a
 * file not loaded yet, Go or JIT code, a gap or a rule we cannot
 * follow) takes a frame-pointer step, as bpf_get_stack would, and the
 * walk goes on with tables at the next frame.  A walk that cannot go
 * on keeps what it has: the sample is never dropped, and uw_stats says
 * why it ended.
 *
 * No map-in-map: one big array of rows, one of pages, one of files
 * (all three mmapped by the daemon, src/unwind/unwind_maps.c), and a hash of
 * processes.  Array lookups are inlined by the verifier.
 */
#ifndef EBPFSPY_UNWIND_BPF_H
#define EBPFSPY_UNWIND_BPF_H

#include "arch.h"
#include "unwind.h"

/* Above this, an address is not user space. */
#define UW_USER_MAX		ARCH_USER_MAX
#define UW_MAPS_STEPS		9	/* log2(UNWIND_PROC_MAPS) + 1 */
#define UW_ROWS_STEPS		21	/* rows a page may hold: 2^20 */

/* Live knobs (src/session/session_unwind.c). */
__u32 unwind_mode = UNWIND_MODE_FP;	/* enum unwind_mode */
__u32 unwind_depth = PROFILE_STACK_DEPTH;

/* Sizes are set from [profile] unwind_table_bytes before load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1048576);
	__type(key, __u32);
	__type(value, struct unwind_row);
} uw_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct unwind_page);
} uw_pages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct unwind_file);
} uw_files SEC(".maps");

/* 8 KiB a process: allocated as processes come, not up front. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct unwind_proc);
} uw_procs SEC(".maps");

/*
 * The rows found last on this CPU (bpf/unwind.h): most frames of a
 * stack are return addresses met again and again, whose row a binary
 * search of some 10 steps finds each time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UNWIND_RCACHE_SLOTS);
	__type(key, __u32);
	__type(value, struct unwind_rcache_entry);
} uw_rcache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UNWIND_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} uw_stats SEC(".maps");

/* How a walk ended, and what it met on the way (uw_walk.flags). */
#define UW_F_EXACT	0x0001	/* ip is not a return address: no -1 */
#define UW_F_END	0x0002	/* the outermost frame was reached */
#define UW_F_DEPTH	0x0004
#define UW_F_READ	0x0008
#define UW_F_BAD	0x0010
#define UW_F_NO_RULE	0x0020
#define UW_F_NO_PROC	0x0040
#define UW_F_NO_TABLE	0x0080
#define UW_F_NO_MAP	0x0100
#define UW_F_INVALID	0x0200
#define UW_F_FP		0x0400
#define UW_F_SIGNAL	0x0800

/*
 * The state of one walk, in a per-CPU map value rather than on the
 * program's stack: the verifier then knows nothing of it from one
 * iteration to the next, and checks the iteration once, not once for
 * every state the walk could be in.  Then the two mappings found last
 * (a stack goes back and forth between a program and its libraries).
 */
struct uw_walk {
	__u64	ip;
	__u64	sp;
	__u64	bp;
	__u64	lr;		/* arm64's x30 while the frame has it: 0
				   when not known (x86_64: never) */
	__u32	max;
	__u32	pid;
	__u32	flags;		/* UW_F_* */
	__u32	ntable;		/* frames stepped by a table */
	__u32	nfp;
	__u32	now;		/* for unwind_file.hit */
	__u32	tick;		/* for unwind_proc.asked */
	__u32	rt;		/* whose frames are recorded: UW_RT_* */
	__u64	bcp;		/* HotSpot's bcp register at the sample */
	__u64	start[2];	/* [0]: the mapping found last */
	__u64	end[2];
	__u64	bias[2];
	__u32	file[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uw_walk);
} uw_walk SEC(".maps");

static __always_inline void
uw_stat_add(__u32 idx, __u64 n)
{
	__u64	*v;

	v = bpf_map_lookup_elem(&uw_stats, &idx);
	if (v != NULL)
		*v += n;
}

/*
 * The mapping of pc, from the process's sorted mappings: 0 and the
 * cache set, or -1.  The searches run under bpf_loop() of their own:
 * as plain loops, the verifier walked each of their paths in each
 * frame of the walk and gave up at a million instructions.
 */
struct uw_msearch {
	struct unwind_proc	*p;
	__u64			 pc;
	__u32			 lo;
	__u32			 hi;
	__s32			 found;
	__u32			 pad;
};

static long
uw_maps_cb(__u64 idx, void *arg)
{
	struct uw_msearch	*s = arg;
	struct unwind_proc	*p = s->p;
	struct unwind_mapping	*m;
	__u32			 mid;

	if (p == NULL || s->lo >= s->hi)
		return 1;
	mid = (s->lo + s->hi) / 2;
	if (mid >= UNWIND_PROC_MAPS)
		return 1;
	m = &p->m[mid];
	if (s->pc < m->start)
		s->hi = mid;
	else if (s->pc >= m->end)
		s->lo = mid + 1;
	else {
		s->found = mid;
		return 1;
	}
	return 0;
}

static __always_inline int
uw_map_find(struct uw_walk *w, __u64 pc)
{
	struct uw_msearch	 s = {};
	struct unwind_mapping	*m;
	__u32			 i;

	if (w->flags & UW_F_NO_PROC)
		return -1;
	s.p = bpf_map_lookup_elem(&uw_procs, &w->pid);
	if (s.p == NULL) {
		w->flags |= UW_F_NO_PROC;
		return -1;
	}
	s.pc = pc;
	s.hi = s.p->n;
	s.found = -1;
	bpf_loop(UW_MAPS_STEPS, uw_maps_cb, &s, 0);
	if (s.found < 0 || s.found >= UNWIND_PROC_MAPS) {
		w->flags |= UW_F_NO_MAP;
		/* A library loaded since its maps were read? */
		if (w->tick >= s.p->asked) {
			s.p->asked = w->tick + UNWIND_ASK_WAIT;
			uw_stat_add(UNWIND_STAT_MAPS_ASKED, 1);
			event_send_arg(PROFILE_EVENT_UNWIND_MAPS, w->pid, pc);
		}
		return -1;
	}
	i = s.found;
	m = &s.p->m[i];
	w->start[1] = w->start[0];
	w->end[1] = w->end[0];
	w->bias[1] = w->bias[0];
	w->file[1] = w->file[0];
	w->start[0] = m->start;
	w->end[0] = m->end;
	w->bias[0] = m->bias;
	w->file[0] = m->file_id;
	return 0;
}

/* pc's mapping into the first slot: 0, or -1 when there is none. */
static __always_inline int
uw_map_get(struct uw_walk *w, __u64 pc)
{
	__u64	s, e, b;
	__u32	f;

	if (pc >= w->start[0] && pc < w->end[0])
		return 0;
	if (pc >= w->start[1] && pc < w->end[1]) {
		s = w->start[0];
		e = w->end[0];
		b = w->bias[0];
		f = w->file[0];
		w->start[0] = w->start[1];
		w->end[0] = w->end[1];
		w->bias[0] = w->bias[1];
		w->file[0] = w->file[1];
		w->start[1] = s;
		w->end[1] = e;
		w->bias[1] = b;
		w->file[1] = f;
		return 0;
	}
	return uw_map_find(w, pc);
}

struct uw_rsearch {
	__u32	base;		/* the file's first row in uw_rows */
	__u32	lo;
	__u32	hi;
	__u32	off;		/* pc - pc_base */
};

static long
uw_rows_cb(__u64 idx, void *arg)
{
	struct uw_rsearch	*s = arg;
	struct unwind_row	*r;
	__u32			 mid, i;

	if (s->lo >= s->hi)
		return 1;
	mid = (s->lo + s->hi) / 2;
	i = s->base + mid;
	if ((r = bpf_map_lookup_elem(&uw_rows, &i)) == NULL)
		return 1;
	if (r->pc <= s->off)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

/* The uw_rcache slot of (file id, pc offset). */
static __always_inline __u32
uw_rcache_slot(__u32 file, __u32 off)
{
	__u32	h = off * 0x9e3779b1U ^ file * 0x85ebca77U;

	return (h ^ (h >> 16)) & (UNWIND_RCACHE_SLOTS - 1);
}

/*
 * The row of pc: 0 and *row, or -1 (no table for it: the caller steps
 * by frame pointer).  A row found by search is kept in uw_rcache only
 * if the file's gen is the same after the search as before it: a
 * table published meanwhile has another gen, and so do its entries'
 * lookups from then on.
 */
static __always_inline int
uw_row_find(struct uw_walk *w, __u64 pc, struct unwind_row *row)
{
	struct unwind_file	*f;
	struct unwind_page	*pg;
	struct unwind_row	*r;
	struct unwind_rcache_entry *e;
	struct uw_rsearch	 rs;
	__u64			 off;
	__u32			 nrows, base, idx, lo, hi, gen, fid, slot;

	if (uw_map_get(w, pc) != 0)
		return -1;
	idx = w->file[0];
	if (idx == UNWIND_NO_FILE)
		return -1;	/* JIT code: its frame pointers */
	if ((f = bpf_map_lookup_elem(&uw_files, &idx)) == NULL) {
		w->flags |= UW_F_NO_TABLE;
		return -1;
	}
	fid = idx;
	gen = *(volatile __u32 *)&f->gen;
	nrows = *(volatile __u32 *)&f->nrows;
	if (nrows == 0) {
		if (!(f->flags & UNWIND_FILE_NO_CFI))
			w->flags |= UW_F_NO_TABLE;
		return -1;
	}
	if (f->hit != w->now)
		f->hit = w->now;
	off = pc - w->bias[0];
	if (off < f->pc_base || off >= f->pc_end) {
		w->flags |= UW_F_INVALID;
		return -1;
	}
	off -= f->pc_base;
	if ((off >> UNWIND_PAGE_SHIFT) >= f->npages) {
		w->flags |= UW_F_INVALID;
		return -1;
	}
	slot = uw_rcache_slot(fid, (__u32)off);
	e = bpf_map_lookup_elem(&uw_rcache, &slot);
	if (e != NULL && e->gen == gen && e->file == fid &&
	    e->off == (__u32)off && off <= 0xffffffffULL) {
		*row = e->row;
		uw_stat_add(UNWIND_STAT_RCACHE_HIT, 1);
		return 0;
	}
	idx = f->page_base + (__u32)(off >> UNWIND_PAGE_SHIFT);
	if ((pg = bpf_map_lookup_elem(&uw_pages, &idx)) == NULL)
		return -1;
	base = f->row_base;
	lo = pg->first;
	hi = lo + pg->n;
	if (hi > nrows)
		hi = nrows;
	if (lo >= hi) {
		w->flags |= UW_F_INVALID;
		return -1;
	}
	/* The last row at or below off: rows[lo - 1] when done. */
	rs.base = base;
	rs.lo = lo + 1;
	rs.hi = hi;
	rs.off = off;
	bpf_loop(UW_ROWS_STEPS, uw_rows_cb, &rs, 0);
	lo = rs.lo;
	idx = base + lo - 1;
	if ((r = bpf_map_lookup_elem(&uw_rows, &idx)) == NULL)
		return -1;
	*row = *r;
	if (e != NULL && gen != 0 && off <= 0xffffffffULL &&
	    *(volatile __u32 *)&f->gen == gen) {
		e->file = fid;
		e->gen = gen;
		e->off = (__u32)off;
		e->row = *row;
	}
	return 0;
}

/* One frame-pointer step: 0 to go on, 1 to stop. */
static __always_inline int
uw_fp_step(struct uw_walk *w)
{
	__u64	v[2];

	if (unwind_mode == UNWIND_MODE_DWARF) {
		w->flags |= UW_F_NO_RULE;
		return 1;
	}
	w->flags |= UW_F_FP;
	w->nfp++;
	if (w->bp == 0) {
		w->flags |= UW_F_END;
		return 1;
	}
	if ((w->bp & 7) != 0 || w->bp < w->sp || w->bp > UW_USER_MAX) {
		w->flags |= UW_F_BAD;
		return 1;
	}
	if (bpf_probe_read_user(v, sizeof(v), (void *)w->bp) != 0) {
		w->flags |= UW_F_READ;
		return 1;
	}
	w->sp = w->bp + 16;
	w->bp = v[0];
	w->ip = ARCH_RA_STRIP(v[1]);
	w->lr = 0;
	w->flags &= ~UW_F_EXACT;
	return 0;
}

/*
 * A signal frame: the interrupted registers are in the ucontext that
 * the kernel left at sp (bpf/arch.h), and the interrupted pc is no
 * return address.
 */
static __always_inline int
uw_signal_step(struct uw_walk *w)
{
	__u64	v[ARCH_SIG_NREGS];

	if (bpf_probe_read_user(v, sizeof(v), (void *)(w->sp +
	    ARCH_SIG_REGS)) != 0) {
		w->flags |= UW_F_READ;
		return 1;
	}
	w->bp = v[ARCH_SIG_FP];
	w->sp = v[ARCH_SIG_SP];
	w->ip = v[ARCH_SIG_IP];
#if ARCH_SIG_LR >= 0
	w->lr = v[ARCH_SIG_LR];
#endif
	w->flags |= UW_F_EXACT | UW_F_SIGNAL;
	w->ntable++;
	return 0;
}

/* Records of runtime frames (V8's, HotSpot's) the walk steps over. */
#include "rtframe.bpf.h"

#if defined(ARCH_ARM64)
/*
 * arm64's rows whose return address is not at CFA - 8: still in x30
 * (the first frame only: a caller's x30 is not known), beside the
 * saved x29, or saved alone.
 */
static __always_inline int
uw_frame_arm64(struct uw_walk *w, const struct unwind_row *row, __u64 cfa)
{
	__u64	v[2], ra, bp = w->bp;
	__s64	at = (__s64)row->rbp_off * 8;

	if (cfa < w->sp || cfa > UW_USER_MAX) {
		w->flags |= UW_F_BAD;
		return 1;
	}
	switch (row->kind & UNWIND_RA_MASK) {
	case UNWIND_RA_LR:
		if ((ra = w->lr) == 0) {
			w->flags |= UW_F_BAD;
			return 1;
		}
		if (at != 0 && bpf_probe_read_user(&bp, sizeof(bp),
		    (void *)(cfa + at)) != 0)
			goto fault;
		break;
	case UNWIND_RA_FP:
		if (bpf_probe_read_user(v, sizeof(v), (void *)(cfa + at)) != 0)
			goto fault;
		bp = v[0];
		ra = v[1];
		break;
	default:	/* UNWIND_RA_SLOT */
		if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa + at)) !=
		    0)
			goto fault;
		break;
	}
	w->sp = cfa;
	w->bp = bp;
	w->ip = ARCH_RA_STRIP(ra);
	w->lr = 0;
	w->flags &= ~UW_F_EXACT;
	w->ntable++;
	return 0;
fault:
	w->flags |= UW_F_READ;
	return 1;
}
#endif

/*
 * Unwind the frame at w->ip, native frame index of the stack: 0 to go
 * on, 1 to stop.
 */
static __always_inline int
uw_frame(struct uw_walk *w, __u32 index)
{
	struct unwind_row	 row;
	__u64			 pc, cfa, v[2], bp;

	pc = w->ip;
	if (!(w->flags & UW_F_EXACT))
		pc--;		/* a return address: the call is before it */
	if (uw_row_find(w, pc, &row) != 0) {
		JVM_FRAME_STEP(w, index);	/* Java code: HotSpot's step */
		rt_frame_note(w->rt, pc, w->bp, index, w->pid, w->start[0],
		    w->end[0], w->file[0], w->bias[0]);
		return uw_fp_step(w);
	}
	switch (row.kind & UNWIND_KIND_MASK) {
	case UNWIND_CFA_RSP:
		cfa = w->sp + row.cfa_off;
		break;
	case UNWIND_CFA_RBP:
		cfa = w->bp + row.cfa_off;
		break;
	case UNWIND_PLT:
		cfa = w->sp + 8 + ((w->ip & 15) >= 11 ? 8 : 0);
		break;
	case UNWIND_DEREF:
		if (bpf_probe_read_user(&cfa, sizeof(cfa), (void *)(w->sp +
		    (__s16)row.cfa_off)) != 0) {
			w->flags |= UW_F_READ;
			return 1;
		}
		cfa += 8;
		break;
	case UNWIND_SIGNAL:
		return uw_signal_step(w);
	case UNWIND_STOP:
		w->flags |= UW_F_END;
		return 1;
	default:
		/* INVALID, GAP: the code around pc keeps its frame pointer? */
		w->flags |= UW_F_INVALID;
		rt_frame_note(w->rt, pc, w->bp, index, w->pid, w->start[0],
		    w->end[0], w->file[0], w->bias[0]);
		return uw_fp_step(w);
	}
#if defined(ARCH_ARM64)
	/* A leaf keeps its return address in x30 and may not touch sp. */
	if ((row.kind & UNWIND_RA_MASK) != UNWIND_RA_CFA8)
		return uw_frame_arm64(w, &row, cfa);
#endif
	if (cfa <= w->sp || cfa > UW_USER_MAX) {
		w->flags |= UW_F_BAD;
		return 1;
	}
	bp = w->bp;
	if (row.rbp_off == -2) {
		/* push %rbp first: rbp and the return address side by side */
		if (bpf_probe_read_user(v, sizeof(v), (void *)(cfa - 16)) != 0) {
			w->flags |= UW_F_READ;
			return 1;
		}
		bp = v[0];
	} else {
		if (bpf_probe_read_user(&v[1], sizeof(v[1]),
		    (void *)(cfa - 8)) != 0) {
			w->flags |= UW_F_READ;
			return 1;
		}
		if (row.rbp_off != 0 && bpf_probe_read_user(&bp, sizeof(bp),
		    (void *)(cfa + (__s64)row.rbp_off * 8)) != 0) {
			w->flags |= UW_F_READ;
			return 1;
		}
	}
	w->sp = cfa;
	w->bp = bp;
	w->ip = ARCH_RA_STRIP(v[1]);
	w->lr = 0;
	w->flags &= ~UW_F_EXACT;
	w->ntable++;
	return 0;
}

/*
 * The count of frames is kept in the scratch record, not in the walk:
 * a count the verifier knew would make it check every iteration apart.
 */
static long
uw_step_cb(__u64 idx, void *arg)
{
	struct uw_walk			*w;
	struct profile_stack_rec	*buf;
	__u32				 zero = 0, n;

	if ((w = bpf_map_lookup_elem(&uw_walk, &zero)) == NULL ||
	    (buf = bpf_map_lookup_elem(&scratch, &zero)) == NULL)
		return 1;
	if (w->ip == 0 || w->ip > UW_USER_MAX) {
		w->flags |= UW_F_END;
		return 1;
	}
	n = buf->n;
	if (n >= w->max || n >= PROFILE_STACK_DEPTH) {
		w->flags |= UW_F_DEPTH;
		return 1;
	}
	buf->ip[n] = w->ip;
	buf->n = n + 1;
	return uw_frame(w, n);
}

/*
 * Walk the current task's user stack into buf->ip: the number of
 * frames.  pid is its tgid, whose mappings uw_procs holds.
 */
static __always_inline __u32
uw_walk_user(__u32 pid)
{
	struct profile_stack_rec	*buf;
	struct task_struct		*task;
	struct pt_regs			*regs;
	struct uw_walk			*w;
	__u32				 f, n, zero = 0;
	__u64				 t;

	if ((buf = bpf_map_lookup_elem(&scratch, &zero)) == NULL ||
	    (w = bpf_map_lookup_elem(&uw_walk, &zero)) == NULL)
		return 0;
	buf->n = 0;
	__builtin_memset(w, 0, sizeof(*w));
	task = bpf_get_current_task_btf();
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (regs == NULL)
		return 0;
	w->ip = ARCH_REGS_IP(regs);
	w->sp = ARCH_REGS_SP(regs);
	w->bp = ARCH_REGS_FP(regs);
	w->lr = ARCH_REGS_LR(regs);
	w->pid = pid;
	w->max = unwind_depth;
	w->flags = UW_F_EXACT;
	w->bcp = ARCH_REGS_BCP(regs);
	if (bpf_map_lookup_elem(&v8_info, &pid) != NULL)
		w->rt = UW_RT_V8;
	else if (bpf_map_lookup_elem(&jvm_info, &pid) != NULL)
		w->rt = UW_RT_JVM;
	rt_walk_reset();
	t = bpf_ktime_get_ns();
	w->now = t >> UNWIND_HIT_SHIFT;
	w->tick = t >> UNWIND_ASK_SHIFT;
	/* One more iteration than frames: the last one tells depth. */
	bpf_loop(PROFILE_STACK_DEPTH + 1, uw_step_cb, NULL, 0);
	if (w->rt)
		rt_stack_store(pid);

	f = w->flags;
	/*
	 * Cut short, or through code whose table was not there yet (its
	 * frame-pointer step may have lost callers): the outer end says
	 * so, in place of the outermost frame when there is no room.
	 */
	n = buf->n;
	if (n > 0 && (!(f & UW_F_END) || (f & (UW_F_NO_PROC |
	    UW_F_NO_TABLE)))) {
		if (n >= PROFILE_STACK_DEPTH)
			n = PROFILE_STACK_DEPTH - 1;
		buf->ip[n] = UNWIND_TRUNCATED_IP;
		buf->n = n + 1;
		uw_stat_add(UNWIND_STAT_TRUNCATED, 1);
	}
	uw_stat_add(UNWIND_STAT_WALKS, 1);
	if (f & UW_F_END)
		uw_stat_add(UNWIND_STAT_COMPLETE, 1);
	else if (f & UW_F_DEPTH)
		uw_stat_add(UNWIND_STAT_DEPTH, 1);
	else if (f & UW_F_READ)
		uw_stat_add(UNWIND_STAT_READ_FAULT, 1);
	else if (f & UW_F_NO_RULE)
		uw_stat_add(UNWIND_STAT_NO_RULE, 1);
	else
		uw_stat_add(UNWIND_STAT_BAD_FRAME, 1);
	if (f & UW_F_NO_PROC)
		uw_stat_add(UNWIND_STAT_NO_PROC, 1);
	if (f & UW_F_NO_TABLE)
		uw_stat_add(UNWIND_STAT_NO_TABLE, 1);
	if (f & UW_F_NO_MAP)
		uw_stat_add(UNWIND_STAT_NO_MAPPING, 1);
	if (f & UW_F_INVALID)
		uw_stat_add(UNWIND_STAT_INVALID, 1);
	if (f & UW_F_FP)
		uw_stat_add(UNWIND_STAT_FP_FALLBACK, 1);
	if (f & UW_F_SIGNAL)
		uw_stat_add(UNWIND_STAT_SIGNAL, 1);
	uw_stat_add(UNWIND_STAT_FRAMES_TABLE, w->ntable);
	uw_stat_add(UNWIND_STAT_FRAMES_FP, w->nfp);
	return buf->n;
}

#endif
