/*
 * The CPython walker, #included by bpf/profile.bpf.c after its helpers
 * (stat_add, hash_mix).  For a pid of type PROFILE_PID_PYTHON it finds
 * the sampled thread's own PyThreadState, walks its interpreter frames
 * and stores them, content-addressed, in pystacks; the counts key holds
 * the stack's id beside the native ones.  It reads no strings: each
 * frame is the code object's address, the instruction offset and a
 * check, and userspace (src/python/pysym.c) names them.
 *
 * The thread state is thread-specific data: CPython keeps it under the
 * pthread key _PyRuntime.autoTSSkey, and glibc keeps a thread's values
 * in its struct pthread, found from the thread pointer (bpf/arch.h:
 * x86_64's fsbase points at it; arm64's tpidr_el0 lies above it, and
 * userspace says where it is, tsd_first and tsd_second being offsets
 * from the thread pointer either way).
 * That is the sampled thread's own state, even while it waits without
 * the GIL; neither the GIL holder (3.11's gilstate.tstate_current) nor
 * 3.12's _Py_tss_tstate, NULL in a detached thread, would do.
 *
 * The walk runs under bpf_loop(): a plain bounded loop over the frames
 * exceeds the verifier's budget on this kernel.
 */
#ifndef EBPFSPY_PYPERF_H
#define EBPFSPY_PYPERF_H

#define PY_LOOP_MAX		(2 * PROFILE_PY_DEPTH + 16)
#define PY_FRAME_OWNED_BY_CSTACK 3	/* 3.12+: shim frame, not Python */
#define PY_FRAMEOBJ_READ	112	/* PyFrameObject head, 3.8-3.10 */
#define PY_IFRAME_READ		72	/* _PyInterpreterFrame, owner */
#define PY_CODE_READ		136	/* PyCodeObject to co_qualname */
#define PY_TSD_KEYS_MAX		1024	/* glibc PTHREAD_KEYS_MAX */

/* Frames the walk keeps, [python] depth: a live knob. */
__u32 py_depth = PROFILE_PY_DEPTH;

/* pid -> its interpreter, written by src/python/python.c. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct profile_py_info);
} py_info SEC(".maps");

/*
 * Python stacks by the hash of their frames.  A value is 3 KiB: the
 * map allocates as stacks come rather than all of it up front.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct profile_pystack);
} pystacks SEC(".maps");

struct py_scratch {
	struct profile_pystack	st;
	__u8			frame[PY_FRAMEOBJ_READ];
	__u8			code[PY_CODE_READ];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_scratch);
} py_scratch SEC(".maps");

/* The state of one walk, on the stack of the program that walks. */
struct py_walk {
	struct profile_py_info	info;
	__u64			frame;		/* the next frame */
	__u64			h;		/* of the frames */
	__u32			n;
	__u32			max;
	__u32			flags;
	__u32			errors;
};

/* A field of a buffer read from the process; 0 when out of it. */
static __always_inline __u64
py_get64(const __u8 *buf, __u32 off, __u32 size)
{
	if (off > size - 8)
		return 0;
	return *(const __u64 *)(buf + off);
}

static __always_inline __u32
py_get32(const __u8 *buf, __u32 off, __u32 size)
{
	if (off > size - 4)
		return 0;
	return *(const __u32 *)(buf + off);
}

static long
py_walk_cb(__u64 idx, void *arg)
{
	struct py_walk		*w = arg;
	struct py_scratch	*sc;
	struct profile_py_frame	*f;
	__u64			 frame = w->frame, code, instr, obj;
	__u64			 type = 0;
	__u32			 zero = 0, argc, first, owner, i;
	__s64			 lasti;

	if (frame == 0)
		return 1;
	if ((sc = bpf_map_lookup_elem(&py_scratch, &zero)) == NULL)
		return 1;
	if (w->info.kind == PROFILE_PY_IFRAME) {
		if (bpf_probe_read_user(sc->frame, PY_IFRAME_READ,
		    (void *)frame) != 0)
			goto fail;
		w->frame = py_get64(sc->frame, w->info.f_back, PY_IFRAME_READ);
		/* 3.12+: the entry frame of each C call into Python. */
		owner = w->info.f_owner;
		if (w->info.has_owner && owner < PY_IFRAME_READ &&
		    sc->frame[owner] == PY_FRAME_OWNED_BY_CSTACK)
			return 0;
		code = py_get64(sc->frame, w->info.f_code, PY_IFRAME_READ);
		instr = py_get64(sc->frame, w->info.f_instr, PY_IFRAME_READ);
		lasti = (__s64)(instr - (code + w->info.co_code));
		if (lasti < -(1LL << 30) || lasti > (1LL << 30))
			lasti = -1;
	} else {
		if (bpf_probe_read_user(sc->frame, PY_FRAMEOBJ_READ,
		    (void *)frame) != 0)
			goto fail;
		w->frame = py_get64(sc->frame, w->info.f_back,
		    PY_FRAMEOBJ_READ);
		code = py_get64(sc->frame, w->info.f_code, PY_FRAMEOBJ_READ);
		lasti = (__s32)py_get32(sc->frame, w->info.f_instr,
		    PY_FRAMEOBJ_READ);
	}
	if (code == 0)
		return 0;
	if (w->n >= w->max) {
		/* A Python frame beyond the depth: say so, and stop. */
		w->flags |= PROFILE_PY_F_TRUNCATED;
		return 1;
	}
	f = &sc->st.f[w->n & (PROFILE_PY_DEPTH - 1)];
	f->code = code;
	f->lasti = (__s32)lasti;
	f->check = 0;
	f->self_type = 0;
	/*
	 * The code object may be paged out: keep its address and let
	 * userspace try.  What is read must be a code object: 3.13's shim
	 * frames hold None instead.
	 */
	if (bpf_probe_read_user(sc->code, PY_CODE_READ, (void *)code) == 0) {
		if (py_get64(sc->code, 8, PY_CODE_READ) !=
		    w->info.code_type)
			return 0;
		argc = py_get32(sc->code, w->info.co_argcount, PY_CODE_READ);
		first = py_get32(sc->code, w->info.co_firstlineno,
		    PY_CODE_READ);
		f->check = profile_py_check(py_get64(sc->code,
		    w->info.co_name, PY_CODE_READ), py_get64(sc->code,
		    w->info.co_filename, PY_CODE_READ), first, argc);
		/* 3.8-3.10 have no co_qualname: the class is self's. */
		if (w->info.self_type && argc > 0 &&
		    bpf_probe_read_user(&obj, sizeof(obj),
		    (void *)(frame + w->info.f_localsplus)) == 0 && obj != 0 &&
		    bpf_probe_read_user(&type, sizeof(type),
		    (void *)(obj + 8)) == 0)
			f->self_type = type;
	} else
		w->errors++;
	i = w->n;
	w->h = (w->h ^ code) * 0x100000001b3ULL;
	w->h ^= w->h >> 29;
	w->h = (w->h ^ ((__u64)f->lasti << 32 | f->check)) *
	    0x100000001b3ULL;
	w->h ^= f->self_type + (w->h >> 31);
	w->n = i + 1;
	return 0;

fail:
	w->errors++;
	return 1;
}

/* This thread's PyThreadState through glibc's pthread_getspecific(). */
static __always_inline __u64
py_thread_state(struct task_struct *task, const struct profile_py_info *pi)
{
#if defined(ARCH_THREAD_POINTER)
	struct {
		__s32	initialized;
		__u32	key;
	}		 tss;
	__u64		 tp, addr, block, tstate = 0;

	if (bpf_probe_read_user(&tss, sizeof(tss),
	    (void *)(pi->runtime + pi->tss_key)) != 0 || tss.initialized != 1)
		return 0;
	tp = ARCH_THREAD_POINTER(task);
	if (tp == 0)
		return 0;
	if (tss.key < 32)
		addr = tp + pi->tsd_first + tss.key * 16 + 8;
	else if (tss.key < PY_TSD_KEYS_MAX) {
		if (bpf_probe_read_user(&block, sizeof(block),
		    (void *)(tp + pi->tsd_second + (tss.key / 32) * 8)) !=
		    0 || block == 0)
			return 0;
		addr = block + (tss.key % 32) * 16 + 8;
	} else
		return 0;
	if (bpf_probe_read_user(&tstate, sizeof(tstate), (void *)addr) != 0)
		return 0;
	return tstate;
#else
	/* src/python/python.c refuses other architectures. */
	return 0;
#endif
}

/*
 * Is ip in the interpreter's own code?  Then no native frame runs above
 * Python, and the native stack need not be walked.
 */
static __always_inline int
py_in_interpreter(__u32 pid, __u64 ip)
{
	struct profile_py_info	*pi;

	pi = bpf_map_lookup_elem(&py_info, &pid);
	return pi != NULL && ip >= pi->text_lo && ip < pi->text_hi;
}

static __noinline void
py_event_send(__u32 pid, __u64 id, __u64 ustack)
{
	struct profile_event	ev = {};

	ev.type = PROFILE_EVENT_PYSTACK;
	ev.pid = pid;
	ev.arg = id;
	ev.arg2 = ustack;
	bpf_get_current_comm(ev.comm, sizeof(ev.comm));
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev),
	    BPF_RB_FORCE_WAKEUP) != 0)
		stat_add(PROFILE_STAT_RINGBUF_LOST, 1);
}

/*
 * Walk the Python stack of the current thread of pid and store it.
 * Returns its id, 0 when the thread runs no Python.  A new stack is
 * announced to userspace, which reads its code objects while the
 * process is alive: one that ends before the round is still named.
 * The native stack of the same sample goes with it: its innermost frame
 * may be in a library the program has just loaded.
 */
static __noinline __u64
py_stack_store(struct task_struct *task, __u32 pid, __u64 ustack)
{
	struct profile_py_info	*pi;
	struct py_scratch	*sc;
	struct py_walk		 w = {};
	__u64			 tstate, cframe = 0, frame = 0, h;
	__u32			 zero = 0;

	if ((pi = bpf_map_lookup_elem(&py_info, &pid)) == NULL)
		return 0;
	if ((sc = bpf_map_lookup_elem(&py_scratch, &zero)) == NULL)
		return 0;
	if ((tstate = py_thread_state(task, pi)) == 0) {
		stat_add(PROFILE_STAT_PY_NO_THREAD, 1);
		return 0;
	}
	if (pi->has_cframe) {
		if (bpf_probe_read_user(&cframe, sizeof(cframe),
		    (void *)(tstate + pi->ts_frame)) == 0 && cframe != 0)
			bpf_probe_read_user(&frame, sizeof(frame),
			    (void *)(cframe + pi->cframe_frame));
	} else
		bpf_probe_read_user(&frame, sizeof(frame),
		    (void *)(tstate + pi->ts_frame));
	if (frame == 0) {
		stat_add(PROFILE_STAT_PY_NO_THREAD, 1);
		return 0;
	}
	w.info = *pi;
	w.frame = frame;
	w.h = 0x9e3779b97f4a7c15ULL ^ pid;
	w.max = py_depth < PROFILE_PY_DEPTH ? py_depth : PROFILE_PY_DEPTH;
	bpf_loop(PY_LOOP_MAX, py_walk_cb, &w, 0);
	if (w.errors > 0)
		stat_add(PROFILE_STAT_PY_READ_ERR, 1);
	if (w.n == 0)
		return 0;
	if (w.flags & PROFILE_PY_F_TRUNCATED)
		stat_add(PROFILE_STAT_PY_TRUNCATED, 1);
	sc->st.n = w.n;
	sc->st.flags = w.flags;
	h = hash_mix(w.h ^ ((__u64)w.n << 8) ^ w.flags);
	if (h == 0)
		h = 1;
	stat_add(PROFILE_STAT_PY_STACKS, 1);
	/* Most samples repeat a stack already stored: look first. */
	if (bpf_map_lookup_elem(&pystacks, &h) != NULL)
		return h;
	if (bpf_map_update_elem(&pystacks, &h, &sc->st, BPF_NOEXIST) == 0)
		py_event_send(pid, h, ustack);
	else if (bpf_map_lookup_elem(&pystacks, &h) == NULL) {
		stat_add(PROFILE_STAT_PY_STACKS_FULL, 1);
		return 0;
	}
	return h;
}

#endif
