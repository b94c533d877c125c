#ifndef EBPFSPY_PROCMAPS_H
#define EBPFSPY_PROCMAPS_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum procmaps_kind {
	PROCMAPS_FILE,		/* a path: a file we can open */
	PROCMAPS_SPECIAL,	/* [vdso], [vsyscall] and other names */
	PROCMAPS_ANON,		/* no name: JIT code and the like */
};

/* One executable mapping of /proc/PID/maps. */
struct procmaps_entry {
	uint64_t		 start;
	uint64_t		 end;
	uint64_t		 offset;	/* in the file */
	uint64_t		 inode;
	uint32_t		 dev_major;
	uint32_t		 dev_minor;
	enum procmaps_kind	 kind;
	int			 deleted;	/* " (deleted)" was stripped */
	const char		*path;		/* "" when anonymous */
};

/* A stretch of non-executable mappings: data, heap, stacks. */
struct procmaps_range {
	uint64_t		 start;
	uint64_t		 end;
};

/*
 * Executable mappings, sorted by address, and where the others lie
 * (adjacent ones merged), so that an address found in none of the
 * first can be told data from a hole.
 */
struct procmaps {
	struct procmaps_entry	*v;
	size_t			 n;
	char			*paths;		/* every path, one block */
	size_t			 paths_len;
	struct procmaps_range	*data;
	size_t			 ndata;
};

struct procmaps	*procmaps_parse(FILE *);
struct procmaps	*procmaps_parse_buf(const char *, size_t);
struct procmaps	*procmaps_read(pid_t);
struct procmaps	*procmaps_copy(const struct procmaps *);
void		 procmaps_free(struct procmaps *);
uint64_t	 procmaps_reads(void);
const struct procmaps_entry *procmaps_lookup(const struct procmaps *,
		    uint64_t);
const char	*procmaps_basename(const struct procmaps_entry *);
int		 procmaps_is_data(const struct procmaps *, uint64_t);

/* A vDSO is a few pages; a bigger mapping of that name is not read. */
#define PROCMAPS_VDSO_MAX	(1024 * 1024)
size_t		 procmaps_vdso_self(const uint8_t **);

#endif
