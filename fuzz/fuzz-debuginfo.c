/*
 * Finding the debug file of a stripped file: its build id note and its
 * .gnu_debuglink name the files to look for, and whatever is found
 * there is untrusted too.  The input is written as the file, and planted
 * again where its build id and its debug link point (in a private
 * directory: a debug link is a plain file name, never a path), so that
 * the lookup finds it, checks it and reads its symbols.  An input
 * holding FUZZ_SEP has its debug file after it.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/debuginfo.h"
#include "elf/elf.h"
#include "fuzz.h"
#include "sym/symfile.h"
#include "elf/symtab.h"

#define FUZZ_SEP	"\0FUZZ-DEBUG-FILE\0"

static char	 fuzz_bin[PATH_MAX], fuzz_dirs[PATH_MAX];

void
fuzz_setup(void)
{
	snprintf(fuzz_bin, sizeof(fuzz_bin), "%s/bin/file", fuzz_tmpdir());
	snprintf(fuzz_dirs, sizeof(fuzz_dirs), "%s/nothing:%s/debug",
	    fuzz_tmpdir(), fuzz_tmpdir());
}

static void
fuzz_mkdirs(const char *path)
{
	char	 buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(buf, 0700);
		*p = '/';
	}
}

static void
fuzz_plant(const char *path, const void *data, size_t len)
{
	fuzz_mkdirs(path);
	fuzz_write_file(path, data, len);
}

/* Put the debug file where the file's build id and link point. */
static void
fuzz_plant_all(const uint8_t *bin, size_t binlen, const uint8_t *dbg,
    size_t dbglen)
{
	struct elf_file	*ef;
	uint8_t		*copy, id[ELF_FILE_BUILD_ID_MAX];
	char		 path[PATH_MAX + 300], hex[2 * sizeof(id) + 1];
	char		 name[ELF_FILE_DEBUGLINK_MAX];
	size_t		 idlen, i;
	uint32_t	 crc;

	if ((copy = malloc(binlen > 0 ? binlen : 1)) == NULL)
		abort();
	memcpy(copy, bin, binlen);
	if ((ef = elf_file_open_mem(copy, binlen)) == NULL) {
		free(copy);
		return;
	}
	if (elf_file_build_id(ef, id, sizeof(id), &idlen) == 0 &&
	    idlen >= 2) {
		for (i = 1; i < idlen; i++)
			snprintf(hex + 2 * (i - 1), 3, "%02x", id[i]);
		snprintf(path, sizeof(path), "%s/debug/.build-id/%02x/%s.debug",
		    fuzz_tmpdir(), id[0], hex);
		fuzz_plant(path, dbg, dbglen);
	}
	if (elf_section_debuglink(ef, name, sizeof(name), &crc) == 0) {
		if (strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
		    strcmp(name, "..") == 0)
			abort();	/* a path, not a file name */
		snprintf(path, sizeof(path), "%s/bin/.debug/%s",
		    fuzz_tmpdir(), name);
		fuzz_plant(path, dbg, dbglen);
		snprintf(path, sizeof(path), "%s/debug%s/bin/%s",
		    fuzz_tmpdir(), fuzz_tmpdir(), name);
		fuzz_plant(path, dbg, dbglen);
	}
	elf_file_close(ef);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct elf_file		*ef;
	struct symfile		 sf;
	struct symfile_ctx	 ctx;
	struct symfile_debug	 d;
	struct symfile_limits	 lim;
	struct stat		 sb;
	const uint8_t		*dbg = data;
	size_t			 binlen = len, dbglen = len, i;
	int			 fd;

	for (i = 0; i + sizeof(FUZZ_SEP) - 1 <= len; i++)
		if (memcmp(data + i, FUZZ_SEP, sizeof(FUZZ_SEP) - 1) == 0) {
			binlen = i;
			dbg = data + i + sizeof(FUZZ_SEP) - 1;
			dbglen = len - binlen - (sizeof(FUZZ_SEP) - 1);
			break;
		}

	fuzz_empty_dir(fuzz_tmpdir());
	fuzz_plant(fuzz_bin, data, binlen);
	fuzz_plant_all(data, binlen, dbg, dbglen);

	if ((fd = open(fuzz_bin, O_RDONLY)) == -1)
		abort();
	if (fstat(fd, &sb) == -1)
		abort();
	if ((ef = elf_file_open(fd)) != NULL) {
		memset(&sf, 0, sizeof(sf));
		memset(&ctx, 0, sizeof(ctx));
		ctx.pid = 0;
		ctx.path = fuzz_bin;
		ctx.debug_dirs = fuzz_dirs;
		ctx.dev = sb.st_dev;
		ctx.ino = sb.st_ino;
		symfile_identify(&sf, ef);
		/* Found as the symbol cache finds it, then loaded. */
		symfile_debug_find(&d, &sf, ef, &ctx);
		lim.max_symbols = 1 << 20;
		lim.max_names = 64 << 20;
		lim.max_debugdata = 16 << 20;
		symfile_load(&sf, ef, &d, &lim, fuzz_bin);
		symfile_debug_close(&d);
		if (sf.symtab != NULL)
			for (i = 0; i < sf.symtab->n; i++)
				(void)strlen(symtab_name(sf.symtab,
				    &sf.symtab->v[i]));
		symfile_release(&sf);
		elf_file_close(ef);
	}
	close(fd);
	return 0;
}
