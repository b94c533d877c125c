#ifndef EBPFSPY_RESOLVE_H
#define EBPFSPY_RESOLVE_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

struct procmaps;
struct resolve;
struct resolve_proc;

struct resolve_stats {
	uint64_t	frames;		/* frames asked for */
	uint64_t	named;		/* given a symbol name */
	uint64_t	unknown;	/* no symbol found */
	size_t		files;		/* tables and perf maps loaded */
	size_t		file_bytes;	/* their memory */
	size_t		perf_maps;	/* of which perf maps */
	size_t		perf_map_bytes;
	size_t		ksyms;		/* kernel symbols */
	size_t		ksym_bytes;	/* their memory */
	uint64_t	hits, misses;	/* symbol table cache */
	uint64_t	kept;		/* tables kept when maps are re-read */
	uint64_t	rereads;	/* maps re-read for an address */
	uint64_t	bad_skips;	/* not re-read: an address of no code */
};

struct resolve	*resolve_create(const struct config *);
void		 resolve_free(struct resolve *);
void		 resolve_configure(struct resolve *, const struct config *);

/*
 * Per-process state: the executable mappings of /proc/PID/maps and the
 * symbol tables of their files, captured when opened so that a process
 * that exits before the round still gets names.  resolve_proc_open is
 * NULL when the process is gone; resolve_user takes NULL and names every
 * frame unknown.  The _maps variants take maps the caller has read (and
 * shared with others), and keep them.
 */
struct resolve_proc *resolve_proc_open(struct resolve *, pid_t);
struct resolve_proc *resolve_proc_open_maps(struct resolve *, pid_t,
		    struct procmaps *);
void		 resolve_proc_refresh(struct resolve *, struct resolve_proc *);
void		 resolve_proc_refresh_maps(struct resolve *,
		    struct resolve_proc *, struct procmaps *);
/* Not after an exec: the same program read again. */
void		 resolve_proc_reload_maps(struct resolve *,
		    struct resolve_proc *, struct procmaps *);
void		 resolve_proc_close(struct resolve *, struct resolve_proc *);

/*
 * Name a frame.  Never NULL: a symbol, else the unknown-symbol form the
 * configuration asks for.  The string is valid until the next call.
 */
const char	*resolve_user(struct resolve *, struct resolve_proc *,
		    uint64_t);
const char	*resolve_kernel(struct resolve *, uint64_t);
/* Read the kernel's symbols, if not yet: else the first frame does. */
void		 resolve_kernel_load(struct resolve *);
/* A frame at an ELF virtual address of a file (for resolve -f). */
const char	*resolve_file(struct resolve *, const char *, uint64_t);

/*
 * The functions at an address, outermost first: where Go inlined calls,
 * the function the code is in and then each function inlined, down to
 * the one resolve_user names.  How many were put in names (at least 1,
 * at most max); valid until the next call.
 */
size_t		 resolve_user_frames(struct resolve *, struct resolve_proc *,
		    uint64_t, const char **, size_t);
/*
 * Where a user frame is, for pprof: the file mapped there, that
 * mapping and the frame's address in the file's terms (its ELF virtual
 * addresses where the file's segments say, else its offsets), the
 * symbol as the file has it, and the source files and lines of the
 * names (Go's).  Strings valid until the next call.
 */
#define RESOLVE_WHERE_LINES_MAX	32
struct resolve_where {
	const char	*path;		/* NULL: in no file */
	uint64_t	 start, limit, offset;	/* the mapping */
	uint64_t	 addr;
	const uint8_t	*build_id;
	size_t		 build_id_len;
	const char	*system;	/* NULL: no symbol */
	/* Each name's source file (NULL: none) and line (0: none). */
	const char	*files[RESOLVE_WHERE_LINES_MAX];
	int32_t		 lines[RESOLVE_WHERE_LINES_MAX];
	size_t		 nlines;	/* as many as names, or 0 */
};
size_t		 resolve_user_frames_where(struct resolve *,
		    struct resolve_proc *, uint64_t, const char **, size_t,
		    struct resolve_where *);
size_t		 resolve_file_frames(struct resolve *, const char *, uint64_t,
		    const char **, size_t);

/*
 * For caches of names: generations of a process's mappings and of the
 * kernel's symbols, the count of names that may change without a new
 * generation, and the epoch: every name may change when it does.
 */
uint64_t	 resolve_proc_gen(const struct resolve_proc *);
uint64_t	 resolve_kernel_gen(const struct resolve *);
uint64_t	 resolve_unstable(const struct resolve *);
uint64_t	 resolve_epoch(const struct resolve *);

/* The keys of [symbols], with their checks, for config_keys.c. */
extern const struct config_key resolve_keys[];

void		 resolve_round_end(struct resolve *);

/*
 * Debug files to fetch (push/debuginfod.c): build ids of stripped files
 * read without one, taken off the list; and, once one is fetched, the
 * tables to read again.  symcache.h's struct symcache_build_id.
 */
struct symcache_build_id;
size_t		 resolve_debug_wants(struct resolve *,
		    struct symcache_build_id *, size_t);
size_t		 resolve_debug_fetched(struct resolve *, const uint8_t *,
		    size_t);
void		 resolve_stats(struct resolve *, struct resolve_stats *);

#endif
