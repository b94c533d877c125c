#ifndef EBPFSPY_PIDS_H
#define EBPFSPY_PIDS_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"

struct config;
struct pids;
struct pids_proc;
struct resolve;
struct resolve_proc;
struct runtime_proc;
struct runtimes;
struct session;
struct target_labels;

enum pids_state {
	PIDS_ALIVE,
	PIDS_DEAD,		/* exited: named until the next round end */
};

/*
 * One process the daemon knows: opaque (pids_int.h), read through
 * these.  Valid until the next round end.
 */
int		 pids_proc_is_profiled(const struct pids_proc *);
const char	*pids_proc_comm(const struct pids_proc *);
/*
 * The labels its samples go under (its own, its parent's or
 * unknown_service's): set by pids_get(), good until the next call into
 * pids.
 */
const struct target_labels *pids_proc_service(const struct pids_proc *);
struct resolve_proc *pids_proc_resolve(const struct pids_proc *);
/*
 * The runtime that names the stacks of a walker of its own (a sample's
 * pystack), with the process's state of it (NULL: none open).
 */
void		 pids_proc_stack_runtime(const struct pids_proc *,
		    struct runtime_proc *);

struct pids_stats {
	uint64_t	 requests;	/* first samples of unknown pids */
	uint64_t	 execs;
	uint64_t	 exits;
	uint64_t	 loads;		/* maps read at a first sample */
	uint64_t	 maps_reads;	/* /proc/PID/maps reads, all causes */
};

/* The runtimes' states are kept per process (runtime/runtime.h). */
struct pids	*pids_create(struct session *, struct resolve *,
		    struct runtimes *, const struct config *);
void		 pids_free(struct pids *);
void		 pids_configure(struct pids *, const struct config *);
void		 pids_event(struct pids *, const struct profile_event *);
/* The process of a sample: known, or looked up now. */
struct pids_proc *pids_get(struct pids *, pid_t);
void		 pids_counts_drained(struct pids *);
void		 pids_round_end(struct pids *);
void		 pids_log_state(struct pids *);
size_t		 pids_count(struct pids *, enum pids_state);
size_t		 pids_bpf_entries(struct pids *);
void		 pids_stats(struct pids *, struct pids_stats *);
/* A thread's name, in buf: as BPF saw it, else /proc's, else "[tid]". */
const char	*pids_thread_name(struct pids *, pid_t, pid_t, char *, size_t);

#endif
