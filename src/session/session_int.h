#ifndef EBPFSPY_SESSION_INT_H
#define EBPFSPY_SESSION_INT_H

/*
 * The libbpf session's insides, shared by its files: session_bpf.c (the
 * skeleton, perf events, the rings), session_maps.c (the maps'
 * operations) and session_stacks.c (the stack store), which fill its
 * table of operations (session_ops.h).  No other file includes this.
 */
#include <ev.h>

#include "bpf/profile.h"
#include "session.h"
#include "stacks.h"

struct bpf_link;
struct profile_bpf;
struct ring_buffer;
struct session_ops;

struct session_cpu {
	int		 cpu;
	int		 fd;		/* the perf event */
	int		 link;		/* the on-CPU program's link */
};

struct session {
	const struct session_ops *ops;		/* first: session_ops.h */
	struct ev_loop		*loop;
	struct profile_bpf	*skel;
	struct ring_buffer	*rb;		/* the event ring */
	struct ring_buffer	*stack_rb;	/* the stack ring */
	ev_io			 rb_ev;
	ev_io			 stack_rb_ev;
	session_event_cb	 cb;
	void			*cb_arg;
	/* Events read, handed to cb once the rings are read. */
	struct profile_event	*events;
	size_t			 nevents;
	int			 events_full;

	struct stacks		*stacks;	/* native, from the ring */
	uint32_t		 stack_gen;	/* bpf/profile.bpf.c */
	uint32_t		 stack_seen_size;
	struct stacks_map	 pystacks;	/* Python's map, for stacks.c */
	int			 stacks_no_batch; /* kernel lacks batch ops */

	/* The counts drained, as session_counts_drain() hands them. */
	struct profile_key	*keys;
	uint64_t		*vals;
	size_t			 cap, n;
	int			 counts_no_batch;

	int			 offcpu_fd;	/* its program: session_offcpu.c */
	int			 offcpu_link;	/* attached, or -1 */
	int			 use_btf;	/* tp_btf sched_switch loaded */
	struct session_cpu	*cpus;
	int			 ncpus;		/* online, perf events */
	int			 npossible;	/* per-CPU map values */
	long long		 rate;		/* of the perf events */
	struct bpf_link		*exec_link;
	struct bpf_link		*exit_link;
	struct session_unwind	*unwind;	/* session_unwind.c */
};

/* session_offcpu.c */
int	session_offcpu_attach(struct session *);
void	session_offcpu_detach(struct session *);
void	session_offcpu_close(struct session *);

/* session_stacks.c */
void	session_stacks_open(struct session *);
void	session_stacks_close(struct session *);
int	session_stacks_rb_cb(void *, void *, size_t);
void	session_stacks_gen_next(struct session *);
const uint64_t *session_stacks_get(struct session *, uint64_t, size_t *);
void	session_stacks_touch(struct session *, uint64_t);
int	session_stacks_lookup(struct session *, uint64_t,
	    struct profile_stack *);
void	session_stacks_end_round(struct session *);
void	session_stacks_read_stats(struct session *, struct stacks_stats *);
const struct stacks_map *session_stacks_pymap(struct session *);

/* session_maps.c: the maps' operations of session.h */
void	session_maps_close(struct session *);
int	session_maps_pid_set(struct session *, pid_t,
	    const struct profile_pid_config *);
int	session_maps_pid_delete(struct session *, pid_t);
int	session_maps_pid_get(struct session *, pid_t,
	    struct profile_pid_config *);
pid_t	*session_maps_pid_keys(struct session *, size_t *);
size_t	session_maps_counts_drain(struct session *,
	    const struct profile_key **, const uint64_t **);
size_t	session_maps_offcpu_inflight(struct session *, uint64_t, uint64_t,
	    const struct profile_key **, const uint64_t **);
int	session_maps_thread_comm(struct session *, pid_t, char *, size_t);
int	session_maps_pyinfo_set(struct session *, pid_t,
	    const struct profile_py_info *);
int	session_maps_pyinfo_get(struct session *, pid_t,
	    struct profile_py_info *);
int	session_maps_pyinfo_delete(struct session *, pid_t);
int	session_maps_pystack_read(struct session *, uint64_t,
	    struct profile_pystack *);
int	session_maps_v8info_set(struct session *, pid_t,
	    const struct profile_v8_info *);
int	session_maps_v8info_delete(struct session *, pid_t);
int	session_maps_jvminfo_set(struct session *, pid_t,
	    const struct profile_jvm_info *);
int	session_maps_jvminfo_delete(struct session *, pid_t);
int	session_maps_rtstack_read(struct session *, uint64_t,
	    struct profile_rtstack *);
int	session_maps_rtstack_delete(struct session *, uint64_t);
long long session_maps_entries(struct session *, enum session_map,
	    long long);
void	session_maps_offcpu_forget(struct session *);
/* n counters of a per-CPU array map, each summed over the CPUs. */
void	session_maps_percpu_sum(int, int, uint64_t *, uint32_t);
/* Does EBPFSPY_TEST_FAIL ask that step to fail (session_kernel.c)? */
int	session_test_fail(const char *);

#endif
