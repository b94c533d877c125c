#ifndef EBPFSPY_PIDS_INT_H
#define EBPFSPY_PIDS_INT_H

/*
 * The process table's insides, shared by its files: pids.c (the table,
 * its events, the BPF pid config), pids_target.c (which target takes a
 * process) and pids_load.c (what a process's maps tell).  No other file
 * includes this.
 */
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

struct config;
struct pids_proc;
struct procmaps;
struct python;
struct resolve;
struct session;
struct target_labels;

struct pids {
	struct session		*session;
	struct resolve		*resolve;
	struct python		*python;
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
	struct unwind_maps	*unwind;	/* src/unwind/unwind_maps.c */
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
const struct target_labels *pids_service(struct pids *, struct pids_proc *);

/* pids_load.c */
void	pids_load(struct pids *, struct pids_proc *, int, uint64_t);
void	pids_load_again(struct pids *, struct pids_proc *);
void	pids_load_unwind(struct pids *, struct pids_proc *);
void	pids_load_python(struct pids *, struct pids_proc *,
	    const struct procmaps *);
void	pids_load_forget(struct pids *, struct pids_proc *);

#endif
