#ifndef EBPFSPY_SYMCACHE_H
#define EBPFSPY_SYMCACHE_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

struct config;
struct procmaps_entry;
struct symcache;
struct symcache_file;

struct symcache_stats {
	size_t		files;		/* tables cached */
	size_t		bytes;		/* their memory */
	uint64_t	hits;
	uint64_t	misses;
};

struct symcache	*symcache_create(const struct config *);
void		 symcache_free(struct symcache *);
void		 symcache_configure(struct symcache *, const struct config *);

/*
 * The symbols of a mapping's file, or of a file by path.  A reference
 * the caller gives back with symcache_put; NULL only for mappings that
 * have no file (anonymous memory).
 */
struct symcache_file *symcache_get(struct symcache *, pid_t,
		    const struct procmaps_entry *);
struct symcache_file *symcache_get_path(struct symcache *, const char *);
void		 symcache_put(struct symcache *, struct symcache_file *);
/* Another reference to a table the caller holds one of. */
struct symcache_file *symcache_hold(struct symcache *,
		    struct symcache_file *);
int		 symcache_file_is_evicted(const struct symcache_file *);

const char	*symcache_symbol(struct symcache *, struct symcache_file *,
		    uint64_t);
const char	*symcache_symbol_vaddr(struct symcache *,
		    struct symcache_file *, uint64_t);
const char	*symcache_system_name(const struct symcache_file *,
		    uint64_t);
size_t		 symcache_frames(struct symcache *, struct symcache_file *,
		    uint64_t, const char **, size_t);
size_t		 symcache_lines(struct symcache *, const struct symcache_file *,
		    uint64_t, const char **, int32_t *, size_t);
/* Lookups DWARF put off to a later round (srcline.h), so far. */
uint64_t	 symcache_dwarf_later(const struct symcache *);
int		 symcache_file_offset(const struct symcache_file *, uint64_t,
		    uint64_t *);
uint64_t	 symcache_function_start(const struct symcache_file *,
		    uint64_t);
/* debuginfod's directory for conf, or NULL: off (free it). */
char		*symcache_fetch_dir(const struct config *);
/* symcache_want.c: debug files to fetch (debuginfod), and fetched. */
#define SYMCACHE_BUILD_ID_MAX	64	/* ELF_FILE_BUILD_ID_MAX */
struct symcache_build_id {
	uint8_t		 id[SYMCACHE_BUILD_ID_MAX];
	size_t		 len;
};
size_t		 symcache_want_take(struct symcache *,
		    struct symcache_build_id *, size_t);
size_t		 symcache_want_fetched(struct symcache *, const uint8_t *,
		    size_t);
int		 symcache_file_vaddr(const struct symcache_file *, uint64_t,
		    uint64_t *);
size_t		 symcache_file_count(const struct symcache_file *);
const uint8_t	*symcache_file_build_id(const struct symcache_file *,
		    size_t *);
unsigned int	 symcache_file_sources(const struct symcache_file *);

void		 symcache_round_end(struct symcache *);
void		 symcache_stats(struct symcache *, struct symcache_stats *);

#endif
