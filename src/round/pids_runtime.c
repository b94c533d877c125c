/*
 * The runtimes' slots of a process (runtime/runtime.h says how a
 * runtime plugs in): each process keeps a state per registered runtime,
 * opened when its maps are first read, told of each later read, let go
 * at its exit and closed at its exec or when it is forgotten.  A
 * runtime with a walker of its own gives the process its BPF type while
 * its state is open.  The accessors of a process live here too: the
 * round reads a process only through them.
 */
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "bpf/profile.h"
#include "pids.h"
#include "pids_int.h"
#include "proc/procmaps.h"
#include "runtime/runtime.h"

#define PIDS_RUNTIME_TRIES	50	/* samples to wait for a library */

#define PIDS_EACH(p, i, ops, self)					\
	for ((i) = 0; (i) < runtimes_count((p)->runtimes) &&		\
	    ((ops) = runtimes_ops((p)->runtimes, (i))) != NULL &&	\
	    (((self) = runtimes_self((p)->runtimes, (i))), 1); (i)++)

/*
 * Its BPF type: that of a runtime walking it, else native; one not
 * profiled stays so.
 */
static void
pids_runtime_type(struct pids *p, struct pids_proc *proc)
{
	const struct runtime_ops	*ops;
	size_t				 i;

	if (proc->type != PROFILE_PID_FP &&
	    !runtimes_is_pid_type(p->runtimes, proc->type))
		return;
	proc->type = PROFILE_PID_FP;
	for (i = 0; i < runtimes_count(p->runtimes); i++) {
		ops = runtimes_ops(p->runtimes, i);
		if (proc->slot[i].st != NULL && ops->pid_type != 0)
			proc->type = ops->pid_type;
	}
}

/* Close runtime i's state of the process, and open it from maps. */
void
pids_runtime_open(struct pids *p, struct pids_proc *proc, size_t i,
    const struct procmaps *maps)
{
	const struct runtime_ops	*ops = runtimes_ops(p->runtimes, i);
	void				*self = runtimes_self(p->runtimes, i);
	struct pids_slot		*s = &proc->slot[i];

	if (ops->close != NULL)
		ops->close(self, s->st);
	s->st = NULL;
	s->pending = 0;
	pids_runtime_type(p, proc);
	if ((proc->type != PROFILE_PID_FP &&
	    !runtimes_is_pid_type(p->runtimes, proc->type)) ||
	    proc->kthread || proc->pid == 0 || ops->open == NULL)
		return;
	s->st = ops->open(self, proc->pid, maps, &s->pending);
	pids_runtime_type(p, proc);
}

void
pids_runtime_open_all(struct pids *p, struct pids_proc *proc,
    const struct procmaps *maps)
{
	size_t	 i;

	for (i = 0; i < runtimes_count(p->runtimes); i++)
		pids_runtime_open(p, proc, i, maps);
}

/* Its maps were read again: those pending are opened again. */
void
pids_runtime_again(struct pids *p, struct pids_proc *proc,
    const struct procmaps *maps, enum runtime_again why)
{
	const struct runtime_ops	*ops;
	void				*self;
	size_t				 i;

	PIDS_EACH(p, i, ops, self) {
		if (ops->again != NULL)
			proc->slot[i].st = ops->again(self, proc->slot[i].st,
			    proc->pid, maps, why);
	}
}

/* It exited: what a runtime keeps for its last samples stays. */
void
pids_runtime_forget(struct pids *p, struct pids_proc *proc)
{
	const struct runtime_ops	*ops;
	void				*self;
	size_t				 i;

	PIDS_EACH(p, i, ops, self) {
		if (ops->forget != NULL)
			proc->slot[i].st = ops->forget(self, proc->slot[i].st);
	}
}

/* Its image went (an exec) or it is forgotten: every state goes. */
void
pids_runtime_close(struct pids *p, struct pids_proc *proc)
{
	const struct runtime_ops	*ops;
	void				*self;
	size_t				 i;

	PIDS_EACH(p, i, ops, self) {
		if (ops->close != NULL)
			ops->close(self, proc->slot[i].st);
		proc->slot[i].st = NULL;
		proc->slot[i].pending = 0;
		proc->slot[i].tries = 0;
	}
	pids_runtime_type(p, proc);
}

/* Is a runtime still waiting for the process (BPF asks at samples)? */
int
pids_runtime_pending(struct pids *p, const struct pids_proc *proc)
{
	size_t	 i;

	for (i = 0; i < runtimes_count(p->runtimes); i++) {
		if (proc->slot[i].pending &&
		    proc->slot[i].tries < PIDS_RUNTIME_TRIES)
			return 1;
	}
	return 0;
}

/* New config: again[i] says runtime i asks for every process again. */
void
pids_runtime_configure(struct pids *p, const struct config *conf,
    int *again)
{
	const struct runtime_ops	*ops;
	void				*self;
	size_t				 i;

	PIDS_EACH(p, i, ops, self)
		again[i] = ops->configure != NULL ?
		    ops->configure(self, conf) : 0;
}

/*
 * A process matched again (its type FP or NONE): a runtime that asked
 * for it is opened again from its maps, if it is loaded and profiled;
 * one that walks it lets a process no longer profiled go.  A process
 * not sampled yet is looked at when it is.
 */
void
pids_runtime_reconfigure(struct pids *p, struct pids_proc *proc,
    const int *again)
{
	const struct runtime_ops	*ops;
	struct procmaps			*maps = NULL;
	size_t				 i;
	int				 read = 0;

	for (i = 0; i < runtimes_count(p->runtimes); i++) {
		ops = runtimes_ops(p->runtimes, i);
		if (!again[i] && (ops->pid_type == 0 ||
		    proc->type == PROFILE_PID_FP))
			continue;
		if (!read) {
			maps = proc->loaded && proc->type == PROFILE_PID_FP ?
			    procmaps_read(proc->pid) : NULL;
			read = 1;
		}
		pids_runtime_open(p, proc, i, maps);
	}
	procmaps_free(maps);
	pids_runtime_type(p, proc);
}

/* A walker stored a new stack: 1 if the process's symbols need reading. */
int
pids_runtime_stack_seen(struct pids *p, struct pids_proc *proc, uint64_t id,
    uint64_t ustack)
{
	const struct runtime_ops	*ops;
	void				*self;
	size_t				 i;
	int				 seen = 0;

	PIDS_EACH(p, i, ops, self) {
		if (proc->slot[i].st != NULL && ops->stack_seen != NULL &&
		    ops->stack_seen(self, proc->slot[i].st, id, ustack))
			seen = 1;
	}
	return seen;
}

void
pids_runtime_round_end(struct pids *p)
{
	const struct runtime_ops	*ops;
	void				*self;
	size_t				 i;

	PIDS_EACH(p, i, ops, self) {
		if (ops->round_end != NULL)
			ops->round_end(self);
	}
}

void
pids_runtime_log_state(struct pids *p)
{
	const struct runtime_ops	*ops;
	void				*self;
	size_t				 i;

	PIDS_EACH(p, i, ops, self) {
		if (ops->log_state != NULL)
			ops->log_state(self);
	}
}

int
pids_proc_is_profiled(const struct pids_proc *proc)
{
	return proc->type == PROFILE_PID_FP ||
	    runtimes_is_pid_type(proc->runtimes, proc->type);
}

const char *
pids_proc_comm(const struct pids_proc *proc)
{
	return proc->comm;
}

const struct target_labels *
pids_proc_service(const struct pids_proc *proc)
{
	return proc->service;
}

struct resolve_proc *
pids_proc_resolve(const struct pids_proc *proc)
{
	return proc->rp;
}

/* The runtime that names a walker's stacks. */
void
pids_proc_stack_runtime(const struct pids_proc *proc, struct runtime_proc *rp)
{
	const struct runtime_ops	*ops;
	size_t				 i;

	rp->ops = NULL;
	rp->self = rp->st = NULL;
	/* The one it runs, else the first: its state may be gone. */
	for (i = 0; i < runtimes_count(proc->runtimes); i++) {
		ops = runtimes_ops(proc->runtimes, i);
		if (ops->stack_names == NULL && ops->stack_merge == NULL)
			continue;
		if (rp->ops != NULL && proc->slot[i].st == NULL)
			continue;
		rp->ops = ops;
		rp->self = runtimes_self(proc->runtimes, i);
		rp->st = proc->slot[i].st;
		if (rp->st != NULL)
			return;
	}
}
