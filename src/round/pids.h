#ifndef EBPFSPY_PIDS_H
#define EBPFSPY_PIDS_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"

struct config;
struct pids;
struct python;
struct unwind_maps;
struct unwind_maps_proc;
struct python_proc;
struct resolve;
struct resolve_proc;
struct session;
struct target_labels;

enum pids_state {
	PIDS_ALIVE,
	PIDS_DEAD,		/* exited: named until the next round end */
};

/* One process the daemon knows. */
struct pids_proc {
	pid_t			 pid;
	enum pids_state		 state;
	int			 type;		/* enum profile_pid_type */
	char			 comm[PROFILE_COMM_LEN];
	int			 kthread;
	int			 evaluated;
	int			 loaded;	/* maps read since its exec */
	int			 wait_exe;	/* read again in its code */
	uint64_t		 exe_lo, exe_hi; /* its executable's code */
	struct target_labels	*labels;	/* of its target */
	int			 labels_pending; /* looked up when sampled */
	pid_t			 ppid;		/* its parent; 0: unknown */
	int			 forget;	/* gone: at the next round end */
	uint64_t		 lifetime;	/* ns, once it exited; 0 */
	/*
	 * The labels its samples go under (its own, its parent's or
	 * unknown_service's): set by pids_get(), good until the next
	 * call into pids.
	 */
	const struct target_labels *service;
	struct resolve_proc	*rp;
	/* type PYTHON: src/python/python.c */
	struct python_proc	*py;
	int			 py_pending;	/* libpython not mapped yet */
	int			 py_tries;
	struct unwind_maps_proc	*uw;		/* src/unwind/unwind_maps.c */
};

struct pids_stats {
	uint64_t	 requests;	/* first samples of unknown pids */
	uint64_t	 execs;
	uint64_t	 exits;
	uint64_t	 loads;		/* maps read at a first sample */
	uint64_t	 maps_reads;	/* /proc/PID/maps reads, all causes */
};

struct pids	*pids_create(struct session *, struct resolve *,
		    const struct config *);
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
struct python	*pids_python(struct pids *);
/* A thread's name, in buf: as BPF saw it, else /proc's, else "[tid]". */
const char	*pids_thread_name(struct pids *, pid_t, pid_t, char *, size_t);
void		 pids_set_unwind(struct pids *, struct unwind_maps *);

#endif
