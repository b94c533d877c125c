#ifndef EBPFSPY_COLLECT_PROFS_H
#define EBPFSPY_COLLECT_PROFS_H

#include <stddef.h>
#include <stdint.h>

struct collect_profs;
struct config;
struct pids_proc;
struct profile;

/* The profiles of a round: one per target (its labels) and kind. */
struct collect_profs *collect_profs_create(void);
void		 collect_profs_free(struct collect_profs *);
/* Free the round's profiles. */
void		 collect_profs_clear(struct collect_profs *);
/*
 * The profile of a process's service (its proc->service, which
 * pids_get() set) and a kind (enum profile_kind, CPU or OFFCPU) for the
 * round from start to now (ns since the epoch): created at its first
 * count.
 */
struct profile	*collect_profs_get(struct collect_profs *,
		    const struct config *, int, const struct pids_proc *,
		    int64_t, int64_t);
/*
 * The round's profiles, *n of them, in an allocated array: the
 * caller's, with the profiles; the table is left empty.
 */
struct profile	**collect_profs_take(struct collect_profs *, size_t *);

#endif
