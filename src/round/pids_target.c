/*
 * Which target takes a process, and so its labels and whether it is
 * profiled at all (src/proc/target.c matches).  Without targets_only an
 * exec leaves this for later: every process is profiled, and what its
 * target is only matters once it has samples.
 *
 * The daemon itself is not profiled unless [profile] profile_self is
 * set: BPF is told so, and drops its samples.
 *
 * And which service its samples go to (pids_service): its own labels,
 * unless nothing names it but its program (no target, no unit, no
 * container) and it is a short command -- it exited less than
 * [targets] short_lived_ms after its fork -- or nothing names it at
 * all: its comm could not be read, or it is a helper like sleep or a
 * memfd program (target_name.c).  Then its parent's service, up the
 * parents the daemon knows of, else [targets] unknown_service.  A
 * shell's rm, a cron job's curl and a build's cc1 go to the shell's,
 * cron's or make's service instead of making a service each; a program
 * that runs for longer keeps its name.
 */
#include <sys/types.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/profile.h"
#include "proc/cgroup.h"
#include "proc/proc.h"
#include "config/config.h"
#include "proc/container.h"
#include "pids.h"
#include "pids_int.h"
#include "proc/target.h"
#include "util/log.h"
#include "util/xmalloc.h"

/*
 * Which target takes the process, with what labels; not profiled when
 * none does and targets_only is set.  The labels are kept until the
 * process execs or exits, or the targets change.  Its exe is read only
 * if a target matches on it.
 */
void
pids_target(struct pids *p, struct pids_proc *proc)
{
	struct target_facts	 f;
	struct cgroup_info	 cg;
	char			 path[64], exe[PATH_MAX];
	ssize_t			 n;

	memset(&f, 0, sizeof(f));
	f.pid = proc->pid;
	f.comm = proc->comm;
	f.self = proc->pid == getpid();
	if (proc->argv == NULL)
		pids_target_argv(proc);
	f.argv = proc->argv;
	f.argvlen = proc->argvlen;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)proc->pid);
	if (target_conf_uses_exe(p->conf) &&
	    (n = readlink(path, exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		f.exe = exe;
	}
	if (cgroup_read(proc->pid, &cg) == 0) {
		f.cg = &cg;
		f.ct = container_lookup(p->containers, &cg, time(NULL));
	}
	target_labels_free(proc->labels);
	proc->labels = target_labels(p->conf, &f);
	proc->labels_pending = 0;
	if (proc->labels == NULL ||
	    (proc->kthread && !p->conf->collect_kthreads) ||
	    (f.self && !p->conf->profile_self))
		proc->type = PROFILE_PID_NONE;
	else
		proc->type = PROFILE_PID_FP;
}

/*
 * A shell or an interpreter is named by what it runs, its command line
 * (target_name.c): read now, at its exec or when it is first looked
 * at, as it is gone once the process exits -- and the labels of most
 * processes are looked up at the end of a round, or when a short
 * command's parent is.  Only these programs' are read: one read of
 * /proc at their exec, none at others'.
 */
void
pids_target_argv(struct pids_proc *proc)
{
	char	 buf[4096];
	ssize_t	 n;

	free(proc->argv);
	proc->argv = NULL;
	proc->argvlen = 0;
	if (!target_name_wants_argv(proc->comm) ||
	    (n = proc_read_file(proc->pid, "cmdline", buf, sizeof(buf))) <= 0)
		return;
	proc->argv = xmalloc(n);
	memcpy(proc->argv, buf, n);
	proc->argvlen = n;
}

/*
 * The labels an exec left for later: without targets_only every process
 * is profiled, and what its target is only matters once it has samples.
 */
void
pids_target_labels(struct pids *p, struct pids_proc *proc)
{
	int	 type = proc->type;

	if (!proc->labels_pending)
		return;
	pids_target(p, proc);
	if (proc->type != PROFILE_PID_NONE)
		proc->type = type;
}

/* Parents followed up from a process, at most: a chain of shells. */
#define PIDS_PARENT_DEPTH	16

/* Did it exit sooner than short_lived_ms after its fork? */
static int
pids_is_short(const struct pids *p, const struct pids_proc *proc)
{
	return p->conf->short_lived_ms > 0 && proc->state == PIDS_DEAD &&
	    proc->lifetime > 0 &&
	    proc->lifetime < (uint64_t)p->conf->short_lived_ms * 1000000;
}

/*
 * Its parent as the daemon knows it: in the table (every exec since the
 * daemon started is), else looked at now if it still runs.  NULL when
 * it is not known and gone.
 */
static struct pids_proc *
pids_parent(struct pids *p, const struct pids_proc *proc)
{
	struct pids_proc	*up;

	if (proc->ppid <= 0 || proc->ppid == proc->pid)
		return NULL;
	if ((up = pids_find(p, proc->ppid)) != NULL)
		return up;
	if (!proc_exists(proc->ppid))
		return NULL;
	up = pids_new(p, proc->ppid);
	pids_evaluate(p, up, NULL);
	p->parents++;
	log_debug("pid %d (%s): parent %d (%s) looked at", (int)proc->pid,
	    proc->comm, (int)up->pid, up->comm);
	return up;
}

const struct target_labels *
pids_service(struct pids *p, struct pids_proc *proc)
{
	int	 depth;

	for (depth = 0; depth < PIDS_PARENT_DEPTH; depth++) {
		pids_target_labels(p, proc);
		if (proc->labels == NULL)
			break;
		if (proc->labels->source == TARGET_SOURCE_NAMED ||
		    (proc->labels->source == TARGET_SOURCE_COMM &&
		    !pids_is_short(p, proc)))
			return proc->labels;
		if ((proc = pids_parent(p, proc)) == NULL)
			break;
	}
	return p->unknown;
}
