#ifndef EBPFSPY_SESSION_UNWIND_H
#define EBPFSPY_SESSION_UNWIND_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/unwind.h"

struct config;
struct profile_bpf;
struct session_unwind;

/*
 * The unwind tables' BPF maps (bpf/unwind.bpf.h), for src/unwind/unwind_maps.c:
 * session*.c are the only files that call libbpf for the daemon's maps.
 */

/* Before load: size the maps from the config. */
void		 session_unwind_size(struct profile_bpf *,
		    const struct config *);
/* The live knobs: [profile] unwind and unwind_depth. */
void		 session_unwind_knobs(struct profile_bpf *,
		    const struct config *);
/* After load: map the arrays. */
struct session_unwind *session_unwind_open(struct profile_bpf *);
void		 session_unwind_close(struct session_unwind *);

/* The mmapped arrays and their number of entries. */
struct unwind_row *session_unwind_rows(struct session_unwind *, size_t *);
struct unwind_page *session_unwind_pages(struct session_unwind *, size_t *);
struct unwind_file *session_unwind_files(struct session_unwind *, size_t *);
/* Processes' mappings: written whole, deleted at exit. */
int		 session_unwind_proc_set(struct session_unwind *, pid_t,
		    const struct unwind_proc *);
int		 session_unwind_proc_delete(struct session_unwind *, pid_t);
size_t		 session_unwind_procs_max(struct session_unwind *);
/* Sum the per-CPU counters into stats[UNWIND_STAT_MAX]. */
void		 session_unwind_stats(struct session_unwind *, uint64_t *);
const char	*session_unwind_stat_name(int);

#endif
