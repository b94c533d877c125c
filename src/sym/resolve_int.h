/*
 * The insides of resolve, shared by resolve.c (naming frames) and
 * resolve_proc.c (the state of each process: its mappings, their symbol
 * tables, the addresses it has no code at, its perf map).  Nothing else
 * includes it.
 */
#ifndef EBPFSPY_RESOLVE_INT_H
#define EBPFSPY_RESOLVE_INT_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "perfmap.h"

struct kallsyms;
struct procmaps;
struct procmaps_entry;
struct symcache;
struct symcache_file;

/* Addresses a re-read did not find, remembered per process. */
#define RESOLVE_BAD_MAX			16

struct resolve {
	int			 module_offset;
	int			 address;
	int			 perf_maps;
	size_t			 nperfmaps, perfmap_bytes;
	struct symcache		*cache;
	struct kallsyms		*ksyms;
	int			 ksyms_loaded;
	uint64_t		 ksyms_round;
	uint64_t		 round;
	uint64_t		 gen;		/* of the last maps loaded */
	uint64_t		 kgen;		/* kallsyms loads */
	uint64_t		 epoch;		/* configurations */
	uint64_t		 unstable;	/* names that may change */
	uint64_t		 frames, named, unknown;
	uint64_t		 kept;		/* tables kept on a re-read */
	uint64_t		 rereads;	/* maps read again */
	uint64_t		 bad_skips;	/* re-reads spared: no code */
	char			 buf[PATH_MAX + 32];
};

struct resolve_proc {
	pid_t			 pid;
	unsigned long long	 start_time;
	struct procmaps		*maps;
	uint64_t		 gen;		/* of these maps */
	struct symcache_file	**files;	/* one per mapping */
	uint64_t		 reread;	/* 1 + round of last re-read */
	uint64_t		 loaded;	/* 1 + round of these maps */
	uint64_t		 bad[RESOLVE_BAD_MAX];	/* in no mapping */
	size_t			 nbad;
	uint64_t		 bad_since;	/* 1 + round of the first */
	size_t			 last;		/* mapping of the last frame */
	struct perfmap		*pm;
	struct perfmap_proc	 pmp;		/* whose map */
	uint64_t		 pm_tried;	/* 1 + round of last read */
};

/*
 * resolve_proc.c: the mapping of rp at addr, or NULL; the maps read
 * again for an address in none (1 if they were), and such an address
 * remembered; the name of JIT code at addr from rp's perf map, or NULL.
 */
const struct procmaps_entry *resolve_proc_find(struct resolve_proc *,
		    uint64_t);
int		 resolve_proc_reread(struct resolve *, struct resolve_proc *,
		    uint64_t);
void		 resolve_proc_add_bad(struct resolve *, struct resolve_proc *,
		    uint64_t);
const char	*resolve_proc_perfmap(struct resolve *, struct resolve_proc *,
		    uint64_t);

#endif
