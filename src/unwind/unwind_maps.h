#ifndef EBPFSPY_UNWIND_MAPS_H
#define EBPFSPY_UNWIND_MAPS_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/runtime.h"

struct config;
struct ev_loop;
struct procmaps;
struct session_unwind;
struct unwind_maps;
struct unwind_maps_proc;

struct unwind_maps_stats {
	size_t		 files;		/* files known */
	size_t		 vdso;		/* of them vDSO images */
	size_t		 tables;	/* of them with a table loaded */
	size_t		 queued;	/* waiting to be built */
	size_t		 shared;	/* files whose table is another's,
					   the same rows (not in tables) */
	size_t		 procs;		/* processes with mappings in BPF */
	size_t		 rows;		/* rows loaded */
	size_t		 rows_max;
	size_t		 pages;
	size_t		 pages_max;
	size_t		 bytes;		/* of rows and pages loaded */
	uint64_t	 builds;	/* tables built */
	uint64_t	 builds_debug;	/* of them from a debug file's
					   .debug_frame */
	uint64_t	 build_failed;	/* files with no usable table */
	uint64_t	 build_ns;	/* CPU time spent building */
	uint64_t	 evictions;	/* tables evicted to make room */
	uint64_t	 idle_freed;	/* records of no table of their own
					   dropped, unmapped a while */
	uint64_t	 full;		/* tables that did not fit, or over
					   half of the room */
	uint64_t	 refused;	/* builds refused: more CFI than the
					   file holds or the budget allows,
					   or the queue full */
	uint64_t	 proc_maps_over; /* mappings past UNWIND_PROC_MAPS */
	uint64_t	 proc_errors;	/* mappings not written to BPF */
};

/*
 * The unwind tables of the files processes map, in the BPF maps of
 * bpf/unwind.bpf.h: built from an idle watcher in slices, shared by
 * every process that maps the same file, evicted whole, least recently
 * used first, when the rows of a new one do not fit.
 */
struct unwind_maps *unwind_maps_create(struct ev_loop *,
		    struct session_unwind *, const struct config *);
void		 unwind_maps_free(struct unwind_maps *);
void		 unwind_maps_configure(struct unwind_maps *,
		    const struct config *);
/*
 * A process's maps were read: its mappings go to BPF, and the tables of
 * its files are built if they are not loaded.  Returns the process's
 * handle (the old one, updated, when given), or NULL.
 */
struct unwind_maps_proc *unwind_maps_proc(struct unwind_maps *,
		    struct unwind_maps_proc *, pid_t, const struct procmaps *);
/*
 * The walker asked for the process's maps (PROFILE_EVENT_UNWIND_MAPS):
 * the next unwind_maps_proc answers it.
 */
void		 unwind_maps_proc_asked(struct unwind_maps_proc *);
/* The process exec'd or is gone: its mappings leave BPF. */
void		 unwind_maps_proc_close(struct unwind_maps *,
		    struct unwind_maps_proc *);
void		 unwind_maps_stats(struct unwind_maps *,
		    struct unwind_maps_stats *);
void		 unwind_maps_log_state(struct unwind_maps *);

/* The unwind tables' runtime plug-in (unwind_runtime.c). */
extern const struct runtime_ops unwind_runtime;

#endif
