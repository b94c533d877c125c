/*
 * ELF files a process maps: the header checks, build id, segments,
 * sections by name and address, .gnu_debuglink, and the symbols of
 * .symtab and .dynsym made into a table, read both from memory (the
 * vDSO path) and from a file descriptor (libelf's pread path).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf.h"
#include "fuzz.h"
#include "sym/gopclntab.h"
#include "sym/symfile.h"
#include "elf/symtab.h"

static void
fuzz_elf_symtab(const struct symtab *st)
{
	const struct symtab_sym	*s;
	size_t			 i;

	if (st == NULL)
		return;
	for (i = 0; i < st->n; i++) {
		s = &st->v[i];
		if ((s->name & ~SYMTAB_NAME_VERSIONED) >= st->names_len)
			abort();
		(void)strlen(symtab_name(st, s));
		(void)strlen(symtab_system_name(st, s));
		/* A symbol is found at its start (size 0: it has no room). */
		if (s->size > 0 && symtab_find(st, s->addr) != s)
			abort();
		symtab_lookup(st, s->addr + (s->size > 0 ? s->size - 1 : 0));
	}
	symtab_lookup(st, 0);
	symtab_lookup(st, UINT64_MAX);
}

static void
fuzz_elf_file(struct elf_file *ef)
{
	struct elf_file_segment	*segs;
	struct elf_file_scn	 sc;
	struct symfile		 sf;
	struct symfile_ctx	 ctx;
	struct symfile_debug	 dbg;
	struct symfile_limits	 lim;
	uint8_t			 id[ELF_FILE_BUILD_ID_MAX], buf[64];
	char			 link[ELF_FILE_DEBUGLINK_MAX];
	uint32_t		 crc;
	uint64_t		 v;
	size_t			 idlen, n, i, idx;
	void			*p;

	elf_file_build_id(ef, id, sizeof(id), &idlen);
	if (elf_section_debuglink(ef, link, sizeof(link), &crc) == 0 &&
	    memchr(link, '\0', sizeof(link)) == NULL)
		abort();
	elf_file_read(ef, buf, sizeof(buf), elf_file_size(ef) / 2);
	if ((segs = elf_file_segments(ef, &n)) != NULL) {
		for (i = 0; i < n; i++) {
			elf_file_offset_to_vaddr(segs, n, segs[i].offset +
			    segs[i].filesz / 2, &v);
			elf_file_vaddr_to_offset(segs, n, segs[i].vaddr, &v);
			elf_section_at(ef, segs[i].vaddr, &sc);
		}
		free(segs);
	}
	for (idx = 0; elf_section_next(ef, &idx, &sc) == 0;) {
		if ((p = elf_section_data(ef, &sc, 1 << 20)) != NULL)
			free(p);
	}
	elf_section_find(ef, ".text", &sc);
	elf_section_find_suffix(ef, "text", &sc);

	/* Function ranges: sorted, each non-empty, none overlapping. */
	{
		struct elf_fde_range	*r;
		size_t			 nr;

		nr = elf_fde_ranges(ef, &r, 1 << 20);
		for (i = 0; i < nr; i++) {
			if (r[i].end <= r[i].start ||
			    (i > 0 && r[i].start < r[i - 1].end))
				abort();
			if (elf_fde_find(r, nr, r[i].start) != &r[i])
				abort();
		}
		free(r);
	}

	/* What the symbol cache does with it, debug files aside. */
	memset(&sf, 0, sizeof(sf));
	memset(&ctx, 0, sizeof(ctx));
	ctx.path = "/fuzz/file";
	symfile_identify(&sf, ef);
	memset(&dbg, 0, sizeof(dbg));
	lim.max_symbols = 1 << 20;
	lim.max_names = 64 << 20;
	lim.max_debugdata = 16 << 20;
	symfile_load(&sf, ef, &dbg, &lim, ctx.path);
	fuzz_elf_symtab(sf.symtab);
	if (sf.go != NULL) {
		gopclntab_lookup(sf.go, 0);
	}
	symfile_count(&sf);
	symfile_bytes(&sf);
	symfile_release(&sf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct elf_file	*ef;
	struct symfile	 sf;
	uint8_t		*copy;
	int		 fd;

	/* libelf may write to an image in memory: give it a copy. */
	if ((copy = malloc(len > 0 ? len : 1)) == NULL)
		abort();
	memcpy(copy, data, len);
	if ((ef = elf_file_open_mem(copy, len)) != NULL) {
		fuzz_elf_file(ef);
		elf_file_close(ef);
	}
	memset(&sf, 0, sizeof(sf));
	if (symfile_load_mem(&sf, copy, len) == 0) {
		fuzz_elf_symtab(sf.symtab);
		symfile_release(&sf);
	}
	free(copy);

	if ((fd = fuzz_memfd(data, len)) == -1)
		return 0;
	if ((ef = elf_file_open(fd)) != NULL) {
		fuzz_elf_file(ef);
		elf_file_close(ef);
	}
	close(fd);
	return 0;
}
