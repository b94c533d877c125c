#ifndef EBPFSPY_PIDS_INT_H
#define EBPFSPY_PIDS_INT_H

/*
 * The process table's insides, shared by its files: pids.c (the table,
 * its events, the BPF pid config), pids_target.c (which target takes a
 * process), pids_load.c (what a process's maps tell) and pids_runtime.c
 * (the runtimes' slots of a process).  No other file includes this.
 */
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"
#include "runtime/runtime.h"
#include "pids.h"

struct config;
struct procmaps;
struct resolve;
struct session;
struct target_labels;

/* A process's state of one runtime (runtime/runtime.h). */
struct pids_slot {
	void			*st;
	int			 pending;	/* opened again when sampled */
	int			 tries;
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
	char			*argv;		/* its cmdline, if it names */
	size_t			 argvlen;	/* it (pids_target_argv) */
	int			 labels_pending; /* looked up when sampled */
	pid_t			 ppid;		/* its parent; 0: unknown */
	int			 forget;	/* gone: at next round end */
	uint64_t		 lifetime;	/* ns, once it exited; 0 */
	const struct target_labels *service;	/* pids_proc_service() */
	struct resolve_proc	*rp;
	const struct runtimes	*runtimes;
	struct pids_slot	 slot[];	/* one per runtime */
};

struct pids {
	struct session		*session;
	struct resolve		*resolve;
	struct runtimes		*runtimes;
	struct container_cache	*containers;
	const struct config	*conf;
	struct pids_proc	**v;	/* open addressing by pid */
	size_t			 size;
	size_t			 count;
	struct pids_proc	**dead;	/* replaced by a reused pid */
	size_t			 ndead;
	uint64_t		 round;
	uint64_t		 requests, execs, exits, swept;
	uint64_t		 loads;		/* first maps reads */
	struct target_labels	*unknown;	/* unknown_service's */
	uint64_t		 parents;	/* parents looked up */
	int			 drained;	/* this round's counts are */
};

/* pids.c */
struct pids_proc *pids_find(struct pids *, pid_t);
struct pids_proc *pids_new(struct pids *, pid_t);
void	pids_evaluate(struct pids *, struct pids_proc *, const char *);

/* pids_target.c */
void	pids_target(struct pids *, struct pids_proc *);
void	pids_target_labels(struct pids *, struct pids_proc *);
void	pids_target_argv(struct pids_proc *);
const struct target_labels *pids_service(struct pids *, struct pids_proc *);

/* pids_load.c */
void	pids_load(struct pids *, struct pids_proc *, int, uint64_t);
void	pids_load_again(struct pids *, struct pids_proc *);
void	pids_load_asked(struct pids *, struct pids_proc *);
void	pids_load_forget(struct pids *, struct pids_proc *);

/* pids_runtime.c */
void	pids_runtime_open(struct pids *, struct pids_proc *, size_t,
	    const struct procmaps *);
void	pids_runtime_open_all(struct pids *, struct pids_proc *,
	    const struct procmaps *);
void	pids_runtime_again(struct pids *, struct pids_proc *,
	    const struct procmaps *, enum runtime_again);
void	pids_runtime_forget(struct pids *, struct pids_proc *);
void	pids_runtime_close(struct pids *, struct pids_proc *);
int	pids_runtime_pending(struct pids *, const struct pids_proc *);
void	pids_runtime_configure(struct pids *, const struct config *, int *);
void	pids_runtime_reconfigure(struct pids *, struct pids_proc *,
	    const int *);
int	pids_runtime_stack_seen(struct pids *, struct pids_proc *, uint64_t,
	    uint64_t);
void	pids_runtime_round_end(struct pids *);
void	pids_runtime_log_state(struct pids *);

#endif
