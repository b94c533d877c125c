/*
 * V8's frames, #included by bpf/rtframe.bpf.h.  Every V8 frame keeps
 * rbp, so the native walker steps over it by frame pointer; before the
 * step, for a frame whose pc is in JIT code (an anonymous executable
 * mapping) or in the embedded builtins (the interpreter's handlers),
 * v8_frame() records the function that runs there: [fp-16] is its
 * JSFunction unless [fp-8] is a frame-type marker (bit 0 clear), and
 * the JSFunction's shared info (SFI) names it.  The SFI is read now,
 * at the sample: the GC moves JSFunctions, not often SFIs.  An
 * interpreted frame adds its bytecode offset ([fp-40], a SMI), a JIT
 * frame its pc's offset in the function's Code.  Every object is
 * checked by its map's instance type before it is trusted.
 * Offsets and types are the process's own v8dbg_ constants, written by
 * src/v8/v8.c into v8_info.
 */
#ifndef EBPFSPY_V8PERF_H
#define EBPFSPY_V8PERF_H

/* The frame window read: fp-56 .. fp+8. */
#define V8_FP_BELOW	56

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct profile_v8_info);
} v8_info SEC(".maps");

/* A slot of the frame window, by its offset from fp; 0 when outside. */
static __always_inline __u64
v8_slot(struct rt_scratch *sc, __s16 off)
{
	__s32	b = (__s32)off + V8_FP_BELOW;
	__u32	i;

	if (b < 0 || b >= RT_BUF_SIZE)
		return 0;
	i = (__u32)b >> 3;
	return sc->buf[i & (RT_BUF_SIZE / 8 - 1)];
}

/* The instance type of a tagged heap object; -1 when unreadable. */
static __always_inline __s32
v8_type(struct rt_scratch *sc, const struct profile_v8_info *vi, __u64 obj)
{
	if ((obj & 3) != 1 || obj > UW_USER_MAX ||
	    bpf_probe_read_user(&sc->obj[0], 8, (void *)(obj - 1 +
	    vi->map)) != 0 || (sc->obj[0] & 3) != 1 ||
	    bpf_probe_read_user(&sc->obj[1], 2, (void *)(sc->obj[0] - 1 +
	    vi->map_type)) != 0)
		return -1;
	return (__u16)sc->obj[1];
}

/* A tagged field of a tagged object; 0 when unreadable. */
static __always_inline __u64
v8_field(struct rt_scratch *sc, __u64 obj, __u16 off)
{
	if (bpf_probe_read_user(&sc->obj[1], 8, (void *)(obj - 1 + off)) !=
	    0)
		return 0;
	return sc->obj[1];
}

/*
 * The frame at fp, native frame index (bit 31: its pc is in JIT code),
 * else maybe in the builtins (vaddr: pc in its file, 0 when in none):
 * one record if a JS function runs there.  Global,
 * so that the verifier checks it once, not at every state of the walk
 * that calls it.
 */
__noinline int
v8_frame(__u64 pc, __u64 fp, __u32 index, __u32 pid, __u64 vaddr)
{
	struct profile_v8_info	*vi;
	struct rt_scratch	*sc;
	__u64			 func, sfi, code, start, off;
	__s32			 t;
	__u32			 zero = 0, jit;

	if ((vi = bpf_map_lookup_elem(&v8_info, &pid)) == NULL ||
	    (sc = bpf_map_lookup_elem(&rt_scratch, &zero)) == NULL)
		return 0;
	jit = index >> 31;
	index &= 0xffff;
	if (!jit && (vaddr < vi->builtins_lo || vaddr >= vi->builtins_hi))
		return 0;
	if (fp < V8_FP_BELOW || fp > UW_USER_MAX || bpf_probe_read_user(
	    sc->buf, RT_BUF_SIZE, (void *)(fp - V8_FP_BELOW)) != 0) {
		stat_add(PROFILE_STAT_RT_READ_ERR, 1);
		return 0;
	}
	/* A typed frame (entry, exit, stub): no function of its own. */
	if ((v8_slot(sc, vi->fp_context) & 1) == 0)
		return 0;
	func = v8_slot(sc, vi->fp_function);
	t = v8_type(sc, vi, func);
	if (t < vi->type_func_lo || t > vi->type_func_hi) {
		stat_add(PROFILE_STAT_RT_NOT_FUNC, 1);
		return 0;
	}
	sfi = v8_field(sc, func, vi->func_shared);
	if (v8_type(sc, vi, sfi) != vi->type_sfi) {
		stat_add(PROFILE_STAT_RT_NOT_FUNC, 1);
		return 0;
	}
	if (!jit) {
		/* The interpreter's frame: its bytecode and offset. */
		off = v8_slot(sc, vi->fp_bytecode_offset);
		if ((off & 0xffffffffULL) != 0 || v8_type(sc, vi,
		    v8_slot(sc, vi->fp_bytecode_array)) != vi->type_bytecode)
			off = 0;
		rt_frame_append(sc, sfi, (__u32)(off >> 32), 0, index,
		    PROFILE_RT_V8_INTERP);
		return 0;
	}
	code = v8_field(sc, func, vi->func_code);
	off = 0xffffffffULL;
	if (v8_type(sc, vi, code) == vi->type_code) {
		if (vi->code_inline)
			start = code - 1 + vi->code_start;
		else
			start = v8_field(sc, code, vi->code_start);
		if (pc >= start && pc - start < 0xffffffffULL)
			off = pc - start;
	}
	rt_frame_append(sc, sfi, (__u32)off, (__u32)code, index,
	    PROFILE_RT_V8_JIT);
	return 0;
}

/*
 * The walker steps over the frame of pc by its frame pointer: a V8
 * frame?  Its pc is in the process's anonymous code (the mapping found
 * last, with no file) or in the builtins, by their address in the file:
 * node maps them again elsewhere once started.
 */
static __always_inline void
rt_frame_note(__u32 rt, __u64 pc, __u64 fp, __u32 index, __u32 pid,
    __u64 mstart, __u64 mend, __u32 mfile, __u64 bias)
{
	if (rt != UW_RT_V8)
		return;
	if (pc < mstart || pc >= mend)
		v8_frame(pc, fp, index, pid, 0);
	else if (mfile == UNWIND_NO_FILE)
		v8_frame(pc, fp, index | 1U << 31, pid, 0);
	else
		v8_frame(pc, fp, index, pid, pc - bias);
}

#endif
