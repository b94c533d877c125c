/*
 * The insides of the symbol cache, shared by symcache.c (the cache and
 * its tables), symcache_index.c (finding a table by its keys)
 * and symcache_vdso.c (vDSOs).  Nothing else includes it.
 */
#ifndef EBPFSPY_SYMCACHE_INT_H
#define EBPFSPY_SYMCACHE_INT_H

#include <sys/types.h>
#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>

#include "dwarf/srcline.h"
#include "symfile.h"

/* An inlined function's name, " (inlined)" included, at most. */
#define SYMCACHE_DWARF_NAME	256

struct demangle_cache;
struct procmaps_entry;

/*
 * What a table is found by: a file's contents, known without reading
 * it (device, inode, size, mtime), and, for a stripped file, where its
 * names came from.  kind says what ctx holds.
 */
#define SYMCACHE_KEY_FILE	0	/* nothing: the file alone names */
#define SYMCACHE_KEY_ROOT	1	/* a root: mnt ns, root dev, ino */
#define SYMCACHE_KEY_DEBUG	2	/* its debug file: dev, ino, size, mtime */
#define SYMCACHE_KEY_VDSO	3	/* an image in memory: its hash */
#define SYMCACHE_KEY_CTX	4

struct symcache_key {
	uint32_t	major;
	uint32_t	minor;
	uint64_t	ino;
	int64_t		size;
	int64_t		mtime_sec;
	int64_t		mtime_nsec;
	uint32_t	kind;
	uint64_t	ctx[SYMCACHE_KEY_CTX];
};

struct symcache_alias {
	struct symcache_key	 key;
	struct symcache_file	*file;
	struct symcache_alias	*next;		/* hash chain */
	struct symcache_alias	*file_next;	/* the file's other aliases */
};

struct symcache_file {
	struct symfile		 sf;
	struct demangle_cache	*dm;		/* names demangled so far */
	size_t			 bytes;
	unsigned int		 refs;		/* holders, the cache aside */
	int			 cached;
	int			 evicted;
	int			 vdso;
	void			*img;		/* a vDSO's image, or NULL */
	size_t			 img_len;
	uint64_t		 used_round;
	struct symcache_file	*prev, *next;	/* LRU, most recent first */
	struct symcache_alias	*aliases;
};

/* The last address DWARF named, for symcache_lines after it. */
struct symcache_dwarf_memo {
	const struct symcache_file *f;		/* NULL: none */
	uint64_t		 vaddr;
	size_t			 n;
	const char		*files[SRCLINE_DEPTH_MAX];
	int32_t			 lines[SRCLINE_DEPTH_MAX];
	char			 names[SRCLINE_DEPTH_MAX][SYMCACHE_DWARF_NAME];
};

struct symcache {
	size_t			 max_files;
	size_t			 max_bytes;
	uint64_t		 max_rounds;
	int			 demangle;	/* enum config_demangle */
	int			 inlines;	/* DWARF's inlined frames */
	uint64_t		 dwarf_later;	/* lookups put off */
	struct symcache_dwarf_memo dw;
	char			*debug_dirs;	/* and the fetched files' */
	char			*fetch_dir;	/* debuginfod's; NULL: off */
	/* Build ids of stripped files without debug files, to fetch. */
	struct symcache_want {
		uint8_t		 id[ELF_FILE_BUILD_ID_MAX];
		size_t		 len;
	}			*want;
	size_t			 nwant;
	struct symfile_limits	 lim;		/* of a table's build */
	uint64_t		 round;
	struct symcache_alias	**ino;
	size_t			 ino_size, ino_n;
	struct symcache_file	*head, *tail;
	size_t			 nfiles, bytes;
	uint64_t		 hits, misses;
	struct symcache_file	*vdso;		/* ours */
	int			 vdso_tried;
	const void		*vdso_img;
	uint64_t		 vdso_size;
};

/* symcache_want.c */
void		 symcache_want_add(struct symcache *, const struct symfile *);

/* symcache.c */
struct symcache_file *symcache_file_new(void);
void		 symcache_file_free(struct symcache_file *);
void		 symcache_evict(struct symcache *, struct symcache_file *);
void		 symcache_insert(struct symcache *, struct symcache_file *,
		    const struct symcache_key *);
struct symcache_file *symcache_ref(struct symcache *, struct symcache_file *);

const char	*symcache_name(struct symcache *, struct symcache_file *,
		    uint64_t);

/* symcache_dwarf.c */
size_t		 symcache_dwarf_frames(struct symcache *,
		    struct symcache_file *, uint64_t, const char **, size_t);
size_t		 symcache_dwarf_lines(struct symcache *,
		    const struct symcache_file *, uint64_t, const char **,
		    int32_t *, size_t);

/* symcache_index.c */
int		 symcache_index_key_same(const struct symcache_key *,
		    const struct symcache_key *);
void		 symcache_index_key_stat(struct symcache_key *,
		    const struct stat *);
int		 symcache_index_key_root(struct symcache_key *, pid_t);
int		 symcache_index_stat_is_inode(const struct stat *,
		    const struct symcache_key *);
struct symcache_alias *symcache_index_alias_find(struct symcache *,
		    const struct symcache_key *);
void		 symcache_index_alias_add(struct symcache *,
		    struct symcache_file *, const struct symcache_key *);
void		 symcache_index_alias_unhash(struct symcache *,
		    struct symcache_alias *);
void		 symcache_index_alias_remove(struct symcache *,
		    struct symcache_alias *);

/* symcache_vdso.c */
struct symcache_file *symcache_vdso_get(struct symcache *, pid_t,
		    const struct procmaps_entry *);

#endif
