/*
 * What a profiled process's maps tell, read once its first sample shows
 * it is worth it: what its runtimes make of them (Python, the unwind
 * tables: pids_runtime.c), where its executable's code is, and which
 * symbol tables name its frames (sym/resolve.c).  A process still in
 * the loader after its exec, or whose libpython may not be mapped yet,
 * has its maps read again when BPF sees it in its own code, or at its
 * next samples.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bpf/profile.h"
#include "util/log.h"
#include "pids.h"
#include "pids_int.h"
#include "proc/procmaps.h"
#include "sym/resolve.h"
#include "session/session.h"

/*
 * The code of a process's executable: its executable mappings of the
 * file /proc/PID/exe is.  0, 0 when not found.
 */
static void
pids_load_exe_range(pid_t pid, const struct procmaps *maps, uint64_t *lo,
    uint64_t *hi)
{
	const struct procmaps_entry	*e;
	struct stat			 sb;
	char				 path[64];
	size_t				 i;

	*lo = *hi = 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (maps == NULL || stat(path, &sb) == -1)
		return;
	for (i = 0; i < maps->n; i++) {
		e = &maps->v[i];
		if (e->kind != PROCMAPS_FILE || e->inode != sb.st_ino ||
		    makedev(e->dev_major, e->dev_minor) != sb.st_dev)
			continue;
		if (*lo == 0 || e->start < *lo)
			*lo = e->start;
		if (e->end > *hi)
			*hi = e->end;
	}
}

/* Does the stored stack id hold a frame in [lo, hi)? */
static int
pids_load_stack_in(struct pids *p, uint64_t id, uint64_t lo, uint64_t hi)
{
	struct profile_stack	 st;
	size_t			 i;

	if (id == 0 || session_stack_lookup(p->session, id, &st) != 0)
		return 0;
	for (i = 0; i < PROFILE_STACK_DEPTH && st.ip[i] != 0; i++) {
		if (st.ip[i] >= lo && st.ip[i] < hi)
			return 1;
	}
	return 0;
}

/* Forget what the process's previous image made us read. */
void
pids_load_forget(struct pids *p, struct pids_proc *proc)
{
	pids_runtime_close(p, proc);
	resolve_proc_close(p->resolve, proc->rp);
	proc->rp = NULL;
	proc->loaded = 0;
	proc->wait_exe = 0;
}

/*
 * Capture what names a profiled process's frames, once its first sample
 * shows it is worth it: one read of its maps opens its runtimes, tells
 * where its executable's code is, and which symbol tables it needs.
 * stack is the id of that sample's user stack after an exec (0 for
 * none): if it holds no frame of the executable's code, the process is
 * still in the loader, and its maps are read again when it is.  A read
 * can fail while the process execs: then again when its samples are
 * named.
 */
void
pids_load(struct pids *p, struct pids_proc *proc, int exec, uint64_t stack)
{
	struct procmaps	*maps;

	pids_target_labels(p, proc);
	if (!pids_proc_is_profiled(proc) || proc->kthread ||
	    proc->state != PIDS_ALIVE)
		return;
	if (proc->loaded) {
		if (proc->rp == NULL)
			proc->rp = resolve_proc_open(p->resolve, proc->pid);
		return;
	}
	proc->loaded = 1;
	p->loads++;
	maps = procmaps_read(proc->pid);
	log_debug("pid %d (%s): maps read at its first sample", (int)proc->pid,
	    proc->comm);
	pids_runtime_open_all(p, proc, maps);
	proc->wait_exe = 0;
	if (exec && maps != NULL) {
		pids_load_exe_range(proc->pid, maps, &proc->exe_lo,
		    &proc->exe_hi);
		if (proc->exe_lo >= proc->exe_hi) {
			/* Not found: any frame will do. */
			proc->exe_lo = 0;
			proc->exe_hi = UINT64_MAX;
			proc->wait_exe = 1;
		} else
			proc->wait_exe = !pids_load_stack_in(p, stack,
			    proc->exe_lo, proc->exe_hi);
	}
	proc->rp = resolve_proc_open_maps(p->resolve, proc->pid, maps);
}

/*
 * The unwinder met code in no mapping it knows (a library loaded
 * since): the maps read again for it, for the native frames above
 * Python and for the symbols (t3008: without them, python3's hashlib
 * frames stayed [unknown] when the round named them).  The tables of
 * the mappings the process had are kept; the walker's backoff bounds
 * how often this runs (unwind_maps_asked).
 */
void
pids_load_asked(struct pids *p, struct pids_proc *proc)
{
	struct procmaps	*maps;

	if ((maps = procmaps_read(proc->pid)) == NULL)
		return;
	log_debug("pid %d (%s): maps read again for the unwinder",
	    (int)proc->pid, proc->comm);
	pids_runtime_again(p, proc, maps, RUNTIME_AGAIN_WALKER);
	/*
	 * Its symbols too: the tables of the mappings it had are kept.
	 * A process whose first read failed gets them now: else its
	 * runtimes, opened here, would name their frames and leave every
	 * native frame among them [unknown].
	 */
	if (proc->rp != NULL)
		resolve_proc_reload_maps(p->resolve, proc->rp, maps);
	else
		proc->rp = resolve_proc_open_maps(p->resolve, proc->pid, maps);
}

/*
 * The process runs its own code now, or a runtime waits for a library
 * (libpython): read its maps again, once for both.
 */
void
pids_load_again(struct pids *p, struct pids_proc *proc)
{
	struct procmaps	*maps;
	size_t		 i;

	maps = procmaps_read(proc->pid);
	log_debug("pid %d (%s): maps read again%s", (int)proc->pid,
	    proc->comm, proc->wait_exe ? ", in its own code" : "");
	for (i = 0; i < runtimes_count(p->runtimes); i++) {
		if (!proc->slot[i].pending)
			continue;
		pids_runtime_open(p, proc, i, maps);
		if (proc->slot[i].pending)
			proc->slot[i].tries++;
	}
	proc->wait_exe = 0;
	pids_runtime_again(p, proc, maps, RUNTIME_AGAIN_SAMPLED);
	if (proc->rp != NULL)
		resolve_proc_reload_maps(p->resolve, proc->rp, maps);
	else
		proc->rp = resolve_proc_open_maps(p->resolve, proc->pid, maps);
}
