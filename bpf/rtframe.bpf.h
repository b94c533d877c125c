/*
 * Records of runtime frames that are native frames too (bpf/profile.h:
 * struct profile_rt_frame), #included by bpf/unwind.bpf.h: the native
 * walker steps over a JIT or interpreter frame by its frame pointer
 * (V8's) or by the runtime's own rule (HotSpot's, jvmperf.h), and the
 * runtime's reader appends what ran there with rt_frame_append().  At the walk's end rt_stack_store()
 * stores the records under the hash of their content, as pystacks holds
 * Python's, and tells userspace of a new one while the process lives:
 * it names the objects the records point to then.
 *
 * All state is in per-CPU maps: the native walk runs in a bpf_loop()
 * callback, and the deepest call chain has little of its 512 bytes of
 * stack left.
 */
#ifndef EBPFSPY_RTFRAME_BPF_H
#define EBPFSPY_RTFRAME_BPF_H

/* A runtime's object reads: the longest is V8's frame window. */
#define RT_BUF_SIZE	64
#define JVM_SCRATCH_WORDS	8

struct rt_scratch {
	struct profile_rtstack	st;
	__u64			h;		/* of the records so far */
	__u64			id;		/* rt_stack_store()'s */
	__u64			buf[RT_BUF_SIZE / 8];
	__u64			obj[2];
	/*
	 * HotSpot's reads (jvmperf.h): here, not on a stack that the
	 * deepest call chain has 16 bytes of left.
	 */
	__u64			j[JVM_SCRATCH_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_scratch);
} rt_scratch SEC(".maps");

/* Records by the hash of their content; 3 KiB a value: no prealloc. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct profile_rtstack);
} rtstacks SEC(".maps");

/* A walk begins: no records yet. */
static __always_inline void
rt_walk_reset(void)
{
	struct rt_scratch	*sc;
	__u32			 zero = 0;

	if ((sc = bpf_map_lookup_elem(&rt_scratch, &zero)) == NULL)
		return;
	sc->st.n = 0;
	sc->st.flags = 0;
	sc->h = 0x9e3779b97f4a7c15ULL;
	sc->id = 0;
}

/* The record of the native frame index: appended, and hashed. */
static __always_inline void
rt_frame_append(struct rt_scratch *sc, __u64 ptr, __u32 offset,
    __u32 check, __u32 index, __u8 kind)
{
	struct profile_rt_frame	*f;
	__u32			 n = sc->st.n;

	if (n >= PROFILE_RT_DEPTH) {
		sc->st.flags |= PROFILE_PY_F_TRUNCATED;
		return;
	}
	f = &sc->st.f[n & (PROFILE_RT_DEPTH - 1)];
	f->ptr = ptr;
	f->offset = offset;
	f->check = check;
	f->index = index;
	f->kind = kind;
	sc->h = (sc->h ^ ptr) * 0x100000001b3ULL;
	sc->h ^= sc->h >> 29;
	sc->h = (sc->h ^ ((__u64)offset << 32 | check)) * 0x100000001b3ULL;
	sc->h ^= ((__u64)index << 8 | kind) + (sc->h >> 31);
	sc->st.n = n + 1;
}

/* A new stack of records for userspace: 0, or -1 if the ring is full. */
static __always_inline int
rt_event_send(__u32 pid, __u64 id)
{
	struct profile_event	ev = {};

	ev.type = PROFILE_EVENT_PYSTACK;
	ev.pid = pid;
	ev.arg = id;
	bpf_get_current_comm(ev.comm, sizeof(ev.comm));
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev),
	    BPF_RB_FORCE_WAKEUP) != 0) {
		stat_add(PROFILE_STAT_RINGBUF_LOST, 1);
		return -1;
	}
	return 0;
}

/*
 * Store the records of the walk just done, at its end, their id in the
 * scratch for rt_stack_taken(); none when there are none or no room.
 * A new one is announced (PROFILE_EVENT_PYSTACK: the runtime's stack,
 * whatever runtime).  Global: checked once, not in each state of the
 * walk.
 */
__noinline int
rt_stack_store(__u32 pid)
{
	struct rt_scratch	*sc;
	__u64			 h;
	__u32			 zero = 0;

	if ((sc = bpf_map_lookup_elem(&rt_scratch, &zero)) == NULL)
		return 0;
	sc->id = 0;
	if (sc->st.n == 0)
		return 0;
	stat_add(PROFILE_STAT_RT_STACKS, 1);
	stat_add(PROFILE_STAT_RT_FRAMES, sc->st.n);
	if (sc->st.flags & PROFILE_PY_F_TRUNCATED)
		stat_add(PROFILE_STAT_RT_TRUNCATED, 1);
	h = hash_mix(sc->h ^ ((__u64)sc->st.n << 8) ^ sc->st.flags);
	if (h == 0)
		h = 1;
	if (bpf_map_lookup_elem(&rtstacks, &h) != NULL) {
		sc->id = h;
		return 0;
	}
	if (bpf_map_update_elem(&rtstacks, &h, &sc->st, BPF_NOEXIST) == 0) {
		/*
		 * Not announced (the ring is full: a burst of new stacks,
		 * as an interpreted phase makes): not stored either, so
		 * that the next sample of it announces it again.
		 */
		if (rt_event_send(pid, h) != 0) {
			bpf_map_delete_elem(&rtstacks, &h);
			return 0;
		}
	} else if (bpf_map_lookup_elem(&rtstacks, &h) == NULL) {
		stat_add(PROFILE_STAT_RT_STACKS_FULL, 1);
		return 0;
	}
	sc->id = h;
	return 0;
}

/* The id rt_stack_store() gave the walk just done, once; or 0. */
static __always_inline __u64
rt_stack_taken(void)
{
	struct rt_scratch	*sc;
	__u64			 id;
	__u32			 zero = 0;

	if ((sc = bpf_map_lookup_elem(&rt_scratch, &zero)) == NULL)
		return 0;
	id = sc->id;
	sc->id = 0;
	return id;
}

#include "jvmperf.h"
#include "v8perf.h"

#endif
