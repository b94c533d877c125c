/*
 * Which target takes a process, and so its labels and whether it is
 * profiled at all (src/target.c matches).  Without targets_only an
 * exec leaves this for later: every process is profiled, and what its
 * target is only matters once it has samples.
 */
#include <sys/types.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/profile.h"
#include "proc/cgroup.h"
#include "config.h"
#include "proc/container.h"
#include "pids.h"
#include "pids_int.h"
#include "proc/target.h"

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
	    (proc->kthread && !p->conf->collect_kthreads))
		proc->type = PROFILE_PID_NONE;
	else
		proc->type = PROFILE_PID_FP;
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
