/*
 * Go's pclntab: a Go binary, stripped or not, names its functions and
 * inlined calls in .gopclntab (and go:func.*, through relocations in a
 * position independent file), and their source files and lines in its
 * line tables.  The input is the whole ELF file; the seeds are small
 * real ones of every header version.
 */
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"
#include "fuzz.h"
#include "sym/gopclntab.h"

/* The lines at a: one a frame (or none), files that are strings. */
static void
fuzz_lines(const struct gopclntab *g, uint64_t a, size_t nframes,
    const char **files, int32_t *lines)
{
	size_t	 n, j;

	n = gopclntab_lines(g, a, files, lines, GOPCLNTAB_DEPTH_MAX);
	if (n != 0 && n != nframes)
		abort();
	for (j = 0; j < n; j++) {
		if (files[j] != NULL)
			(void)strlen(files[j]);
		if (lines[j] < 0)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct elf_file		*ef;
	struct gopclntab	*g;
	struct elf_file_scn	 sc;
	const char		*frames[GOPCLNTAB_DEPTH_MAX];
	const char		*files[GOPCLNTAB_DEPTH_MAX];
	int32_t			 lines[GOPCLNTAB_DEPTH_MAX];
	uint8_t			*copy;
	uint64_t		 a;
	size_t			 n, i, j;

	if ((copy = malloc(len > 0 ? len : 1)) == NULL)
		abort();
	memcpy(copy, data, len);
	if ((ef = elf_file_open_mem(copy, len)) == NULL) {
		free(copy);
		return 0;
	}
	if ((g = gopclntab_read(ef, 1 << 20, 64 << 20)) != NULL) {
		gopclntab_count(g);
		gopclntab_inlined(g);
		gopclntab_bytes(g);
		gopclntab_version(g);
		/* Every address of .text, in steps, and the edges. */
		if (elf_section_find(ef, ".text", &sc) == 0) {
			for (a = sc.addr; a - sc.addr < sc.size &&
			    a - sc.addr < 1 << 16; a += 7) {
				if (gopclntab_lookup(g, a) != NULL)
					(void)strlen(gopclntab_lookup(g, a));
				n = gopclntab_frames(g, a, frames,
				    GOPCLNTAB_DEPTH_MAX);
				if (n > GOPCLNTAB_DEPTH_MAX)
					abort();
				for (j = 0; j < n; j++)
					(void)strlen(frames[j]);
				fuzz_lines(g, a, n, files, lines);
			}
		}
		for (i = 0; i + 8 <= len && i < 4096; i += 8) {
			memcpy(&a, data + i, sizeof(a));
			n = gopclntab_frames(g, a, frames,
			    GOPCLNTAB_DEPTH_MAX);
			fuzz_lines(g, a, n, files, lines);
		}
		gopclntab_free(g);
	}
	elf_file_close(ef);
	free(copy);
	return 0;
}
