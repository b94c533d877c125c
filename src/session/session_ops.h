#ifndef EBPFSPY_SESSION_OPS_H
#define EBPFSPY_SESSION_OPS_H

/*
 * What a session does, as a table: session.c's public functions call
 * through it.  Two implementations: session_bpf.c, the skeleton the
 * daemon runs, and session_null.c, fed by a test with the events,
 * counts and stacks it wants the round to see.  Each implementation's
 * struct starts with a pointer to its table.  Only session*.c include
 * this.
 */
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"
#include "session.h"

struct session_ops {
	void		 (*close)(struct session *);
	struct session_change *(*prepare)(struct session *,
			    const struct config *);
	void		 (*commit)(struct session *, struct session_change *);
	void		 (*abort)(struct session *, struct session_change *);
	void		 (*drain_events)(struct session *);

	int		 (*pid_set)(struct session *, pid_t,
			    const struct profile_pid_config *);
	int		 (*pid_delete)(struct session *, pid_t);
	int		 (*pid_get)(struct session *, pid_t,
			    struct profile_pid_config *);
	pid_t		*(*pid_keys)(struct session *, size_t *);
	struct session_unwind *(*unwind)(struct session *);
	size_t		 (*counts_drain)(struct session *,
			    const struct profile_key **, const uint64_t **);
	size_t		 (*offcpu_inflight)(struct session *, uint64_t,
			    uint64_t, const struct profile_key **,
			    const uint64_t **);
	int		 (*thread_comm)(struct session *, pid_t, char *,
			    size_t);

	int		 (*pyinfo_set)(struct session *, pid_t,
			    const struct profile_py_info *);
	int		 (*pyinfo_get)(struct session *, pid_t,
			    struct profile_py_info *);
	int		 (*pyinfo_delete)(struct session *, pid_t);
	int		 (*pystack_read)(struct session *, uint64_t,
			    struct profile_pystack *);
	const struct stacks_map *(*pystacks_map)(struct session *);
	int		 (*v8info_set)(struct session *, pid_t,
			    const struct profile_v8_info *);
	int		 (*v8info_delete)(struct session *, pid_t);
	int		 (*jvminfo_set)(struct session *, pid_t,
			    const struct profile_jvm_info *);
	int		 (*jvminfo_delete)(struct session *, pid_t);
	int		 (*rtstack_read)(struct session *, uint64_t,
			    struct profile_rtstack *);
	int		 (*rtstack_delete)(struct session *, uint64_t);

	void		 (*stack_gen_next)(struct session *);
	const uint64_t	*(*stack_get)(struct session *, uint64_t, size_t *);
	void		 (*stack_touch)(struct session *, uint64_t);
	int		 (*stack_lookup)(struct session *, uint64_t,
			    struct profile_stack *);
	void		 (*stacks_round_end)(struct session *);
	void		 (*stacks_stats)(struct session *,
			    struct stacks_stats *);

	long long	 (*map_entries)(struct session *, enum session_map,
			    long long);
	void		 (*stats)(struct session *, uint64_t *);
	int		 (*ncpus)(struct session *);
	int		 (*cpu_attached)(struct session *);
	int		 (*offcpu_attached)(struct session *);
};

/* session_bpf.c: the daemon's session, session_open()'s. */
struct session	*session_bpf_open(struct ev_loop *, const struct config *,
		    session_event_cb, void *);

#endif
