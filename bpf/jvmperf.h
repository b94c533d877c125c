/*
 * HotSpot's frames, #included by bpf/rtframe.bpf.h.  Java code has no
 * unwind table: when the native walker finds none for a pc inside a
 * JVM's code cache, jvm_frame() finds the CodeBlob there by the code
 * heap's segment map and steps over its frame as HotSpot does itself:
 *   - the interpreter keeps rbp: the Method* is at rbp-24, the bytecode
 *     pointer at rbp-64 (in r13 while the frame is the sampled one);
 *   - compiled code (C1, C2, a native method's wrapper, stubs with a
 *     frame) uses rbp as data: its frame is frame_size words, the
 *     return address last, the caller's rbp below it; in the prologue
 *     and epilogue of the sampled frame, less of it is built;
 *   - a blob without a frame of its own (the call stub) keeps rbp.
 * Each Java frame is recorded for userspace (rt_frame_append): the
 * Method* and bci of an interpreted frame, checked by its ConstMethod;
 * the nmethod and pc of a compiled one, checked by its compile id; the
 * blob of a stub.  The caller of a compiled frame must lie in the code
 * cache again, or the walk stops there (counted): a wrong step would
 * give callers that never ran.
 * The layout is the JVM's own (src/jvm/jvm_runtime.c fills jvm_info
 * from its vmStructs).  x86_64 only: other JVMs are not described.
 */
#ifndef EBPFSPY_JVMPERF_H
#define EBPFSPY_JVMPERF_H

/* A 400 KiB blob at most, at 254 segments of 128 bytes a step. */
#define JVM_SEGMAP_STEPS	16
/* The first 4 bytes of the blob kinds' names, little-endian. */
#define JVM_NAME_NMETHOD	0x74656d6eU	/* "nmet" */
#define JVM_NAME_NATIVE		0x6974616eU	/* "nati" */
#define JVM_NAME_INTERP		0x65746e49U	/* "Inte" */
#define JVM_NAME_VTABLE		0x62617476U	/* "vtab": no frame, jumps */
#define JVM_NAME_ITABLE		0x62617469U	/* "itab" */

#define UW_RT_V8		1
#define UW_RT_JVM		2

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct profile_jvm_info);
} jvm_info SEC(".maps");

/* The scratch words of a step. */
#define JS_NAME		0	/* the blob's name, then its first bytes */
#define JS_FSIZE	1	/* frame_size; frame_complete in [2] */
#define JS_COMPLETE	2
#define JS_BEGIN	3	/* the code's start */
#define JS_SAVED	4	/* [4]: the caller's rbp, [5]: return address */
#define JS_RA		5
#define JS_OBJ		6	/* Method*, compile id */
#define JS_CM		7	/* ConstMethod*, bytes of code */

/* size bytes at addr into scratch word i: 0, or -1. */
static __always_inline int
jvm_read(struct rt_scratch *sc, __u32 i, __u64 addr, __u32 size)
{
	if (addr > UW_USER_MAX || i >= JVM_SCRATCH_WORDS || size > 8)
		return -1;
	sc->j[i] = 0;
	return bpf_probe_read_user(&sc->j[i], size, (void *)addr) == 0 ?
	    0 : -1;
}

/* The CodeBlob of pc, by its heap's segment map; 0 when none. */
static __always_inline __u64
jvm_blob_of(const struct profile_jvm_info *ji, struct rt_scratch *sc,
    __u64 pc)
{
	const struct profile_jvm_heap	*h = NULL;
	__u64				 seg, tag;
	__u32				 i, shift;

	for (i = 0; i < PROFILE_JVM_HEAPS; i++) {
		if (i < ji->nheaps && pc >= ji->heap[i].low &&
		    pc < ji->heap[i].high) {
			h = &ji->heap[i];
			break;
		}
	}
	if (h == NULL)
		return 0;
	shift = h->shift & 31;
	seg = (pc - h->low) >> shift;
	for (i = 0; i < JVM_SEGMAP_STEPS; i++) {
		if (jvm_read(sc, JS_NAME, h->segmap + seg, 1) != 0)
			return 0;
		tag = sc->j[JS_NAME];
		if (tag == 0xff || tag > seg)
			return 0;
		if (tag == 0)
			return h->low + (seg << shift) + ji->heapblock_size;
		seg -= tag;
	}
	return 0;
}

static __always_inline int
jvm_in_cache(const struct profile_jvm_info *ji, __u64 pc)
{
	return pc >= ji->cc_low && pc < ji->cc_high;
}

/* Byte i of the 16 read from pc - 8 into the scratch. */
#define JB(sc, i)	((__u8)((sc)->j[JS_SAVED + ((i) >> 3)] >> (8 * ((i) & 7))))

/*
 * The sampled frame of compiled code, pc at off from its code: how
 * much of the frame is built.  Returns the words from sp to the return
 * address (0: at sp; 1: rbp at sp then the address), or -1 for the
 * whole frame.  Prologue: the bang, push %rbp, sub $N,%rsp (4 or 7
 * bytes), frame complete after it.  Epilogue: add $N,%rsp, pop %rbp,
 * the return poll (cmp x(%r15),%rsp; ja), ret.
 */
static __always_inline int
jvm_frame_built(struct rt_scratch *sc, __u64 pc, __s32 off, __s32 complete)
{
	if (off >= 0 && off < complete) {
		if (complete < 8 || jvm_read(sc, JS_SAVED,
		    pc - off + complete - 8, 8) != 0)
			return 0;
		if (JB(sc, 3) == 0x55)		/* push at complete - 5 */
			return off > complete - 5 ? 1 : 0;
		if (JB(sc, 0) == 0x55)		/* push at complete - 8 */
			return off > complete - 8 ? 1 : 0;
		return off >= complete - 4 ? 1 : 0;
	}
	if (jvm_read(sc, JS_SAVED, pc - 8, 8) != 0 ||
	    jvm_read(sc, JS_RA, pc, 8) != 0)
		return -1;
	if (JB(sc, 8) == 0xc3)				/* ret */
		return 0;
	if (JB(sc, 8) == 0x5d && (JB(sc, 9) == 0xc3 ||
	    (JB(sc, 9) == 0x49 && JB(sc, 10) == 0x3b)))
		return 1;				/* pop %rbp */
	if (JB(sc, 8) == 0x49 && JB(sc, 9) == 0x3b && JB(sc, 10) == 0xa7)
		return 0;				/* the poll's cmp */
	if (JB(sc, 1) == 0x49 && JB(sc, 2) == 0x3b && JB(sc, 3) == 0xa7 &&
	    JB(sc, 8) == 0x0f && JB(sc, 9) == 0x87)
		return 0;				/* its ja */
	return -1;
}

/* The walk goes on at the caller: sp, rbp and pc. */
static __always_inline int
jvm_step_to(struct uw_walk *w, __u64 sp, __u64 bp, __u64 ra)
{
	w->sp = sp;
	w->bp = bp;
	w->ip = ra;
	w->flags &= ~UW_F_EXACT;
	w->ntable++;
	return 0;
}

/* rbp's step, the interpreter's and the call stub's: 0, or 2. */
static __always_inline int
jvm_step_rbp(struct uw_walk *w, struct rt_scratch *sc)
{
	__u64	bp = w->bp;

	if (bp < w->sp || (bp & 7) != 0 || bp > UW_USER_MAX - 16 ||
	    jvm_read(sc, JS_SAVED, bp, 8) != 0 ||
	    jvm_read(sc, JS_RA, bp + 8, 8) != 0) {
		stat_add(PROFILE_STAT_RT_READ_ERR, 1);
		return 2;
	}
	return jvm_step_to(w, bp + 16, sc->j[JS_SAVED], sc->j[JS_RA]);
}

/* An interpreted frame: its Method and bci recorded, then rbp's step. */
static __always_inline int
jvm_interpreted(struct uw_walk *w, struct rt_scratch *sc,
    const struct profile_jvm_info *ji, __u32 index, int top)
{
	__u64	bp = w->bp, bcp, cm;
	__u32	bci = 0xffffffff;

	if (jvm_read(sc, JS_OBJ, bp + ji->fp_method, 8) != 0) {
		stat_add(PROFILE_STAT_RT_READ_ERR, 1);
		return 2;
	}
	if (top)
		bcp = w->bcp;
	else if (jvm_read(sc, JS_CM, bp + ji->fp_bcp, 8) == 0)
		bcp = sc->j[JS_CM];
	else
		bcp = 0;
	if (jvm_read(sc, JS_CM, sc->j[JS_OBJ] + ji->method_constmethod,
	    8) != 0)
		sc->j[JS_CM] = 0;
	cm = sc->j[JS_CM] + ji->cm_size;
	if (sc->j[JS_CM] != 0 && bcp >= cm && bcp - cm < 65536)
		bci = (__u32)(bcp - cm);
	rt_frame_append(sc, sc->j[JS_OBJ], bci, (__u32)(sc->j[JS_CM] >> 3),
	    index, PROFILE_RT_JVM_INTERP);
	return jvm_step_rbp(w, sc);
}

/*
 * The frame at the walk's pc, native frame index: 0 when stepped over
 * (the walk goes on at its caller), 1 when it is no JVM frame (the
 * caller steps by frame pointer), 2 to stop.  Global, so that the
 * verifier checks it once; its state in the scratch map, not on a
 * stack the walk has little of left.
 */
__noinline int
jvm_frame(__u32 index, __u32 pid)
{
	struct profile_jvm_info	*ji;
	struct rt_scratch	*sc;
	struct uw_walk		*w;
	__u64			 pc, blob, sp;
	__s32			 fsize, complete;
	__u32			 zero = 0, kind;
	int			 top, built;

	if ((ji = bpf_map_lookup_elem(&jvm_info, &pid)) == NULL ||
	    (w = bpf_map_lookup_elem(&uw_walk, &zero)) == NULL ||
	    (sc = bpf_map_lookup_elem(&rt_scratch, &zero)) == NULL)
		return 1;
	pc = w->ip;
	top = (w->flags & UW_F_EXACT) != 0;
	if (!jvm_in_cache(ji, top ? pc : pc - 1))
		return 1;
	if ((blob = jvm_blob_of(ji, sc, top ? pc : pc - 1)) == 0 ||
	    jvm_read(sc, JS_NAME, blob + ji->cb_name, 8) != 0 ||
	    jvm_read(sc, JS_NAME, sc->j[JS_NAME], 4) != 0 ||
	    jvm_read(sc, JS_FSIZE, blob + ji->cb_frame_size, 4) != 0 ||
	    jvm_read(sc, JS_COMPLETE, blob + ji->cb_frame_complete,
	    ji->cb_frame_complete_size == 2 ? 2 : 4) != 0 ||
	    jvm_read(sc, JS_BEGIN, blob + ji->cb_code_begin,
	    ji->cb_code_ptrs ? 8 : 4) != 0) {
		stat_add(PROFILE_STAT_RT_JVM_NO_BLOB, 1);
		return 1;
	}
	kind = (__u32)sc->j[JS_NAME];
	fsize = (__s32)sc->j[JS_FSIZE];
	complete = ji->cb_frame_complete_size == 2 ?
	    (__s16)sc->j[JS_COMPLETE] : (__s32)sc->j[JS_COMPLETE];
	if (!ji->cb_code_ptrs)
		sc->j[JS_BEGIN] = blob + (__u32)sc->j[JS_BEGIN];

	if (kind == JVM_NAME_INTERP)
		return jvm_interpreted(w, sc, ji, index, top);

	if (kind == JVM_NAME_NMETHOD || kind == JVM_NAME_NATIVE) {
		if (jvm_read(sc, JS_OBJ, blob + ji->nm_compile_id, 4) != 0)
			sc->j[JS_OBJ] = 0;
		rt_frame_append(sc, blob, (__u32)(pc - blob),
		    (__u32)sc->j[JS_OBJ], index, PROFILE_RT_JVM_JIT);
	} else
		rt_frame_append(sc, blob, (__u32)(pc - blob), 0, index,
		    PROFILE_RT_JVM_STUB);

	sp = w->sp;
	if (fsize <= 0 && top && (kind == JVM_NAME_VTABLE ||
	    kind == JVM_NAME_ITABLE)) {
		/* A dispatch stub jumps on: the return address at sp. */
		if (jvm_read(sc, JS_RA, sp, 8) != 0 ||
		    !jvm_in_cache(ji, sc->j[JS_RA]))
			return 2;
		return jvm_step_to(w, sp + 8, w->bp, sc->j[JS_RA]);
	}
	/* No frame of its own (the call stub): rbp's step. */
	if (fsize <= 0)
		return jvm_step_rbp(w, sc);
	if (fsize > 65536)
		return 2;
	built = -1;
	if (top && pc >= sc->j[JS_BEGIN] && pc - sc->j[JS_BEGIN] < 0x7fffffff)
		built = jvm_frame_built(sc, pc, (__s32)(pc - sc->j[JS_BEGIN]),
		    complete);
	sc->j[JS_SAVED] = w->bp;
	if (built == 0) {
		if (jvm_read(sc, JS_RA, sp, 8) != 0)
			return 2;
		sp += 8;
	} else if (built == 1) {
		if (jvm_read(sc, JS_SAVED, sp, 8) != 0 ||
		    jvm_read(sc, JS_RA, sp + 8, 8) != 0)
			return 2;
		sp += 16;
	} else {
		sp += 8 * (__u64)fsize;
		if (jvm_read(sc, JS_SAVED, sp - 16, 8) != 0 ||
		    jvm_read(sc, JS_RA, sp - 8, 8) != 0) {
			stat_add(PROFILE_STAT_RT_READ_ERR, 1);
			return 2;
		}
	}
	/* Java is called by Java, the interpreter or the call stub. */
	if (!jvm_in_cache(ji, sc->j[JS_RA])) {
		stat_add(PROFILE_STAT_RT_JVM_BAD_RA, 1);
		w->flags |= UW_F_BAD;
		return 2;
	}
	return jvm_step_to(w, sp, sc->j[JS_SAVED], sc->j[JS_RA]);
}

/*
 * In the native walk's step, at a pc without a table: a Java frame of a
 * JVM the walker knows is stepped over (the walk goes on) or ends the
 * walk; else the step goes on as before.  A statement, not a function:
 * a value returned through one more frame took 16 bytes the deepest
 * call chain (off-CPU, the walk's callback, jvm_frame) does not have.
 */
#define JVM_FRAME_STEP(w, index) do {					\
	if ((w)->rt == UW_RT_JVM) {					\
		switch (jvm_frame((index), (w)->pid)) {			\
		case 0:							\
			return 0;					\
		case 2:							\
			return 1;					\
		}							\
	}								\
} while (0)

#endif
