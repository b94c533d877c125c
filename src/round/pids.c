/*
 * The process table: what the daemon knows of each pid, and the BPF pid
 * config map it answers through.  One thread, no locks; the ring buffer
 * delivers unknown-pid requests, execs and exits in order.
 *
 *   unknown pid (first sample) -> look the process up, decide its type,
 *                                 capture its maps, write its config
 *   exec                       -> decide whether it is profiled, cheaply
 *                                 (labels wait unless targets_only needs
 *                                 them), and ask BPF for its first sample
 *   sampled (first sample)     -> read its maps once: Python or not, its
 *                                 symbol tables, and whether it ran its
 *                                 own code yet (else: ask again when it
 *                                 does, and read the maps again then)
 *   exit                       -> dead: its samples of this round are
 *                                 still named; forgotten at the end
 *                                 of the next round (pids_round_end)
 *
 * Most processes a machine starts are never sampled at 97 Hz (a shell's
 * true, sed, cc1 in its first milliseconds): they cost their exec and
 * exit events, not a read of their maps and files.
 *
 * Which target takes a process is pids_target.c's to say, what its maps
 * tell pids_load.c's, and the runtimes' slots of each process (Python,
 * the unwind tables: runtime/runtime.h) pids_runtime.c's.
 *
 * Every 10 rounds the BPF map is swept for entries the daemon does not
 * know (a lost event): pids that are gone are deleted, live ones asked
 * about again.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "proc/container.h"
#include "util/log.h"
#include "pids.h"
#include "pids_int.h"
#include "proc/proc.h"
#include "proc/procmaps.h"
#include "runtime/runtime.h"
#include "sym/resolve.h"
#include "session/session.h"
#include "proc/target.h"
#include "util/xmalloc.h"

#define PIDS_SWEEP_ROUNDS	10

struct pids *
pids_create(struct session *session, struct resolve *resolve,
    struct runtimes *runtimes, const struct config *conf)
{
	struct pids	*p;

	p = xcalloc(1, sizeof(*p));
	p->session = session;
	p->resolve = resolve;
	p->runtimes = runtimes;
	p->conf = conf;
	p->containers = container_cache_create("/");
	p->unknown = target_labels_unknown(conf);
	p->size = 1024;
	p->v = xcalloc(p->size, sizeof(*p->v));
	return p;
}

static void
pids_proc_free(struct pids *p, struct pids_proc *proc)
{
	if (proc == NULL)
		return;
	resolve_proc_close(p->resolve, proc->rp);
	pids_runtime_close(p, proc);
	target_labels_free(proc->labels);
	free(proc->argv);
	free(proc);
}

void
pids_free(struct pids *p)
{
	size_t	 i;

	if (p == NULL)
		return;
	for (i = 0; i < p->size; i++)
		pids_proc_free(p, p->v[i]);
	for (i = 0; i < p->ndead; i++)
		pids_proc_free(p, p->dead[i]);
	free(p->dead);
	free(p->v);
	container_cache_free(p->containers);
	target_labels_free(p->unknown);
	free(p);
}

static size_t
pids_slot(struct pids_proc **v, size_t size, pid_t pid)
{
	size_t	 i;

	for (i = ((uint32_t)pid * 2654435761U) & (size - 1);;
	    i = (i + 1) & (size - 1)) {
		if (v[i] == NULL || v[i]->pid == pid)
			return i;
	}
}

struct pids_proc *
pids_find(struct pids *p, pid_t pid)
{
	return p->v[pids_slot(p->v, p->size, pid)];
}

static void
pids_insert(struct pids *p, struct pids_proc *proc)
{
	struct pids_proc	**v;
	size_t			  i, size;

	if ((p->count + 1) * 2 > p->size) {
		size = p->size * 2;
		v = xcalloc(size, sizeof(*v));
		for (i = 0; i < p->size; i++) {
			if (p->v[i] != NULL)
				v[pids_slot(v, size, p->v[i]->pid)] = p->v[i];
		}
		free(p->v);
		p->v = v;
		p->size = size;
	}
	p->v[pids_slot(p->v, p->size, proc->pid)] = proc;
	p->count++;
}

static void
pids_remove(struct pids *p, pid_t pid)
{
	struct pids_proc	*tmp;
	size_t			 i;

	i = pids_slot(p->v, p->size, pid);
	if (p->v[i] == NULL)
		return;
	p->v[i] = NULL;
	p->count--;
	for (i = (i + 1) & (p->size - 1); p->v[i] != NULL;
	    i = (i + 1) & (p->size - 1)) {
		tmp = p->v[i];
		p->v[i] = NULL;
		p->v[pids_slot(p->v, p->size, tmp->pid)] = tmp;
	}
}

/*
 * Write what BPF should do with this pid.  Its first sample is asked
 * for until its maps are read, then again while a runtime waits for a
 * library to be mapped (libpython), or until it runs its executable's
 * code.
 */
static void
pids_write_config(struct pids *p, struct pids_proc *proc)
{
	struct profile_pid_config	 cfg;

	memset(&cfg, 0, sizeof(cfg));
	if (pids_proc_is_profiled(proc) && !proc->kthread && proc->pid != 0) {
		if (!proc->loaded) {
			/* Samples wait until we have looked. */
			cfg.flags = PROFILE_PID_F_NOTIFY |
			    PROFILE_PID_F_PENDING;
			cfg.notify_lo = 0;
			cfg.notify_hi = UINT64_MAX;	/* any frame */
		} else if (pids_runtime_pending(p, proc)) {
			cfg.flags = PROFILE_PID_F_NOTIFY;
			cfg.notify_lo = 0;
			cfg.notify_hi = UINT64_MAX;
		} else if (proc->wait_exe) {
			cfg.flags = PROFILE_PID_F_NOTIFY;
			cfg.notify_lo = proc->exe_lo;
			cfg.notify_hi = proc->exe_hi;
		}
	}
	cfg.type = proc->type;
	cfg.collect_user = p->conf->collect_user && !proc->kthread;
	cfg.collect_kernel = p->conf->collect_kernel;
	if (session_pid_set(p->session, proc->pid, &cfg) == -1 &&
	    errno != ENOENT)
		log_warn("pid %d: write BPF pid config", (int)proc->pid);
}

/*
 * Decide how a process is profiled: its comm, its target.  Its maps are
 * read by pids_load.
 */
void
pids_evaluate(struct pids *p, struct pids_proc *proc, const char *comm)
{
	struct proc_stat	 st;
	char			 buf[PROFILE_COMM_LEN];

	if (proc_comm(proc->pid, buf, sizeof(buf)) == 0)
		comm = buf;
	if (comm != NULL)
		snprintf(proc->comm, sizeof(proc->comm), "%s", comm);
	if (proc_stat(proc->pid, &st) == 0) {
		proc->kthread = st.kthread;
		proc->ppid = st.ppid;
	}
	pids_target_argv(proc);
	pids_load_forget(p, proc);
	pids_target(p, proc);
	proc->evaluated = 1;
}

/*
 * The same at an exec, as cheaply as it can be done for processes that
 * are mostly never sampled: the event's comm is the new image's, a
 * process that execs is no kernel thread, and the target is looked up
 * now only if it decides whether the process is profiled at all.
 */
static void
pids_exec(struct pids *p, struct pids_proc *proc, const char *comm,
    pid_t ppid)
{
	proc->ppid = ppid;
	if (*comm != '\0')
		snprintf(proc->comm, sizeof(proc->comm), "%s", comm);
	else if (proc_comm(proc->pid, proc->comm, sizeof(proc->comm)) == -1)
		snprintf(proc->comm, sizeof(proc->comm), "[%d]",
		    (int)proc->pid);
	proc->kthread = 0;
	pids_target_argv(proc);
	pids_load_forget(p, proc);
	if (p->conf->targets_only)
		pids_target(p, proc);
	else {
		target_labels_free(proc->labels);
		proc->labels = NULL;
		proc->labels_pending = 1;
		proc->type = PROFILE_PID_FP;
	}
	proc->evaluated = 1;
}

struct pids_proc *
pids_new(struct pids *p, pid_t pid)
{
	struct pids_proc	*proc;

	proc = xcalloc(1, sizeof(*proc) + runtimes_count(p->runtimes) *
	    sizeof(proc->slot[0]));
	proc->pid = pid;
	proc->runtimes = p->runtimes;
	proc->state = PIDS_ALIVE;
	snprintf(proc->comm, sizeof(proc->comm), "[%d]", (int)pid);
	pids_insert(p, proc);
	return proc;
}

/*
 * The idle task (pid 0): no /proc entry, no user space, named swapper as
 * the kernel names it.
 */
static struct pids_proc *
pids_idle(struct pids *p)
{
	struct pids_proc	*proc;

	if ((proc = pids_find(p, 0)) != NULL)
		return proc;
	proc = pids_new(p, 0);
	snprintf(proc->comm, sizeof(proc->comm), "swapper");
	proc->kthread = 1;
	pids_target(p, proc);
	proc->type = PROFILE_PID_FP;
	proc->evaluated = 1;
	return proc;
}

/* A pid being (re)used by a new process: keep the old one for naming. */
static struct pids_proc *
pids_fresh(struct pids *p, pid_t pid)
{
	struct pids_proc	*proc;

	if ((proc = pids_find(p, pid)) != NULL) {
		if (proc->state == PIDS_ALIVE)
			return proc;
		pids_remove(p, pid);
		p->dead = xreallocarray(p->dead, p->ndead + 1,
		    sizeof(*p->dead));
		p->dead[p->ndead++] = proc;
	}
	return pids_new(p, pid);
}

void
pids_event(struct pids *p, const struct profile_event *ev)
{
	struct pids_proc	*proc;
	char			 comm[PROFILE_COMM_LEN];
	pid_t			 pid = ev->pid;
	int			 known;

	memcpy(comm, ev->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	switch (ev->type) {
	case PROFILE_EVENT_UNKNOWN_PID:
		p->requests++;
		if (pid == 0) {
			/* The idle task, asked for when collect_idle is on. */
			pids_write_config(p, pids_idle(p));
			break;
		}
		if (!proc_exists(pid)) {
			/* Gone already: drop the placeholder. */
			session_pid_delete(p->session, pid);
			return;
		}
		/* Its first sample: it is worth its maps now. */
		proc = pids_fresh(p, pid);
		if (!proc->evaluated)
			pids_evaluate(p, proc, comm);
		pids_load(p, proc, 0, 0);
		pids_write_config(p, proc);
		log_debug("pid %d (%s): %s", (int)pid, proc->comm,
		    proc->type == PROFILE_PID_FP ? "profiled" :
		    pids_proc_is_profiled(proc) ? "profiled by a runtime" :
		    "not profiled");
		break;
	case PROFILE_EVENT_EXEC:
		p->execs++;
		known = (proc = pids_find(p, pid)) != NULL &&
		    proc->state == PIDS_ALIVE;
		proc = pids_fresh(p, pid);
		pids_exec(p, proc, comm, (pid_t)ev->arg2);
		/*
		 * arg: BPF profiles it already, and asks for its first
		 * sample, as pids_write_config would.  Unless it waits for
		 * our answer (targets_only, then or now), or we wrote its
		 * config before this event reached us (its fork was
		 * sampled): that write may have undone BPF's.
		 */
		if (ev->arg == 0 || p->conf->targets_only || known)
			pids_write_config(p, proc);
		break;
	case PROFILE_EVENT_SAMPLED:
		if ((proc = pids_find(p, pid)) == NULL && proc_exists(pid)) {
			/*
			 * BPF waits for an answer about a process whose
			 * exec we did not see (its event was lost): look
			 * at it as at an unknown pid.
			 */
			proc = pids_fresh(p, pid);
			pids_evaluate(p, proc, comm);
		}
		if (proc == NULL || proc->state != PIDS_ALIVE)
			break;
		if (!proc->loaded)
			pids_load(p, proc, 1, ev->arg);
		else
			pids_load_again(p, proc);
		pids_write_config(p, proc);
		break;
	case PROFILE_EVENT_UNWIND_MAPS:
		/* Code in no mapping the unwinder knows: a new library? */
		if ((proc = pids_find(p, pid)) != NULL &&
		    proc->state == PIDS_ALIVE && proc->loaded)
			pids_load_asked(p, proc);
		break;
	case PROFILE_EVENT_PYSTACK:
		/* A new stack of a runtime's walker: read its code now. */
		if ((proc = pids_find(p, pid)) == NULL ||
		    proc->state != PIDS_ALIVE ||
		    !pids_runtime_stack_seen(p, proc, ev->arg, ev->arg2))
			break;
		if (proc->rp != NULL)
			resolve_proc_refresh(p->resolve, proc->rp);
		else if (proc->loaded)
			proc->rp = resolve_proc_open(p->resolve, pid);
		break;
	case PROFILE_EVENT_EXIT:
		/*
		 * BPF has deleted its entry already: this event may come a
		 * while later, when the pid may be another process's.
		 */
		p->exits++;
		if ((proc = pids_find(p, pid)) != NULL) {
			proc->state = PIDS_DEAD;
			proc->lifetime = ev->arg;
			/*
			 * Gone before this round's counts were drained: all
			 * its samples are in them, it goes at this round's
			 * end.  After: at the next one (pids_round_end).
			 */
			proc->forget = !p->drained;
			/* Its files' unwind tables may go now. */
			pids_runtime_forget(p, proc);
		}
		break;
	default:
		log_debug("unknown event type %u", ev->type);
		break;
	}
}

struct pids_proc *
pids_get(struct pids *p, pid_t pid)
{
	struct pids_proc	*proc;

	if ((proc = pids_find(p, pid)) != NULL)
		pids_load(p, proc, 0, 0);
	else if (pid == 0)
		proc = pids_idle(p);
	else {
		/* Counted before a restart of our state: look at it now. */
		proc = pids_new(p, pid);
		if (proc_exists(pid)) {
			pids_evaluate(p, proc, NULL);
			pids_load(p, proc, 0, 0);
		} else
			proc->state = PIDS_DEAD;
	}
	proc->service = pids_service(p, proc);
	return proc;
}

/* Ask BPF again about pids the daemon does not know or has lost. */
static void
pids_sweep(struct pids *p)
{
	struct profile_pid_config	 cfg;
	struct pids_proc		*proc;
	pid_t				*keys, *gone = NULL, pid;
	size_t				 nkeys, ngone = 0, i;

	keys = session_pid_keys(p->session, &nkeys);
	for (i = 0; i < nkeys; i++) {
		pid = keys[i];
		proc = pids_find(p, pid);
		if (!proc_exists(pid) || (proc != NULL &&
		    proc->state == PIDS_DEAD)) {
			gone = xreallocarray(gone, ngone + 1, sizeof(*gone));
			gone[ngone++] = pid;
			continue;
		}
		if (proc == NULL &&
		    session_pid_get(p->session, pid, &cfg) == 0 &&
		    cfg.type == PROFILE_PID_UNKNOWN) {
			/* Its request was lost: answer it now. */
			proc = pids_new(p, pid);
			pids_evaluate(p, proc, NULL);
			pids_load(p, proc, 0, 0);
			pids_write_config(p, proc);
		}
	}
	free(keys);
	for (i = 0; i < ngone; i++) {
		if (session_pid_delete(p->session, gone[i]) == 0)
			p->swept++;
	}
	free(gone);
}

/* The round's counts are drained: samples from now on are the next's. */
void
pids_counts_drained(struct pids *p)
{
	p->drained = 1;
}

/*
 * End of a round: the dead are forgotten everywhere; live processes the
 * kernel no longer has (their exit was lost, or is still in the ring)
 * are dropped too.  Not all at once: a process that ran after this
 * round's counts were drained has samples in the next round's, and they
 * are named by its entry -- forgotten, it was a service named "[pid]".
 * So those are forgotten at the end of the next round; the ones whose
 * exit was read before the drain go now.
 */
void
pids_round_end(struct pids *p)
{
	struct pids_proc	*proc;
	size_t			 i;

	for (i = 0; i < p->ndead; i++)
		pids_proc_free(p, p->dead[i]);
	p->ndead = 0;
	for (i = 0; i < p->size;) {
		proc = p->v[i];
		if (proc == NULL || (proc->state == PIDS_ALIVE &&
		    (proc->pid == 0 || proc_exists(proc->pid)))) {
			if (proc != NULL)
				proc->forget = 0;	/* its pid reused */
			i++;
			continue;
		}
		if (!proc->forget) {
			proc->forget = 1;
			i++;
			continue;
		}
		if (proc->state == PIDS_ALIVE)
			session_pid_delete(p->session, proc->pid);
		pids_remove(p, proc->pid);
		pids_proc_free(p, proc);
		/* Removal may have moved another entry into slot i. */
	}
	pids_runtime_round_end(p);
	p->drained = 0;
	p->round++;
	if (p->round % PIDS_SWEEP_ROUNDS == 0)
		pids_sweep(p);
}

/*
 * New config: targets, collect_user, collect_kernel or kthreads may have
 * changed.  Every known process, profiled or not, is matched again and
 * its BPF config rewritten: one that starts matching is profiled from
 * now on, one that stops costs nothing more.  What was counted before
 * goes, at the end of the round, to the targets in force then.
 */
void
pids_configure(struct pids *p, const struct config *conf)
{
	struct pids_proc	*proc;
	size_t			 i;
	int			 again[RUNTIME_MAX];

	p->conf = conf;
	target_labels_free(p->unknown);
	p->unknown = target_labels_unknown(conf);
	pids_runtime_configure(p, conf, again);
	for (i = 0; i < p->size; i++) {
		if ((proc = p->v[i]) == NULL || proc->state != PIDS_ALIVE)
			continue;
		pids_target(p, proc);
		/* Its runtimes (Python): made again, or let go. */
		pids_runtime_reconfigure(p, proc, again);
		if (proc->type == PROFILE_PID_FP && proc->loaded)
			pids_load(p, proc, 0, 0);
		pids_write_config(p, proc);
	}
}

size_t
pids_count(struct pids *p, enum pids_state state)
{
	size_t	 i, n = 0;

	for (i = 0; i < p->size; i++) {
		if (p->v[i] != NULL && p->v[i]->state == state)
			n++;
	}
	return n;
}

/* Entries of the BPF pid map, counted by walking it. */
size_t
pids_bpf_entries(struct pids *p)
{
	long long	 n;

	n = session_map_entries(p->session, SESSION_MAP_PID_CONFIG,
	    LLONG_MAX);
	return n > 0 ? n : 0;
}

void
pids_log_state(struct pids *p)
{
	size_t	 i, profiled = 0;

	for (i = 0; i < p->size; i++) {
		if (p->v[i] != NULL && pids_proc_is_profiled(p->v[i]))
			profiled++;
	}
	log_info("pids: %zu tracked (%zu alive, %zu dead, %zu profiled), "
	    "%zu in the BPF pid map, %llu requests, %llu execs, %llu exits, "
	    "%llu swept, %llu loaded at their first sample, maps read %llu "
	    "times, %llu parents of short commands looked at", p->count,
	    pids_count(p, PIDS_ALIVE),
	    pids_count(p, PIDS_DEAD), profiled, pids_bpf_entries(p),
	    (unsigned long long)p->requests, (unsigned long long)p->execs,
	    (unsigned long long)p->exits, (unsigned long long)p->swept,
	    (unsigned long long)p->loads,
	    (unsigned long long)procmaps_reads(),
	    (unsigned long long)p->parents);
	pids_runtime_log_state(p);
}

void
pids_stats(struct pids *p, struct pids_stats *st)
{
	st->requests = p->requests;
	st->execs = p->execs;
	st->exits = p->exits;
	st->loads = p->loads;
	st->maps_reads = procmaps_reads();
}

/*
 * A thread's name: as BPF saw it, else as /proc has it, else its id.
 */
const char *
pids_thread_name(struct pids *p, pid_t pid, pid_t tid, char *buf, size_t len)
{
	char	 name[64];
	ssize_t	 n;

	if (session_thread_comm(p->session, tid, buf, len) == 0)
		return buf;
	snprintf(name, sizeof(name), "task/%u/comm", (unsigned)tid);
	if ((n = proc_read_file(pid, name, buf, len)) > 0) {
		if (buf[n - 1] == '\n')
			buf[n - 1] = '\0';
		return buf;
	}
	snprintf(buf, len, "[%u]", (unsigned)tid);
	return buf;
}
