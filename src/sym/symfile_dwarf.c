/*
 * Which file holds a file's DWARF, for src/dwarf/: the file itself when
 * it has a .debug_info (built -g, not stripped), else the first of its
 * debug files found (symfile_debug_find) that has one; and that one's
 * dwz supplementary file (.gnu_debugaltlink), looked for as its debug
 * files are, in the process's root first.  The descriptors are
 * duplicated for the srcline, which reads the DWARF when an address of
 * the file is first looked up: a table holds them as long as it is
 * cached.
 */
#include <sys/types.h>

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/srcline.h"
#include "elf/debuginfo.h"
#include "elf/elf.h"
#include "symfile.h"
#include "util/log.h"

static int
symfile_dwarf_has(struct elf_file *ef)
{
	struct elf_file_scn	 scn;

	return elf_section_find(ef, ".debug_info", &scn) == 0 ||
	    elf_section_find(ef, ".zdebug_info", &scn) == 0;
}

void
symfile_dwarf(struct symfile *sf, int fd, struct elf_file *ef,
    const struct symfile_debug *d, const struct symfile_ctx *ctx,
    const struct symfile_limits *lim, const char *name)
{
	struct debuginfo_ctx	 dctx;
	struct debuginfo_seen	 seen;
	struct debuginfo_file	 alt;
	struct elf_file		*def = NULL;
	size_t			 i;
	int			 dfd = -1, altfd = -1;

	if (lim == NULL || lim->max_dwarf == 0)
		return;
	if (symfile_dwarf_has(ef)) {
		def = ef;
		dfd = fd;
	} else if (d != NULL) {
		for (i = 0; i < d->ndf && def == NULL; i++)
			if (symfile_dwarf_has(d->df[i].ef)) {
				def = d->df[i].ef;
				dfd = d->df[i].fd;
			}
	}
	if (def == NULL || (dfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return;
	memset(&dctx, 0, sizeof(dctx));
	dctx.pid = ctx->pid;
	dctx.path = ctx->path;
	dctx.dirs = ctx->debug_dirs;
	memset(&seen, 0, sizeof(seen));
	debuginfo_seen_add(&seen, ctx->dev, ctx->ino);
	if (debuginfo_find_alt(&alt, def, &dctx, &seen) == 0) {
		altfd = fcntl(alt.fd, F_DUPFD_CLOEXEC, 0);
		debuginfo_close(&alt);
	}
	log_debug("%s: DWARF%s", name, altfd != -1 ?
	    ", with a dwz supplementary file" : "");
	sf->dwarf = srcline_create(dfd, altfd, lim->max_dwarf, name);
}
