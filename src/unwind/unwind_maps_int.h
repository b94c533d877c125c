/*
 * The insides of src/unwind/unwind_maps.c, shared with
 * src/unwind/unwind_maps_build.c, src/unwind/unwind_maps_proc.c and
 * src/unwind/unwind_maps_share.c.
 */
#ifndef EBPFSPY_UNWIND_MAPS_INT_H
#define EBPFSPY_UNWIND_MAPS_INT_H

#include <stddef.h>
#include <stdint.h>

#include <ev.h>

#include "bpf/unwind.h"
#include "proc/procmaps.h"
#include "unwind_maps.h"
#include "unwind_maps_space.h"
#include "unwind_table.h"

struct elf_file;
struct elf_file_segment;
struct session_unwind;

#define UNWIND_MAPS_BUCKETS	1024
#define UNWIND_MAPS_SLICE_NS	2000000		/* of building, at most */
#define UNWIND_MAPS_STEP	64		/* FDEs a builder step */
#define UNWIND_MAPS_GRACE_NS	1000000		/* before evicted room is reused */
#define UNWIND_MAPS_HOT		4		/* seconds a table walked is kept */
#define UNWIND_MAPS_RETRY	10		/* seconds before a table that did
						   not fit is built again */
#define UNWIND_MAPS_ASK_MAX	64	/* ticks between asks, at most */
#define UNWIND_MAPS_IDLE	60	/* seconds a record of no table of
					   its own is kept unmapped */
#define UNWIND_MAPS_QUEUE_MAX	256	/* builds waiting, at most */
#define UNWIND_MAPS_BUILD_BUDGETS 4	/* table budgets the builds begun
					   may hold in all */

enum unwind_maps_state {
	UNWIND_MAPS_NONE,	/* no table: evicted, or never built */
	UNWIND_MAPS_QUEUED,	/* waiting for, or in, the builder */
	UNWIND_MAPS_LOADED,
	UNWIND_MAPS_FAILED,	/* no usable table: frame pointers */
	UNWIND_MAPS_SHARED,	/* the rows of an identical table, another
				   file's (lender) */
};

struct unwind_maps_key {
	uint64_t	 dev;
	uint64_t	 ino;
	int64_t		 size;
	int64_t		 mtime_sec;
	int64_t		 mtime_nsec;
	uint64_t	 img_hash;	/* a vDSO's, of its bytes; else 0 */
};

struct unwind_maps_file {
	struct unwind_maps_key		 key;
	uint32_t			 id;	/* slot of uw_files */
	enum unwind_maps_state		 state;
	size_t				 refs;	/* processes that map it */
	struct elf_file_segment		*segs;
	size_t				 nsegs;
	/*
	 * Where a process mapped it, while queued: opened again when its
	 * build starts, no descriptor kept meanwhile.
	 */
	pid_t				 src_pid;
	struct procmaps_entry		 src;
	char				*src_path;	/* src.path */
	int				 debug;	/* its CFI is a debug file's */
	uint8_t				*img;	/* a vDSO's image */
	size_t				 img_len;
	struct unwind_table_builder	*b;
	uint32_t			 row_base, nrows;
	uint32_t			 page_base, npages;
	uint32_t			 used;	/* loaded or mapped, as hit */
	uint32_t			 retry;	/* did not fit: not before */
	uint64_t			 thash;	/* of rows and pages */
	struct unwind_maps_file		*lender;	/* SHARED: whose */
	struct unwind_maps_file		*borrowers;	/* LOADED: list */
	struct unwind_maps_file		*bnext;
	struct unwind_maps_file		*hnext;	/* bucket */
	struct unwind_maps_file		*qnext;	/* build queue */
};

/* Where a process mapped a file, as its maps said. */
struct unwind_maps_at {
	uint64_t		 start;
	uint64_t		 end;
	uint64_t		 offset;
	uint64_t		 inode;
	uint32_t		 dev_major;
	uint32_t		 dev_minor;
};

struct unwind_maps_proc {
	pid_t			 pid;
	int			 asked;		/* next write answers BPF */
	uint32_t		 backoff;	/* its next ask, in ticks */
	uint32_t		 nmaps;		/* mappings, as written */
	struct unwind_maps_proc	*pnext;		/* bucket, by pid */
	struct unwind_maps_file	**files;	/* one reference each */
	struct unwind_maps_at	*at;		/* where each is mapped */
	size_t			 nfiles;
};

struct unwind_maps {
	struct ev_loop		*loop;
	struct session_unwind	*su;
	int			 mode;		/* enum config_unwind */
	struct unwind_row	*rows;
	struct unwind_page	*pages;
	struct unwind_file	*slots;
	size_t			 nslots;
	struct unwind_maps_space rowspace;
	struct unwind_maps_space pagespace;
	struct unwind_maps_file	**byid;		/* nslots */
	struct unwind_maps_file	*buckets[UNWIND_MAPS_BUCKETS];
	/* The handle whose mappings BPF holds, by pid. */
	struct unwind_maps_proc	*procs[UNWIND_MAPS_BUCKETS];
	struct unwind_maps_file	*qhead, *qtail;
	ev_idle			 idle;
	struct unwind_maps_stats st;
	struct unwind_table_limits limits;	/* of one table */
	char			*debug_dirs;	/* [symbols] debug_dirs */
	uint32_t		 gen;		/* the last publication's */
	uint32_t		 swept;		/* unwind_maps_now() of the last */
};

uint32_t	 unwind_maps_now(void);
void		 unwind_maps_slot_publish(struct unwind_maps *,
		    struct unwind_maps_file *, uint64_t, uint64_t);

int		 unwind_maps_evict_before(struct unwind_maps *,
		    struct unwind_maps_file *, struct unwind_maps_file *);
int		 unwind_maps_evict_one(struct unwind_maps *,
		    struct unwind_maps_file *);
void		 unwind_maps_file_stop_build(struct unwind_maps_file *);
pid_t		 unwind_maps_proc_other(struct unwind_maps *,
		    struct unwind_maps_file *, pid_t, struct procmaps_entry *);
void		 unwind_maps_file_free(struct unwind_maps *,
		    struct unwind_maps_file *);
int		 unwind_maps_file_due(struct unwind_maps *,
		    struct unwind_maps_file *);
struct unwind_maps_file *unwind_maps_file_get(struct unwind_maps *, pid_t,
		    const struct procmaps_entry *);
void		 unwind_maps_dequeue(struct unwind_maps *,
		    struct unwind_maps_file *);

/* src/unwind/unwind_maps_build.c */
void		 unwind_maps_build(struct unwind_maps *, uint64_t);
void		 unwind_maps_idle_cb(struct ev_loop *, ev_idle *, int);

/* src/unwind/unwind_maps_share.c */
int		 unwind_maps_share(struct unwind_maps *,
		    struct unwind_maps_file *, const struct unwind_table *);
void		 unwind_maps_share_drop(struct unwind_maps *,
		    struct unwind_maps_file *);
size_t		 unwind_maps_share_refs(const struct unwind_maps_file *);
uint32_t	 unwind_maps_share_used(struct unwind_maps *,
		    const struct unwind_maps_file *);

#endif
