/*
 * The state every program of profile.bpf.c shares: the live knobs, the
 * maps, the per-CPU counters, the events to userspace and a pid's config
 * (a placeholder and one request for a pid seen first).
 */
#ifndef EBPFSPY_MAPS_BPF_H
#define EBPFSPY_MAPS_BPF_H

/*
 * Live knobs: in .bss/.data so that a reload changes them without
 * reloading the programs.
 */
int collect_kthreads = 0;
int collect_idle = 0;
int collect_user = 1;		/* for pids whose config is pending */
int collect_kernel = 1;
int per_thread = 0;
/* Without targets_only every process is profiled: an exec needs no answer. */
int exec_profiled = 0;
__u32 offcpu_states = PROFILE_TASK_INTERRUPTIBLE |
    PROFILE_TASK_UNINTERRUPTIBLE;
__u64 offcpu_min_ns = 1000;
__u64 offcpu_max_ns = 0;

/* Sizes are set by userspace before load from the config. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct profile_pid_config);
} pid_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct profile_key);
	__type(value, __u64);
} counts SEC(".maps");

/*
 * Native stacks go to userspace through their own ring, so that a
 * round takes them without a system call per stack, and so that they
 * never crowd the process events out of theirs.  Each stack is sent
 * once a generation (a round: userspace bumps stack_gen at each
 * round's start), the daemon keeps its copy while it is counted, and
 * stack_seen says which were sent this generation (stack_store).
 * Userspace sizes both: stack_seen a power of two of entries,
 * stack_seen_mask the number less one; stack_rb some 64 bytes a stack.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} stack_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 2048 * 1024);
} stack_rb SEC(".maps");

const volatile __u32 stack_seen_mask = 65535;
volatile __u32 stack_gen;	/* 0 before userspace sets it: as 1 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct profile_offcpu_start);
} offcpu_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROFILE_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Thread names for the thread_name label, taken when a thread is seen:
 * a thread that has exited by the end of the round keeps its name.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, char[PROFILE_COMM_LEN]);
} thread_comm SEC(".maps");

/*
 * A stack is too large for the 512-byte BPF stack: walk into this,
 * behind the header of its ring record.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct profile_stack_rec);
} scratch SEC(".maps");

static __always_inline void
stat_add(__u32 idx, __u64 n)
{
	__u64	*v;

	v = bpf_map_lookup_elem(&stats, &idx);
	if (v != NULL)
		*v += n;
}

/*
 * Events that need an answer wake userspace up at once.  The others
 * (exec and exit when no answer is needed) wait for the next of those,
 * or for the drain at the start of each round, unless a quarter of the
 * ring is unread: then they wake userspace to make room, so that a
 * burst of processes is read before the ring fills.  A machine that
 * starts hundreds of processes a second must not wake the daemon twice
 * for each, and an idle one must not wake it at all between rounds.
 * Waking is forced: the kernel's default wakes only when the record is
 * the first one unread, which it is not behind records that did not
 * wake.
 */
static __always_inline __u64
event_quiet_flags(void)
{
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >=
	    bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 4)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void
event_send_args(__u32 type, __u32 pid, __u64 arg, __u64 arg2, __u64 flags)
{
	struct profile_event	ev = {};

	ev.type = type;
	ev.pid = pid;
	ev.arg = arg;
	ev.arg2 = arg2;
	bpf_get_current_comm(ev.comm, sizeof(ev.comm));
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), flags) != 0)
		stat_add(PROFILE_STAT_RINGBUF_LOST, 1);
}

static __always_inline void
event_send_flags(__u32 type, __u32 pid, __u64 arg, __u64 flags)
{
	event_send_args(type, pid, arg, 0, flags);
}

static __always_inline void
event_send_arg(__u32 type, __u32 pid, __u64 arg)
{
	event_send_flags(type, pid, arg, BPF_RB_FORCE_WAKEUP);
}

static __always_inline void
event_send(__u32 type, __u32 pid)
{
	event_send_arg(type, pid, 0);
}

/*
 * The config of a pid.  A pid seen for the first time gets an UNKNOWN
 * placeholder and one request to userspace; the placeholder is the rate
 * limit, and the sample that found it is dropped.
 */
static __always_inline struct profile_pid_config *
pid_config_get(__u32 pid)
{
	struct profile_pid_config	*cfg, unknown = {};

	cfg = bpf_map_lookup_elem(&pid_config, &pid);
	if (cfg != NULL)
		return cfg;
	if (bpf_map_update_elem(&pid_config, &pid, &unknown,
	    BPF_NOEXIST) != 0) {
		/* Another CPU won the race, or the map is full. */
		if (bpf_map_lookup_elem(&pid_config, &pid) == NULL)
			stat_add(PROFILE_STAT_PID_MAP_FULL, 1);
		return NULL;
	}
	stat_add(PROFILE_STAT_UNKNOWN_PID, 1);
	event_send(PROFILE_EVENT_UNKNOWN_PID, pid);
	return NULL;
}

#endif
