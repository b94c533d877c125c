/*
 * The session's public functions: each calls the session's own table
 * (session_ops.h), the libbpf skeleton's (session_bpf.c) or a test's
 * (session_null.c), so that the rest of the daemon -- the round, the
 * process table -- is the same code over either.
 */
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"
#include "session.h"
#include "session_ops.h"

/* Every implementation's struct starts with its table. */
static const struct session_ops *
session_ops(struct session *s)
{
	return *(const struct session_ops *const *)(void *)s;
}

struct session *
session_open(struct ev_loop *loop, const struct config *conf,
    session_event_cb cb, void *arg)
{
	return session_bpf_open(loop, conf, cb, arg);
}

void
session_close(struct session *s)
{
	if (s != NULL)
		session_ops(s)->close(s);
}

struct session_change *
session_prepare(struct session *s, const struct config *conf)
{
	return session_ops(s)->prepare(s, conf);
}

void
session_commit(struct session *s, struct session_change *c)
{
	session_ops(s)->commit(s, c);
}

void
session_abort(struct session *s, struct session_change *c)
{
	session_ops(s)->abort(s, c);
}

void
session_drain_events(struct session *s)
{
	session_ops(s)->drain_events(s);
}

int
session_pid_set(struct session *s, pid_t pid,
    const struct profile_pid_config *cfg)
{
	return session_ops(s)->pid_set(s, pid, cfg);
}

int
session_pid_delete(struct session *s, pid_t pid)
{
	return session_ops(s)->pid_delete(s, pid);
}

int
session_pid_get(struct session *s, pid_t pid, struct profile_pid_config *cfg)
{
	return session_ops(s)->pid_get(s, pid, cfg);
}

pid_t *
session_pid_keys(struct session *s, size_t *n)
{
	return session_ops(s)->pid_keys(s, n);
}

struct session_unwind *
session_unwind(struct session *s)
{
	return session_ops(s)->unwind(s);
}

size_t
session_counts_drain(struct session *s, const struct profile_key **keys,
    const uint64_t **vals)
{
	return session_ops(s)->counts_drain(s, keys, vals);
}

size_t
session_offcpu_inflight(struct session *s, uint64_t min_ns, uint64_t max_ns,
    const struct profile_key **keys, const uint64_t **vals)
{
	return session_ops(s)->offcpu_inflight(s, min_ns, max_ns, keys, vals);
}

int
session_thread_comm(struct session *s, pid_t tid, char *buf, size_t len)
{
	return session_ops(s)->thread_comm(s, tid, buf, len);
}

int
session_pyinfo_set(struct session *s, pid_t pid,
    const struct profile_py_info *pi)
{
	return session_ops(s)->pyinfo_set(s, pid, pi);
}

int
session_pyinfo_get(struct session *s, pid_t pid, struct profile_py_info *pi)
{
	return session_ops(s)->pyinfo_get(s, pid, pi);
}

int
session_pyinfo_delete(struct session *s, pid_t pid)
{
	return session_ops(s)->pyinfo_delete(s, pid);
}

int
session_pystack_read(struct session *s, uint64_t id, struct profile_pystack *st)
{
	return session_ops(s)->pystack_read(s, id, st);
}

const struct stacks_map *
session_pystacks_map(struct session *s)
{
	return session_ops(s)->pystacks_map(s);
}

int
session_v8info_set(struct session *s, pid_t pid,
    const struct profile_v8_info *vi)
{
	return session_ops(s)->v8info_set(s, pid, vi);
}

int
session_v8info_delete(struct session *s, pid_t pid)
{
	return session_ops(s)->v8info_delete(s, pid);
}

int
session_jvminfo_set(struct session *s, pid_t pid,
    const struct profile_jvm_info *ji)
{
	return session_ops(s)->jvminfo_set(s, pid, ji);
}

int
session_jvminfo_delete(struct session *s, pid_t pid)
{
	return session_ops(s)->jvminfo_delete(s, pid);
}

int
session_rtstack_read(struct session *s, uint64_t id,
    struct profile_rtstack *st)
{
	return session_ops(s)->rtstack_read(s, id, st);
}

int
session_rtstack_delete(struct session *s, uint64_t id)
{
	return session_ops(s)->rtstack_delete(s, id);
}

void
session_stack_gen_next(struct session *s)
{
	session_ops(s)->stack_gen_next(s);
}

const uint64_t *
session_stack_get(struct session *s, uint64_t id, size_t *n)
{
	return session_ops(s)->stack_get(s, id, n);
}

void
session_stack_touch(struct session *s, uint64_t id)
{
	session_ops(s)->stack_touch(s, id);
}

int
session_stack_lookup(struct session *s, uint64_t id, struct profile_stack *st)
{
	return session_ops(s)->stack_lookup(s, id, st);
}

void
session_stacks_round_end(struct session *s)
{
	session_ops(s)->stacks_round_end(s);
}

void
session_stacks_stats(struct session *s, struct stacks_stats *st)
{
	session_ops(s)->stacks_stats(s, st);
}

long long
session_map_entries(struct session *s, enum session_map which, long long max)
{
	return session_ops(s)->map_entries(s, which, max);
}

void
session_stats(struct session *s, uint64_t *stats)
{
	session_ops(s)->stats(s, stats);
}

int
session_ncpus(struct session *s)
{
	return session_ops(s)->ncpus(s);
}

int
session_cpu_attached(struct session *s)
{
	return session_ops(s)->cpu_attached(s);
}

int
session_offcpu_attached(struct session *s)
{
	return session_ops(s)->offcpu_attached(s);
}

const char *
session_stat_name(int stat)
{
	static const char *const names[PROFILE_STAT_MAX] = {
		[PROFILE_STAT_SAMPLES] = "samples",
		[PROFILE_STAT_COUNTED] = "counted",
		[PROFILE_STAT_IDLE] = "idle",
		[PROFILE_STAT_KTHREAD] = "kthread",
		[PROFILE_STAT_NOT_PROFILED] = "not_profiled",
		[PROFILE_STAT_UNKNOWN_PID] = "unknown_pid",
		[PROFILE_STAT_UNKNOWN_DROP] = "unknown_drop",
		[PROFILE_STAT_PID_MAP_FULL] = "pid_map_full",
		[PROFILE_STAT_COUNTS_FULL] = "counts_full",
		[PROFILE_STAT_STACKS_FULL] = "stacks_full",
		[PROFILE_STAT_USTACK_ERR] = "ustack_err",
		[PROFILE_STAT_KSTACK_ERR] = "kstack_err",
		[PROFILE_STAT_RINGBUF_LOST] = "ringbuf_lost",
		[PROFILE_STAT_EXEC] = "exec",
		[PROFILE_STAT_EXIT] = "exit",
		[PROFILE_STAT_OFFCPU_SWITCH] = "offcpu_switch",
		[PROFILE_STAT_OFFCPU_NS] = "offcpu_ns",
		[PROFILE_STAT_OFFCPU_START_FULL] = "offcpu_start_full",
		[PROFILE_STAT_OFFCPU_SHORT] = "offcpu_short",
		[PROFILE_STAT_OFFCPU_LONG] = "offcpu_long",
		[PROFILE_STAT_EXITING] = "exiting",
		[PROFILE_STAT_OFFCPU_PENDING_DROP] = "offcpu_pending_drop",
		[PROFILE_STAT_PY_STACKS] = "py_stacks",
		[PROFILE_STAT_PY_NO_THREAD] = "py_no_thread",
		[PROFILE_STAT_PY_READ_ERR] = "py_read_err",
		[PROFILE_STAT_PY_TRUNCATED] = "py_truncated",
		[PROFILE_STAT_PY_STACKS_FULL] = "py_stacks_full",
		[PROFILE_STAT_OFFCPU_UNSEEN_IN] = "offcpu_unseen_in",
		[PROFILE_STAT_RT_STACKS] = "rt_stacks",
		[PROFILE_STAT_RT_FRAMES] = "rt_frames",
		[PROFILE_STAT_RT_NOT_FUNC] = "rt_not_func",
		[PROFILE_STAT_RT_READ_ERR] = "rt_read_err",
		[PROFILE_STAT_RT_TRUNCATED] = "rt_truncated",
		[PROFILE_STAT_RT_STACKS_FULL] = "rt_stacks_full",
		[PROFILE_STAT_RT_JVM_NO_BLOB] = "rt_jvm_no_blob",
		[PROFILE_STAT_RT_JVM_BAD_RA] = "rt_jvm_bad_ra",
	};

	if (stat < 0 || stat >= PROFILE_STAT_MAX || names[stat] == NULL)
		return "?";
	return names[stat];
}
