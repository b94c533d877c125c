#ifndef EBPFSPY_SESSION_H
#define EBPFSPY_SESSION_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"

struct config;
struct ev_loop;
struct session;
struct session_change;
struct stacks_map;
struct stacks_stats;
struct session_unwind;

/* Called for each event of the ring buffer, in order. */
typedef void (*session_event_cb)(const struct profile_event *, void *);

/*
 * The BPF side: open the skeleton, size its maps from the config, load,
 * attach the on-CPU perf events and the off-CPU tracepoints that the
 * config asks for, and join the ring buffer's epoll fd to the loop.
 * The session is the only caller of libbpf: the rest of the daemon
 * reads and writes the maps through the operations below.
 */
struct session	*session_open(struct ev_loop *, const struct config *,
		    session_event_cb, void *);
void		 session_close(struct session *);
/* The kernel has what the BPF programs need: src/session/session_kernel.c. */
int		 session_kernel_check(void);
/*
 * The live keys of a new config, in two steps: prepare does all that
 * can fail and changes nothing BPF does (NULL: it failed, the old
 * config stays in force); then commit, which cannot fail, or abort.
 * The config must live until the commit.
 */
struct session_change *session_prepare(struct session *,
		    const struct config *);
void		 session_commit(struct session *, struct session_change *);
void		 session_abort(struct session *, struct session_change *);
/*
 * Consume what the ring buffers hold now, stacks first, then hand the
 * events read to the callback: by then the stack of every event that
 * names one is in the store (session_stack_lookup()).  Execs and exits
 * that need no answer, and stacks, do not wake the daemon
 * (bpf/profile.bpf.c) until a quarter of their ring is unread: whoever
 * needs them read calls this (each round, a state dump).
 */
void		 session_drain_events(struct session *);

/*
 * The pid config map.  A set is over an existing entry only: -1 with
 * ENOENT once BPF deleted it.
 */
int		 session_pid_set(struct session *, pid_t,
		    const struct profile_pid_config *);
int		 session_pid_delete(struct session *, pid_t);
int		 session_pid_get(struct session *, pid_t,
		    struct profile_pid_config *);
/* The pids the map holds now (allocated; the caller frees). */
pid_t		*session_pid_keys(struct session *, size_t *);

/* The unwind tables' maps: src/session/session_unwind.h. */
struct session_unwind *session_unwind(struct session *);
/*
 * Take every count out of BPF's map: the number of entries, their keys
 * and values, valid until the next drain.
 */
size_t		 session_counts_drain(struct session *,
		    const struct profile_key **, const uint64_t **);
/*
 * Add to the counts drained the threads blocked now, for as long as
 * they have been if that is at least min ns and at most max (0: no
 * most): the final round's.  The entries, all of them, again.
 */
size_t		 session_offcpu_inflight(struct session *, uint64_t,
		    uint64_t, const struct profile_key **, const uint64_t **);

/* A thread's name as BPF saw it at its last sample; -1 if not seen. */
int		 session_thread_comm(struct session *, pid_t, char *, size_t);

/* Python: a process's interpreter (py_info), a Python stack. */
int		 session_pyinfo_set(struct session *, pid_t,
		    const struct profile_py_info *);
int		 session_pyinfo_get(struct session *, pid_t,
		    struct profile_py_info *);
int		 session_pyinfo_delete(struct session *, pid_t);
int		 session_pystack_read(struct session *, uint64_t,
		    struct profile_pystack *);
/* The map of Python stacks, for a store of them (stacks.h). */
const struct stacks_map *session_pystacks_map(struct session *);
/* V8: a process's v8dbg_ layout (v8_info); records of runtime frames. */
int		 session_v8info_set(struct session *, pid_t,
		    const struct profile_v8_info *);
int		 session_v8info_delete(struct session *, pid_t);
/* HotSpot: a JVM's code heaps and blob layout (jvm_info). */
int		 session_jvminfo_set(struct session *, pid_t,
		    const struct profile_jvm_info *);
int		 session_jvminfo_delete(struct session *, pid_t);
int		 session_rtstack_read(struct session *, uint64_t,
		    struct profile_rtstack *);
int		 session_rtstack_delete(struct session *, uint64_t);

/*
 * Native stacks: the session keeps a copy of every stack its ring
 * brings (src/session/stacks.c says how long).  A new round: every stack
 * sampled from now on is sent again, once.
 */
void		 session_stack_gen_next(struct session *);
/* A stack's frames, leaf first, marked used; NULL if not held. */
const uint64_t	*session_stack_get(struct session *, uint64_t, size_t *);
/* A stack sampled whose frames are not needed: kept as if read. */
void		 session_stack_touch(struct session *, uint64_t);
/* The frames of a stack id, 0s after them, not kept longer; -1: none. */
int		 session_stack_lookup(struct session *, uint64_t,
		    struct profile_stack *);
void		 session_stacks_round_end(struct session *);
void		 session_stacks_stats(struct session *, struct stacks_stats *);

/* The maps of the state dump, and how many entries each holds now. */
enum session_map {
	SESSION_MAP_PID_CONFIG,
	SESSION_MAP_COUNTS,
	SESSION_MAP_OFFCPU_START,
};
long long	 session_map_entries(struct session *, enum session_map,
		    long long);

/* Sum the per-CPU counters into stats[PROFILE_STAT_MAX]. */
void		 session_stats(struct session *, uint64_t *);
/* The name of a counter, enum profile_stat; "?" if out of range. */
const char	*session_stat_name(int);
int		 session_ncpus(struct session *);
int		 session_cpu_attached(struct session *);
int		 session_offcpu_attached(struct session *);

#endif
