/*
 * The processes of src/unwind/unwind_maps.c: the files each maps, written to
 * BPF (uw_procs) as mappings that name files by id, each file's record
 * referenced while a process maps it.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ev.h>

#include "proc/procmaps.h"
#include "session/session_unwind.h"
#include "elf/elf.h"
#include "util/log.h"
#include "util/clock.h"
#include "util/xmalloc.h"
#include "unwind_maps_int.h"

static void
unwind_maps_proc_unref(struct unwind_maps *um, struct unwind_maps_proc *up)
{
	size_t	 i;

	for (i = 0; i < up->nfiles; i++)
		up->files[i]->refs--;
	free(up->files);
	free(up->at);
	up->files = NULL;
	up->at = NULL;
	up->nfiles = 0;
}

/*
 * The file the process mapped at e when its maps were read last (old
 * of them, sorted by start; *j the next to look at), if it is still
 * there and needs no build: read again, the maps cost no open of the
 * files they had already.
 */
static struct unwind_maps_file *
unwind_maps_proc_had(struct unwind_maps *um, struct unwind_maps_proc *up,
    size_t old, size_t *j, const struct procmaps_entry *e)
{
	const struct unwind_maps_at	*a;
	struct unwind_maps_file		*f;

	while (*j < old && up->at[*j].start < e->start)
		(*j)++;
	if (*j >= old)
		return NULL;
	a = &up->at[*j];
	f = up->files[*j];
	if (a->start != e->start || a->end != e->end ||
	    a->offset != e->offset || a->inode != e->inode ||
	    a->dev_major != e->dev_major || a->dev_minor != e->dev_minor ||
	    unwind_maps_file_due(um, f))
		return NULL;
	return f;
}

static void
unwind_maps_proc_add(struct unwind_maps_proc *up, struct unwind_maps_file *f,
    const struct procmaps_entry *e)
{
	struct unwind_maps_at	*a;

	up->files = xreallocarray(up->files, up->nfiles + 1,
	    sizeof(*up->files));
	up->at = xreallocarray(up->at, up->nfiles + 1, sizeof(*up->at));
	up->files[up->nfiles] = f;
	a = &up->at[up->nfiles++];
	a->start = e->start;
	a->end = e->end;
	a->offset = e->offset;
	a->inode = e->inode;
	a->dev_major = e->dev_major;
	a->dev_minor = e->dev_minor;
}

static struct unwind_maps_proc *
unwind_maps_proc_current(struct unwind_maps *um, pid_t pid)
{
	struct unwind_maps_proc	*up;

	for (up = um->procs[pid % UNWIND_MAPS_BUCKETS]; up != NULL;
	    up = up->pnext) {
		if (up->pid == pid)
			return up;
	}
	return NULL;
}

/* No handle holds the pid's entry any more. */
static void
unwind_maps_proc_unlink(struct unwind_maps *um, pid_t pid)
{
	struct unwind_maps_proc	**pp;

	for (pp = &um->procs[pid % UNWIND_MAPS_BUCKETS]; *pp != NULL;
	    pp = &(*pp)->pnext) {
		if ((*pp)->pid == pid) {
			*pp = (*pp)->pnext;
			um->st.procs--;
			return;
		}
	}
}

/*
 * When the walker may ask for the maps again.  At once after a read of
 * our own; after an answer to it, one tick (a library it found may
 * load others), twice as long each time an answer finds no new mapping
 * (what the walker met was no code): a garbage pc costs a read of the
 * maps every few seconds at most.
 */
static void
unwind_maps_proc_ask(struct unwind_maps_proc *up, struct unwind_proc *v)
{
	uint32_t	 tick;

	if (!up->asked)
		v->asked = 0;
	else {
		if (v->n != up->nmaps || up->backoff == 0)
			up->backoff = 1;
		else if (up->backoff < UNWIND_MAPS_ASK_MAX)
			up->backoff *= 2;
		tick = (uint64_t)clock_ns(CLOCK_MONOTONIC) >>
		    UNWIND_ASK_SHIFT;
		v->asked = tick + up->backoff;
	}
	up->asked = 0;
	up->nmaps = v->n;
}

/*
 * Free the records no process has mapped for UNWIND_MAPS_IDLE that hold
 * no table of their own: a copy's, borrowing another's rows, or one
 * whose table was evicted.  Each new copy of a program (a container's
 * layer, a file copied and run) is a record: a workload that runs new
 * copies all day kept one each until the 4,096 slots were all taken,
 * some 400 bytes each, 1.4 MB in an hour of bench/soak.sh.  A loaded
 * table stays cached without processes (its rows are what a build
 * costs); a copy mapped again within the minute keeps its record, later
 * it is built again to find the table it shares.  Once a minute at
 * most, from the reads of maps.
 */
static void
unwind_maps_sweep(struct unwind_maps *um)
{
	struct unwind_maps_file	*f;
	uint32_t		 now = unwind_maps_now();
	size_t			 i;

	if (now - um->swept < UNWIND_MAPS_IDLE)
		return;
	um->swept = now;
	for (i = 0; i < um->nslots; i++) {
		if ((f = um->byid[i]) == NULL || f->refs != 0 ||
		    (f->state != UNWIND_MAPS_SHARED &&
		    f->state != UNWIND_MAPS_NONE) ||
		    now - f->used < UNWIND_MAPS_IDLE)
			continue;
		unwind_maps_file_free(um, f);
		um->st.idle_freed++;
	}
}

struct unwind_maps_proc *
unwind_maps_proc(struct unwind_maps *um, struct unwind_maps_proc *up,
    pid_t pid, const struct procmaps *maps)
{
	const struct procmaps_entry	*e;
	struct unwind_maps_file		*f;
	struct unwind_mapping		*m;
	struct unwind_proc		*v;
	uint64_t			 vaddr;
	size_t				 i, j = 0, old, queued, nfiles = 0;
	size_t				 left = 0;

	if (um == NULL || maps == NULL || pid <= 0)
		return up;
	if (up == NULL) {
		up = xcalloc(1, sizeof(*up));
		up->pid = pid;
	}
	/* The pid's entry is this process's from now on. */
	if (unwind_maps_proc_current(um, pid) != up) {
		unwind_maps_proc_unlink(um, pid);
		up->pnext = um->procs[pid % UNWIND_MAPS_BUCKETS];
		um->procs[pid % UNWIND_MAPS_BUCKETS] = up;
		um->st.procs++;
	}
	/* The new references first: a file mapped still keeps its record. */
	queued = um->st.queued;
	old = up->nfiles;
	v = xcalloc(1, sizeof(*v));
	for (i = 0; i < maps->n; i++)
		left += maps->v[i].kind != PROCMAPS_ANON;
	for (i = 0; i < maps->n; i++) {
		e = &maps->v[i];
		if (v->n == UNWIND_PROC_MAPS) {
			um->st.proc_maps_over++;
			break;
		}
		if (e->kind == PROCMAPS_ANON) {
			/*
			 * JIT code: known, stepped by frame pointer; in the
			 * room the files leave.
			 */
			if (v->n + left >= UNWIND_PROC_MAPS) {
				um->st.proc_maps_over++;
				continue;
			}
			m = &v->m[v->n++];
			m->start = e->start;
			m->end = e->end;
			m->file_id = UNWIND_NO_FILE;
			continue;
		}
		left--;
		if ((f = unwind_maps_proc_had(um, up, old, &j, e)) == NULL)
			f = unwind_maps_file_get(um, pid, e);
		if (f == NULL || f->segs == NULL ||
		    elf_file_offset_to_vaddr(f->segs, f->nsegs, e->offset,
		    &vaddr) == -1)
			continue;
		f->refs++;
		f->used = unwind_maps_now();
		m = &v->m[v->n++];
		m->start = e->start;
		m->end = e->end;
		m->bias = e->start - vaddr;
		m->file_id = f->id;
		unwind_maps_proc_add(up, f, e);
		nfiles++;
	}
	/* Drop the old ones (none: files may be NULL, nothing to move). */
	if (old > 0) {
		for (i = 0; i < old; i++)
			up->files[i]->refs--;
		memmove(up->files, up->files + old,
		    nfiles * sizeof(*up->files));
		memmove(up->at, up->at + old, nfiles * sizeof(*up->at));
	}
	up->nfiles = nfiles;
	unwind_maps_proc_ask(up, v);
	if (session_unwind_proc_set(um->su, pid, v) == -1) {
		if (um->st.proc_errors++ == 0)
			log_warn("pid %d: write unwind mappings", (int)pid);
	}
	free(v);
	/*
	 * Its samples are dropped until its config is written, after
	 * this: when it brought new files (first in the queue), a slice
	 * now, and a small program's table is there for the first of them.
	 * Processes of known files cost no building here.
	 */
	if (um->st.queued > queued)
		unwind_maps_build(um, UNWIND_MAPS_SLICE_NS);
	unwind_maps_sweep(um);
	return up;
}

/*
 * Another process that maps f, not pid (f's build source, gone): its
 * pid, or -1; where it maps f in *e, whose path is left as it is.  The
 * processes are walked whole: this is rare, once a build that lost its
 * process.
 */
pid_t
unwind_maps_proc_other(struct unwind_maps *um, struct unwind_maps_file *f,
    pid_t pid, struct procmaps_entry *e)
{
	struct unwind_maps_proc	*up;
	struct unwind_maps_at	*a;
	size_t			 b, i;

	for (b = 0; b < UNWIND_MAPS_BUCKETS; b++) {
		for (up = um->procs[b]; up != NULL; up = up->pnext) {
			if (up->pid == pid)
				continue;
			for (i = 0; i < up->nfiles; i++) {
				if (up->files[i] != f)
					continue;
				a = &up->at[i];
				e->start = a->start;
				e->end = a->end;
				e->offset = a->offset;
				e->inode = a->inode;
				e->dev_major = a->dev_major;
				e->dev_minor = a->dev_minor;
				return up->pid;
			}
		}
	}
	return -1;
}

void
unwind_maps_proc_asked(struct unwind_maps_proc *up)
{
	if (up != NULL)
		up->asked = 1;
}

void
unwind_maps_proc_close(struct unwind_maps *um, struct unwind_maps_proc *up)
{
	if (um == NULL || up == NULL)
		return;
	/* A pid reused: the new process's entry stays. */
	if (unwind_maps_proc_current(um, up->pid) == up) {
		unwind_maps_proc_unlink(um, up->pid);
		session_unwind_proc_delete(um->su, up->pid);
	}
	unwind_maps_proc_unref(um, up);
	free(up);
}

