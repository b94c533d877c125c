#ifndef EBPFSPY_DEBUGINFO_H
#define EBPFSPY_DEBUGINFO_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file;

/* Debug files read for one file at most: ends a .gnu_debuglink loop. */
#define DEBUGINFO_DEPTH_MAX	4

/* Where the debug files of a file are looked for. */
struct debuginfo_ctx {
	pid_t		 pid;		/* its root first; 0: the host */
	const char	*path;		/* the file, as the process has it */
	const char	*dirs;		/* debug_dirs: "/dir:/dir" */
};

/* Files already read for one file: the file itself and its debug files. */
struct debuginfo_seen {
	size_t		 n;
	struct {
		dev_t	 dev;
		ino_t	 ino;
	}		 v[DEBUGINFO_DEPTH_MAX + 1];
};

/* A debug file found: open, and checked to belong to the file. */
struct debuginfo_file {
	int		 fd;
	struct elf_file	*ef;
	const char	*how;		/* "build-id" or "debuglink" */
};

int		 debuginfo_find(struct debuginfo_file *, struct elf_file *,
		    const uint8_t *, size_t, const struct debuginfo_ctx *,
		    struct debuginfo_seen *);
int		 debuginfo_find_alt(struct debuginfo_file *, struct elf_file *,
		    const struct debuginfo_ctx *, struct debuginfo_seen *);
void		 debuginfo_close(struct debuginfo_file *);
void		 debuginfo_seen_add(struct debuginfo_seen *, dev_t, ino_t);
void		*debuginfo_mini(struct elf_file *, size_t, size_t *);
int		 debuginfo_crc32(int, uint32_t *);
const char	*debuginfo_dirs_check(const char *);

#endif
