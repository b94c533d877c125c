#ifndef EBPFSPY_SESSION_H
#define EBPFSPY_SESSION_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"

struct config;
struct ev_loop;
struct session;
struct session_unwind;

/* Called for each event of the ring buffer, in order. */
typedef void (*session_event_cb)(const struct profile_event *, void *);
/* Called for each native stack record: its id, frames (leaf first), n. */
typedef void (*session_stack_cb)(uint64_t, const uint64_t *, size_t,
		    void *);
/* Fill in a stack's frames, 0s after them; -1 when not held. */
typedef int (*session_stack_lookup_cb)(uint64_t, struct profile_stack *,
		    void *);

/*
 * The BPF side: open the skeleton, size its maps from the config, load,
 * attach the on-CPU perf events and the off-CPU tracepoints that the
 * config asks for, and join the ring buffer's epoll fd to the loop.
 */
struct session	*session_open(struct ev_loop *, const struct config *,
		    session_event_cb, void *);
void		 session_close(struct session *);
/* The kernel has what the BPF programs need: src/session_kernel.c. */
int		 session_kernel_check(void);
/* Apply the live keys of a new config; -1 leaves the old in force. */
int		 session_apply(struct session *, const struct config *);
/*
 * Consume what the ring buffers hold now, stacks first.  Execs and
 * exits that need no answer, and stacks, do not wake the daemon
 * (bpf/profile.bpf.c) until a quarter of their ring is unread: whoever
 * needs them read calls this (each round, a state dump).
 */
void		 session_drain_events(struct session *);

/* Over an existing entry only: -1 with ENOENT once BPF deleted it. */
int		 session_pid_set(struct session *, pid_t,
		    const struct profile_pid_config *);
int		 session_pid_delete(struct session *, pid_t);
int		 session_pid_get(struct session *, pid_t,
		    struct profile_pid_config *);

/* The unwind tables' maps: src/session_unwind.h. */
struct session_unwind *session_unwind(struct session *);
int		 session_counts_fd(struct session *);
/*
 * Native stacks come through their ring to cb; lookup answers
 * session_stack_lookup() from the copies cb keeps.
 */
void		 session_set_stack_cb(struct session *, session_stack_cb,
		    session_stack_lookup_cb, void *);
/* A new round: every stack sampled from now on is sent again, once. */
void		 session_stack_gen_next(struct session *);
/* The frames of a stack id, 0s after them; -1 if not held. */
int		 session_stack_lookup(struct session *, uint64_t,
		    struct profile_stack *);
int		 session_pid_fd(struct session *);
int		 session_offcpu_fd(struct session *);
int		 session_pyinfo_fd(struct session *);
int		 session_pystacks_fd(struct session *);
int		 session_thread_comm_fd(struct session *);
/* Sum the per-CPU counters into stats[PROFILE_STAT_MAX]. */
void		 session_stats(struct session *, uint64_t *);
/* The name of a counter, enum profile_stat; "?" if out of range. */
const char	*session_stat_name(int);
int		 session_ncpus(struct session *);
int		 session_cpu_attached(struct session *);
int		 session_offcpu_attached(struct session *);

#endif
