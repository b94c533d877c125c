/*
 * Unwind tables: a file's CFI as the rows and page index of
 * bpf/unwind.h.  A builder copies the CFI out of an open ELF file (or an
 * image in memory: the vDSO) when created, so the file may be closed;
 * each unwind_table_builder_step(b, n) then does at most n FDEs' work
 * (at most 0.7 ms of CPU for 256 FDEs here) and says 1 while more is
 * left; unwind_table_builder_finish runs what is left and gives the
 * table.  unwind_table_load does it all at once.  Errors in the CFI are
 * counted in the stats and cost only the FDEs they touch; over a limit,
 * or past the work budget, there is no table (NULL).  Tables are keyed
 * by unwind_table_key.
 */
#ifndef EBPFSPY_UNWIND_TABLE_H
#define EBPFSPY_UNWIND_TABLE_H

#include <sys/types.h>
#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>

#include "bpf/unwind.h"

struct elf_file;
struct unwind_table;
struct unwind_table_builder;

/* Why an entry of the CFI, or part of it, was not used. */
enum unwind_table_err {
	UNWIND_TABLE_ERR_TRUNCATED,	/* runs past its entry or section */
	UNWIND_TABLE_ERR_CIE,		/* CIE pointer out of bounds, bad CIE */
	UNWIND_TABLE_ERR_ENCODING,	/* version, augmentation or pointer
					   encoding we do not read */
	UNWIND_TABLE_ERR_OP,		/* unknown DW_CFA op, or misplaced */
	UNWIND_TABLE_ERR_STATE,		/* remember_state nesting */
	UNWIND_TABLE_ERR_RANGE,		/* FDE outside the table's 4 GiB, or
					   not where .eh_frame_hdr says */
	UNWIND_TABLE_ERR_OVERLAP,	/* FDE starts inside the previous */
	UNWIND_TABLE_ERR_HDR,		/* .eh_frame_hdr unusable or entry
					   out of .eh_frame */
	UNWIND_TABLE_ERR_WORK,		/* more work than the CFI's size
					   explains (entries listed again and
					   again): no table */
	UNWIND_TABLE_ERR_MAX
};

/* What a file's table may cost; 0 is no limit. */
struct unwind_table_limits {
	size_t		 max_rows;
	size_t		 max_bytes;	/* rows and pages */
	size_t		 max_input;	/* bytes of CFI read from the file */
};

struct unwind_table_stats {
	const char	*source;	/* ".eh_frame_hdr", ".eh_frame",
					   ".debug_frame" */
	size_t		 fdes;		/* FDEs indexed */
	size_t		 fdes_used;	/* FDEs that gave rows */
	size_t		 rows;
	size_t		 pages;
	size_t		 page_rows_max;	/* the largest unwind_page.n: bounds
					   the walker's binary search */
	size_t		 bytes;		/* of rows and pages */
	size_t		 kinds[UNWIND_GAP + 1];	/* rows by enum unwind_kind */
	size_t		 expr_unknown;	/* CFA rules we cannot follow */
	size_t		 errors[UNWIND_TABLE_ERR_MAX];
	size_t		 error_total;
	int		 too_big;	/* over a limit: no table */
	int		 over_input;	/* of them, CFI over max_input: not
					   even read */
};

/* What identifies a file's contents: its build id, else its inode. */
#define UNWIND_TABLE_KEY_BUILD_ID	1
#define UNWIND_TABLE_KEY_INODE		2
#define UNWIND_TABLE_KEY_CONTENT	3	/* an image with no build id */
#define UNWIND_TABLE_KEY_ID_MAX		64

struct unwind_table_key {
	uint8_t		 type;
	uint8_t		 len;		/* of id */
	uint8_t		 id[UNWIND_TABLE_KEY_ID_MAX];
	uint64_t	 dev;
	uint64_t	 ino;
	int64_t		 size;
	int64_t		 mtime_sec;
	int64_t		 mtime_nsec;
};

/* lim bounded by what a file of that stat holds on disk. */
void		 unwind_table_limits_file(struct unwind_table_limits *,
		    const struct stat *);
struct unwind_table_builder *unwind_table_builder_create(struct elf_file *,
		    struct elf_file *, const struct unwind_table_limits *);
struct unwind_table_builder *unwind_table_builder_create_mem(const void *,
		    size_t, const struct unwind_table_limits *);
int		 unwind_table_builder_step(struct unwind_table_builder *,
		    size_t);
struct unwind_table *unwind_table_builder_finish(
		    struct unwind_table_builder *, struct unwind_table_stats *);
void		 unwind_table_builder_free(struct unwind_table_builder *);
/* The memory a builder holds now. */
size_t		 unwind_table_builder_bytes(
		    const struct unwind_table_builder *);

struct unwind_table *unwind_table_load(struct elf_file *, struct elf_file *,
		    const struct unwind_table_limits *,
		    struct unwind_table_stats *);
struct unwind_table *unwind_table_load_path(const char *, const char *,
		    const struct unwind_table_limits *,
		    struct unwind_table_stats *);
void		 unwind_table_free(struct unwind_table *);

const struct unwind_row *unwind_table_rows(const struct unwind_table *,
		    size_t *);
const struct unwind_page *unwind_table_pages(const struct unwind_table *,
		    size_t *);
uint64_t	 unwind_table_pc_base(const struct unwind_table *);
uint64_t	 unwind_table_pc_end(const struct unwind_table *);
size_t		 unwind_table_bytes(const struct unwind_table *);
void		 unwind_table_stats(const struct unwind_table *,
		    struct unwind_table_stats *);
const struct unwind_row *unwind_table_lookup(const struct unwind_table *,
		    uint64_t);
const char	*unwind_table_kind_name(unsigned int);
const char	*unwind_table_err_name(unsigned int);

int		 unwind_table_key(struct elf_file *, const struct stat *,
		    struct unwind_table_key *);
void		 unwind_table_key_mem(const void *, size_t,
		    struct unwind_table_key *);
uint64_t	 unwind_table_key_hash(const struct unwind_table_key *);
int		 unwind_table_key_equal(const struct unwind_table_key *,
		    const struct unwind_table_key *);

#endif
