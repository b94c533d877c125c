/*
 * DWARF through src/dwarf/ (libdw): a file's units, their ranges, the
 * functions and inlined calls of a unit, their names through abstract
 * origins and specifications (a loop of them included), line tables
 * and call sites; compressed sections; a dwz supplementary file.  The
 * input is an ELF file, and the supplementary file after FUZZ_SEP when
 * it holds one.  The seeds: t/helper/inlinew.c built -O2 -g (DWARF 5),
 * the same as DWARF 4 with zlib-compressed sections, and a debug file
 * dwz split with its supplementary file.
 *
 * Each address of .text (in steps) and addresses taken from the input
 * are looked up: a chain of at most SRCLINE_DEPTH_MAX frames, strings
 * that are strings, no negative line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/srcline.h"
#include "elf/elf.h"
#include "fuzz.h"

#define FUZZ_SEP	"\0FUZZ-DWZ-ALT\0"
#define FUZZ_SEP_LEN	(sizeof(FUZZ_SEP) - 1)

static void
fuzz_lookup(struct srcline *s, uint64_t a)
{
	struct srcline_frame	 fr[SRCLINE_DEPTH_MAX];
	int			 n, j;

	n = srcline_lookup(s, a, fr, SRCLINE_DEPTH_MAX);
	if (n > SRCLINE_DEPTH_MAX || n < SRCLINE_LATER)
		abort();
	for (j = 0; j < n; j++) {
		if (fr[j].func != NULL)
			(void)strlen(fr[j].func);
		if (fr[j].file != NULL)
			(void)strlen(fr[j].file);
		if (fr[j].line < 0)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct srcline		*s;
	struct elf_file		*ef;
	struct elf_file_scn	 sc;
	const uint8_t		*alt = NULL;
	uint8_t			*copy;
	size_t			 mlen = len, altlen = 0, i;
	uint64_t		 a;

	for (i = 0; i + FUZZ_SEP_LEN <= len; i++)
		if (memcmp(data + i, FUZZ_SEP, FUZZ_SEP_LEN) == 0) {
			mlen = i;
			alt = data + i + FUZZ_SEP_LEN;
			altlen = len - i - FUZZ_SEP_LEN;
			break;
		}
	if ((copy = malloc(len > 0 ? len : 1)) == NULL)
		abort();
	memcpy(copy, data, len);
	if (alt != NULL)
		alt = copy + (alt - data);
	srcline_budget(UINT64_MAX);
	srcline_round_begin();
	s = srcline_create_mem(copy, mlen, alt, altlen, 64 << 20);
	if ((ef = elf_file_open_mem(copy, mlen)) != NULL &&
	    elf_section_find(ef, ".text", &sc) == 0)
		for (a = sc.addr; a - sc.addr < sc.size &&
		    a - sc.addr < 1 << 14; a += 3)
			fuzz_lookup(s, a);
	elf_file_close(ef);
	for (i = 0; i + 8 <= mlen && i < 1024; i += 8) {
		memcpy(&a, data + i, sizeof(a));
		fuzz_lookup(s, a);
	}
	srcline_bytes(s);
	srcline_free(s);
	free(copy);
	return 0;
}
