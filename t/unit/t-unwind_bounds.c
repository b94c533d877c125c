/*
 * The unwind table builder's bounds on memory: a file's CFI is read
 * only up to what the file holds on disk (unwind_table_limits_file),
 * and a builder over that copies nothing, says so (over_input) and
 * holds a few bytes.  The file: this program, its .eh_frame and
 * .eh_frame_hdr made to claim 48 MiB each in the hole of a sparse file
 * of 128 MiB, as t/helper/sparse_elf.py makes them for t8101.
 */
#include <sys/stat.h>

#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf.h"
#include "unwind/unwind_table.h"

#include "tap.h"

#define MIB	(1UL << 20)

/* A temporary file of data, then of size bytes in all: its fd. */
static int
tmpfile_make(const void *data, size_t len, off_t size)
{
	char	 path[] = "/tmp/t-unwind_bounds.XXXXXX";
	int	 fd;

	if ((fd = mkstemp(path)) == -1)
		return -1;
	unlink(path);
	if ((len > 0 && write(fd, data, len) != (ssize_t)len) ||
	    ftruncate(fd, size) == -1 || fsync(fd) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Our own image, .eh_frame and .eh_frame_hdr claiming 48 MiB each. */
static uint8_t *
sparse_image(size_t *len)
{
	Elf64_Ehdr	*eh;
	Elf64_Shdr	*sh;
	const char	*names;
	uint8_t		*buf;
	struct stat	 sb;
	int		 fd, i, done = 0;

	if ((fd = open("/proc/self/exe", O_RDONLY)) == -1 ||
	    fstat(fd, &sb) == -1 || (buf = malloc(sb.st_size)) == NULL ||
	    read(fd, buf, sb.st_size) != sb.st_size)
		return NULL;
	close(fd);
	eh = (Elf64_Ehdr *)buf;
	sh = (Elf64_Shdr *)(buf + eh->e_shoff);
	names = (const char *)buf + sh[eh->e_shstrndx].sh_offset;
	for (i = 0; i < eh->e_shnum; i++) {
		if (strcmp(names + sh[i].sh_name, ".eh_frame") == 0) {
			sh[i].sh_offset = 16 * MIB;
			sh[i].sh_size = 48 * MIB;
			done++;
		} else if (strcmp(names + sh[i].sh_name,
		    ".eh_frame_hdr") == 0) {
			sh[i].sh_offset = 64 * MIB;
			sh[i].sh_size = 48 * MIB;
			done++;
		}
	}
	*len = sb.st_size;
	if (done != 2) {
		free(buf);
		return NULL;
	}
	return buf;
}

int
main(void)
{
	struct unwind_table_limits	 lim;
	struct unwind_table_stats	 st;
	struct unwind_table_builder	*b;
	struct elf_file			*ef = NULL;
	struct stat			 sb;
	uint8_t				*img, page[4096];
	size_t				 len, bytes;
	int				 fd;

	/* 4 KiB of data in a file of 64 MiB. */
	memset(page, 0x5a, sizeof(page));
	fd = tmpfile_make(page, sizeof(page), 64 * MIB);
	ok(fd != -1 && fstat(fd, &sb) == 0, "a sparse file of 64 MiB");
	memset(&lim, 0, sizeof(lim));
	lim.max_input = 8 * MIB;
	unwind_table_limits_file(&lim, &sb);
	ok(lim.max_input > 0 && lim.max_input <= 2 * 512 *
	    (uint64_t)sb.st_blocks && lim.max_input < MIB,
	    "sparse: CFI of %zu bytes at most, twice its %lld blocks",
	    lim.max_input, (long long)sb.st_blocks);
	close(fd);

	fd = tmpfile_make(page, sizeof(page), sizeof(page));
	ok(fd != -1 && fstat(fd, &sb) == 0, "a file of 4 KiB");
	memset(&lim, 0, sizeof(lim));
	unwind_table_limits_file(&lim, &sb);
	is_int((long long)lim.max_input, 4096LL,
	    "dense, no limit before: its size");
	close(fd);

	fd = tmpfile_make(NULL, 0, 0);
	ok(fd != -1 && fstat(fd, &sb) == 0, "an empty file");
	memset(&lim, 0, sizeof(lim));
	unwind_table_limits_file(&lim, &sb);
	is_int((long long)lim.max_input, 1LL, "empty: 1 byte, not no limit");
	close(fd);

	/* The sections in the hole: nothing read, refused. */
	if ((img = sparse_image(&len)) == NULL) {
		ok(0, "our image with .eh_frame and .eh_frame_hdr");
		return done_testing();
	}
	fd = tmpfile_make(img, len, 128 * MIB);
	free(img);
	if (fd == -1 || fstat(fd, &sb) == -1)
		memset(&sb, 0, sizeof(sb));
	ok(sb.st_size == 128 * MIB && (ef = elf_file_open(fd)) != NULL,
	    "sparse ELF: 128 MiB, %lld KiB on disk",
	    (long long)sb.st_blocks / 2);
	if (ef == NULL)
		return done_testing();
	memset(&lim, 0, sizeof(lim));
	lim.max_input = 8 * MIB;
	unwind_table_limits_file(&lim, &sb);
	b = unwind_table_builder_create(ef, NULL, &lim);
	ok(b != NULL, "sparse ELF: a builder");
	bytes = unwind_table_builder_bytes(b);
	ok(bytes < 64 * 1024, "sparse ELF: the builder holds %zu bytes, "
	    "not 96 MiB", bytes);
	ok(unwind_table_builder_step(b, 64) == 0, "sparse ELF: no step");
	ok(unwind_table_builder_finish(b, &st) == NULL && st.too_big &&
	    st.over_input, "sparse ELF: no table, over its input, refused");
	elf_file_close(ef);
	close(fd);
	return done_testing();
}
