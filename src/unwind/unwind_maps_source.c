/*
 * The files of mappings, and the CFI of those that do not carry it in
 * the file they map.
 *
 * The vDSO: its image, .eh_frame included, read from the process's
 * memory, as the symbol cache reads it (src/sym/symcache_vdso.c).  The
 * process could have written its own: the caller keys it by its bytes,
 * never by the build id it claims.  When its memory cannot be read (it
 * is gone), ours serves if it has the same size: the same kernel maps
 * the same image into every process of an ABI.
 *
 * A file stripped of its CFI (built without unwind tables, or its
 * .eh_frame removed): the .debug_frame of its debug file, found as the
 * symbols find theirs (src/elf/debuginfo.c: by build id, else by
 * .gnu_debuglink, in the process's root first), each candidate checked
 * to belong to the file.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc_root.h"
#include "proc/procmaps.h"
#include "elf/debuginfo.h"
#include "elf/elf.h"
#include "unwind_maps_source.h"
#include "util/xmalloc.h"

/*
 * The file a process maps at e, opened for reading through
 * src/proc/proc_root.c as the symbols open theirs: the mapped inode by
 * /proc/PID/map_files, else by its path inside the process's root, and
 * then only if the path still names the inode mapped.  A path the maps
 * call deleted names some other file, or none: it is not looked at.
 * Never a plain open() of a path the process controls: a FIFO put there
 * blocked the whole daemon, a link to a file only root may read had it
 * opened.  -1 when the file cannot be had that way.
 */
int
unwind_maps_source_open(pid_t pid, const struct procmaps_entry *e,
    struct stat *sb)
{
	int	 fd;

	fd = proc_root_open_map(pid, e->start, e->end, sb);
	if (fd == -1 && !e->deleted)
		fd = proc_root_open_ino(pid, e->path, e->inode, sb);
	if (fd != -1 && (uint64_t)sb->st_ino != e->inode) {
		close(fd);
		return -1;
	}
	return fd;
}

uint8_t *
unwind_maps_source_vdso(pid_t pid, const struct procmaps_entry *e,
    size_t *len)
{
	const uint8_t	*self;
	uint8_t		*buf;
	size_t		 size = e->end - e->start, slen;

	if (size == 0 || size > PROCMAPS_VDSO_MAX)
		return NULL;
	buf = xmalloc(size);
	if (proc_root_read_mem(pid, e->start, buf, size) == -1) {
		slen = procmaps_vdso_self(&self);
		if (slen != size) {
			free(buf);
			return NULL;
		}
		memcpy(buf, self, size);
	}
	*len = size;
	return buf;
}

/*
 * The debug file of ef (path as process pid has it, sb its stat) that
 * holds the .debug_frame ef lacks: its descriptor, or -1.  Nothing is
 * looked for when ef has .eh_frame or a .debug_frame of its own.
 */
int
unwind_maps_source_debug(struct elf_file *ef, pid_t pid, const char *path,
    const struct stat *sb, const char *dirs)
{
	struct debuginfo_file	 df[DEBUGINFO_DEPTH_MAX];
	struct debuginfo_ctx	 ctx;
	struct debuginfo_seen	 seen;
	struct elf_file_scn	 sc;
	struct elf_file		*cur = ef;
	uint8_t			 id[ELF_FILE_BUILD_ID_MAX];
	size_t			 idlen, n = 0, i;
	int			 fd = -1;

	if (dirs == NULL ||
	    (elf_section_find(ef, ".eh_frame", &sc) == 0 &&
	    sc.type != SHT_NOBITS && sc.size > 0) ||
	    (elf_section_find(ef, ".debug_frame", &sc) == 0 &&
	    sc.type != SHT_NOBITS && sc.size > 0))
		return -1;
	if (elf_file_build_id(ef, id, sizeof(id), &idlen) == -1)
		idlen = 0;
	memset(&ctx, 0, sizeof(ctx));
	ctx.pid = pid;
	ctx.path = path;
	ctx.dirs = dirs;
	memset(&seen, 0, sizeof(seen));
	debuginfo_seen_add(&seen, sb->st_dev, sb->st_ino);
	while (n < DEBUGINFO_DEPTH_MAX && debuginfo_find(&df[n], cur, id,
	    idlen, &ctx, &seen) == 0) {
		cur = df[n++].ef;
		if (elf_section_find(cur, ".debug_frame", &sc) == 0 &&
		    sc.type != SHT_NOBITS && sc.size > 0) {
			fd = fcntl(df[n - 1].fd, F_DUPFD_CLOEXEC, 0);
			break;
		}
	}
	for (i = 0; i < n; i++)
		debuginfo_close(&df[i]);
	return fd;
}
