/*
 * src/dwarf/srcline.c on fuzz/corpus/dwarf's files: t/helper/inlinew.c
 * built -O2 -g, whose mix() is inlined into hash_block() at the line
 * "h = mix(h, (uint32_t)i);".  Each address of hash_block where mix's
 * code is must give the chain mix (at one of mix's lines), hash_block
 * (at the call's line), as addr2line -i does (t5110 compares the two
 * address by address): as DWARF 5, as DWARF 4 with zlib-compressed
 * sections, and through dwz's supplementary file.  Then the bounds:
 * a file over max_bytes is refused and counted, and past the round's
 * time a lookup is put off until the next round.
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/srcline.h"
#include "elf/elf.h"
#include "util/log.h"

#include "tap.h"

#define SEP	"\0FUZZ-DWZ-ALT\0"
#define SEP_LEN	(sizeof(SEP) - 1)
/* inlinew.c's lines: mix's body and the call in hash_block. */
#define MIX_FIRST	22
#define MIX_LAST	24
#define CALL_LINE	34

static uint8_t *
slurp(const char *name, size_t *len)
{
	const char	*src = getenv("EBPFSPY_SOURCE_DIR");
	char		 path[4096];
	struct stat	 sb;
	uint8_t		*buf;
	FILE		*f;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/dwarf/%s",
	    src != NULL ? src : ".", name);
	if ((f = fopen(path, "rb")) == NULL || fstat(fileno(f), &sb) == -1)
		return NULL;
	buf = malloc(sb.st_size);
	*len = fread(buf, 1, sb.st_size, f);
	fclose(f);
	return buf;
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t	 a = s != NULL ? strlen(s) : 0, b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/*
 * Look up every address of .text of mem: how many gave mix inlined in
 * hash_block, and how many of those were wrong in any way.
 */
static void
chains(struct srcline *s, const uint8_t *mem, size_t len, int *good,
    int *bad)
{
	struct srcline_frame	 fr[SRCLINE_DEPTH_MAX];
	struct elf_file		*ef;
	struct elf_file_scn	 sc;
	uint64_t		 a;
	int			 n;

	*good = *bad = 0;
	if ((ef = elf_file_open_mem(mem, len)) == NULL ||
	    elf_section_find(ef, ".text", &sc) == -1) {
		elf_file_close(ef);
		return;
	}
	for (a = sc.addr; a < sc.addr + sc.size; a++) {
		srcline_round_begin();
		n = srcline_lookup(s, a, fr, SRCLINE_DEPTH_MAX);
		if (n < 2 || fr[0].func == NULL ||
		    strcmp(fr[0].func, "mix") != 0)
			continue;
		if (n == 2 && fr[1].func != NULL &&
		    strcmp(fr[1].func, "hash_block") == 0 &&
		    ends_with(fr[0].file, "inlinew.c") &&
		    ends_with(fr[1].file, "inlinew.c") &&
		    fr[0].line >= MIX_FIRST && fr[0].line <= MIX_LAST &&
		    fr[1].line == CALL_LINE)
			(*good)++;
		else
			(*bad)++;
	}
	elf_file_close(ef);
}

static void
test_file(const char *name)
{
	struct srcline	*s;
	uint8_t		*mem, *p;
	const uint8_t	*alt = NULL;
	size_t		 len = 0, mlen, altlen = 0;
	int		 good, bad;

	if ((mem = slurp(name, &len)) == NULL) {
		ok(0, "%s: read", name);
		return;
	}
	mlen = len;
	if ((p = memmem(mem, len, SEP, SEP_LEN)) != NULL) {
		mlen = p - mem;
		alt = p + SEP_LEN;
		altlen = len - mlen - SEP_LEN;
	}
	s = srcline_create_mem(mem, mlen, alt, altlen, 64 << 20);
	chains(s, mem, mlen, &good, &bad);
	ok(good >= 2 && bad == 0, "%s: mix inlined in hash_block at %d "
	    "addresses, %d wrong", name, good, bad);
	ok(srcline_bytes(s) > 0, "%s: %zu bytes counted", name,
	    srcline_bytes(s));
	srcline_free(s);
	free(mem);
}

/* Over max_bytes: refused before it is read, counted. */
static void
test_bound(void)
{
	struct srcline_frame	 fr[SRCLINE_DEPTH_MAX];
	struct srcline_stats	 before, after;
	struct srcline		*s;
	uint8_t			*mem;
	size_t			 len = 0;
	int			 good, bad;

	if ((mem = slurp("inline-dwarf5", &len)) == NULL) {
		ok(0, "bound: read");
		return;
	}
	srcline_stats(&before);
	s = srcline_create_mem(mem, len, NULL, 0, 1000);
	chains(s, mem, len, &good, &bad);
	srcline_stats(&after);
	ok(good == 0 && bad == 0, "bound: no chain from a refused file");
	is_int((int)(after.refused_bytes - before.refused_bytes), 1,
	    "bound: refused once, counted");
	srcline_round_begin();
	is_int(srcline_lookup(s, 0x1000, fr, SRCLINE_DEPTH_MAX),
	    SRCLINE_NONE, "bound: and not read again");
	srcline_free(s);
	free(mem);
}

/* Past the round's time, lookups wait for the next round. */
static void
test_budget(void)
{
	struct srcline_frame	 fr[SRCLINE_DEPTH_MAX];
	struct srcline_stats	 before, after;
	struct srcline		*s;
	uint8_t			*mem;
	size_t			 len = 0;

	if ((mem = slurp("inline-dwarf5", &len)) == NULL) {
		ok(0, "budget: read");
		return;
	}
	s = srcline_create_mem(mem, len, NULL, 0, 64 << 20);
	srcline_budget(1);
	srcline_round_begin();
	srcline_lookup(s, 0x1000, fr, SRCLINE_DEPTH_MAX);
	srcline_stats(&before);
	is_int(srcline_lookup(s, 0x1000, fr, SRCLINE_DEPTH_MAX),
	    SRCLINE_LATER, "budget: spent, the next lookup is put off");
	srcline_stats(&after);
	is_int((int)(after.deferred - before.deferred), 1,
	    "budget: counted");
	srcline_round_begin();
	ok(srcline_lookup(s, 0x1000, fr, SRCLINE_DEPTH_MAX) != SRCLINE_LATER,
	    "budget: a new round looks up again");
	srcline_budget(0);
	srcline_free(s);
	free(mem);
}

/* Cut short anywhere: no chain, no crash, not read again. */
static void
test_truncated(void)
{
	struct srcline	*s;
	uint8_t		*mem;
	size_t		 len = 0, cut;
	int		 good, bad, any = 0;

	if ((mem = slurp("inline-dwarf5", &len)) == NULL) {
		ok(0, "truncated: read");
		return;
	}
	for (cut = 64; cut < len; cut += len / 16) {
		s = srcline_create_mem(mem, cut, NULL, 0, 64 << 20);
		chains(s, mem, cut, &good, &bad);
		any += bad;
		srcline_free(s);
	}
	is_int(any, 0, "truncated: no wrong chain from a file cut short");
	free(mem);
}

int
main(void)
{
	log_init(1, 0);
	srcline_budget(UINT64_MAX);
	test_file("inline-dwarf5");
	test_file("inline-dwarf4-zlib");
	test_file("dwz-and-alt");
	test_bound();
	test_budget();
	test_truncated();
	return done_testing();
}
