/*
 * What a profiled process's maps tell, read once its first sample shows
 * it is worth it: whether it runs Python (src/python/python.c), where its
 * executable's code is, and which symbol tables name its frames
 * (src/sym/resolve.c).  A process still in the loader after its exec, or
 * whose libpython may not be mapped yet, has its maps read again when
 * BPF sees it in its own code, or at its next samples.
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
#include "python/python.h"
#include "sym/resolve.h"
#include "session/session.h"
#include "unwind/unwind_maps.h"

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

/*
 * A process profiled natively may run CPython that the walker can walk
 * (src/python/python.c): then it is of type PYTHON.  If it is an executable
 * linked with libpython that the loader has not mapped yet, it is
 * pending: asked again at its next samples.
 */
void
pids_load_python(struct pids *p, struct pids_proc *proc,
    const struct procmaps *maps)
{
	python_proc_close(p->python, proc->py);
	proc->py = NULL;
	proc->py_pending = 0;
	if (proc->type == PROFILE_PID_PYTHON)
		proc->type = PROFILE_PID_FP;
	if (proc->type != PROFILE_PID_FP || proc->kthread || proc->pid == 0)
		return;
	proc->py = python_proc_open(p->python, proc->pid, maps,
	    &proc->py_pending);
	if (proc->py != NULL)
		proc->type = PROFILE_PID_PYTHON;
}

/* Forget what the process's previous image made us read. */
void
pids_load_forget(struct pids *p, struct pids_proc *proc)
{
	python_proc_close(p->python, proc->py);
	proc->py = NULL;
	proc->py_pending = 0;
	proc->py_tries = 0;
	if (proc->type == PROFILE_PID_PYTHON)
		proc->type = PROFILE_PID_FP;
	resolve_proc_close(p->resolve, proc->rp);
	proc->rp = NULL;
	unwind_maps_proc_close(p->unwind, proc->uw);
	proc->uw = NULL;
	proc->loaded = 0;
	proc->wait_exe = 0;
}

/*
 * Capture what names a profiled process's frames, once its first sample
 * shows it is worth it: one read of its maps tells whether it is Python,
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
	if ((proc->type != PROFILE_PID_FP &&
	    proc->type != PROFILE_PID_PYTHON) || proc->kthread ||
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
	pids_load_python(p, proc, maps);
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
	proc->uw = unwind_maps_proc(p->unwind, proc->uw, proc->pid, maps);
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
pids_load_unwind(struct pids *p, struct pids_proc *proc)
{
	struct procmaps	*maps;

	if ((maps = procmaps_read(proc->pid)) == NULL)
		return;
	log_debug("pid %d (%s): maps read again for the unwinder",
	    (int)proc->pid, proc->comm);
	unwind_maps_proc_asked(proc->uw);
	proc->uw = unwind_maps_proc(p->unwind, proc->uw, proc->pid, maps);
	python_proc_maps_update(proc->py, maps);
	/* Its symbols too: the tables of the mappings it had are kept. */
	if (proc->rp != NULL)
		resolve_proc_reload_maps(p->resolve, proc->rp, maps);
	else
		procmaps_free(maps);
}

/*
 * The process runs its own code now, or may have mapped libpython: read
 * its maps again, once for both.
 */
void
pids_load_again(struct pids *p, struct pids_proc *proc)
{
	struct procmaps	*maps;

	maps = procmaps_read(proc->pid);
	log_debug("pid %d (%s): maps read again%s", (int)proc->pid,
	    proc->comm, proc->wait_exe ? ", in its own code" : "");
	if (proc->py_pending) {
		pids_load_python(p, proc, maps);
		if (proc->py_pending)
			proc->py_tries++;
	}
	proc->wait_exe = 0;
	proc->uw = unwind_maps_proc(p->unwind, proc->uw, proc->pid, maps);
	python_proc_maps_update(proc->py, maps);
	if (proc->rp != NULL)
		resolve_proc_reload_maps(p->resolve, proc->rp, maps);
	else
		proc->rp = resolve_proc_open_maps(p->resolve, proc->pid, maps);
}
