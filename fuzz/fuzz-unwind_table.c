/*
 * The unwind-table builder: a file's .eh_frame_hdr, .eh_frame and
 * .debug_frame (CIEs, FDEs, pointer encodings, CFA programs) made into
 * the rows and page index the BPF walker searches.  The input is an ELF
 * file; it is built from memory in small steps, as the daemon spreads
 * the work over its loop, and at once from a file descriptor.  The
 * table must be what the walker expects: rows sorted by pc, known
 * kinds, pages within the rows.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf.h"
#include "fuzz.h"
#include "unwind/unwind_table.h"

static const struct unwind_table_limits fuzz_limits = {
	.max_rows = 1 << 20,
	.max_bytes = 64 << 20,
	.max_input = 16 << 20,
};

static void
fuzz_unwind_check(const struct unwind_table *t)
{
	const struct unwind_row		*rows;
	const struct unwind_page	*pages;
	struct unwind_table_stats	 st;
	uint64_t			 base;
	size_t				 nrows, npages, i;

	if (t == NULL)
		return;
	rows = unwind_table_rows(t, &nrows);
	pages = unwind_table_pages(t, &npages);
	base = unwind_table_pc_base(t);
	if (unwind_table_pc_end(t) < base)
		abort();
	for (i = 0; i < nrows; i++) {
		if (i > 0 && rows[i].pc <= rows[i - 1].pc)
			abort();	/* sorted by pc, one row a pc */
		if (rows[i].kind > UNWIND_GAP)
			abort();
		(void)unwind_table_kind_name(rows[i].kind);
		unwind_table_lookup(t, base + rows[i].pc);
		unwind_table_lookup(t, base + rows[i].pc - 1);
	}
	for (i = 0; i < npages; i++)
		if (pages[i].first > nrows ||
		    pages[i].n > nrows - pages[i].first)
			abort();	/* the walker searches within rows */
	unwind_table_lookup(t, 0);
	unwind_table_lookup(t, UINT64_MAX);
	unwind_table_lookup(t, unwind_table_pc_end(t));
	unwind_table_bytes(t);
	unwind_table_stats(t, &st);
	for (i = 0; i < UNWIND_TABLE_ERR_MAX; i++)
		(void)unwind_table_err_name(i);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct unwind_table_builder	*b;
	struct unwind_table_stats	 st;
	struct unwind_table_key		 key;
	struct unwind_table		*t;
	struct elf_file			*ef;
	uint8_t				*copy;
	int				 fd;

	if ((copy = malloc(len > 0 ? len : 1)) == NULL)
		abort();
	memcpy(copy, data, len);
	unwind_table_key_mem(copy, len, &key);
	unwind_table_key_hash(&key);
	if ((b = unwind_table_builder_create_mem(copy, len,
	    &fuzz_limits)) != NULL) {
		/* A few FDEs at a time, as on the daemon's loop. */
		while (unwind_table_builder_step(b, 7) == 1)
			;
		memset(&st, 0, sizeof(st));
		t = unwind_table_builder_finish(b, &st);
		fuzz_unwind_check(t);
		unwind_table_free(t);
	}
	free(copy);

	if ((fd = fuzz_memfd(data, len)) == -1)
		return 0;
	if ((ef = elf_file_open(fd)) != NULL) {
		memset(&st, 0, sizeof(st));
		t = unwind_table_load(ef, NULL, &fuzz_limits, &st);
		fuzz_unwind_check(t);
		unwind_table_free(t);
		elf_file_close(ef);
	}
	close(fd);
	return 0;
}
