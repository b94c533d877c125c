/*
 * The insides of an unwind table, shared by unwind_table.c (the table
 * and its lookups), unwind_table_builder.c (which makes it) and
 * unwind_table_file.c (which reads debug files for it).
 */
#ifndef EBPFSPY_UNWIND_TABLE_INT_H
#define EBPFSPY_UNWIND_TABLE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "unwind_table.h"

#define UNWIND_TABLE_PAGE	((uint64_t)1 << UNWIND_PAGE_SHIFT)

struct unwind_table {
	struct unwind_row	*rows;
	size_t			 nrows;
	struct unwind_page	*pages;
	size_t			 npages;
	uint64_t		 pc_base;
	uint64_t		 pc_end;
	struct unwind_table_stats st;
};

struct elf_file;

uint8_t		*unwind_table_file_debug_frame(struct elf_file *, size_t,
		    size_t *, int *);

#endif
