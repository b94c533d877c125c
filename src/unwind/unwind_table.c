/*
 * Unwind tables: the sorted rows and 64 KiB page index of bpf/unwind.h
 * for one file, made by unwind_table_builder.c, and what the daemon and
 * the tests read of them.  unwind_table_lookup finds a row as the BPF
 * walker does: through the page, then a binary search of its rows.
 */
#include <sys/types.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf.h"
#include "util/log.h"
#include "unwind_table.h"
#include "unwind_table_int.h"

static const char *unwind_table_kind_names[] = {
	"rsp", "rbp", "plt", "deref", "signal", "stop", "invalid", "gap"
};

static const char *unwind_table_err_names[] = {
	"truncated", "cie", "encoding", "op", "state", "range", "overlap",
	"hdr", "work"
};

/* The whole table at once. */
struct unwind_table *
unwind_table_load(struct elf_file *ef, struct elf_file *debug,
    const struct unwind_table_limits *lim, struct unwind_table_stats *stats)
{
	struct unwind_table_builder	*b;

	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	if ((b = unwind_table_builder_create(ef, debug, lim)) == NULL)
		return NULL;
	return unwind_table_builder_finish(b, stats);
}

static struct elf_file *
unwind_table_open(const char *path, int *fd)
{
	struct elf_file	*ef;

	*fd = -1;
	if (path == NULL)
		return NULL;
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		log_warn("open %s", path);
		return NULL;
	}
	if ((ef = elf_file_open(*fd)) == NULL) {
		log_warnx("%s: not an ELF file we can read", path);
		close(*fd);
		*fd = -1;
	}
	return ef;
}

/* The same by path, for tests and tools. */
struct unwind_table *
unwind_table_load_path(const char *path, const char *debug_path,
    const struct unwind_table_limits *lim, struct unwind_table_stats *stats)
{
	struct unwind_table	*t = NULL;
	struct elf_file		*ef, *debug;
	int			 fd, dfd;

	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	if ((ef = unwind_table_open(path, &fd)) == NULL)
		return NULL;
	debug = unwind_table_open(debug_path, &dfd);
	if (debug_path == NULL || debug != NULL)
		t = unwind_table_load(ef, debug, lim, stats);
	elf_file_close(debug);
	if (dfd != -1)
		close(dfd);
	elf_file_close(ef);
	close(fd);
	return t;
}

void
unwind_table_free(struct unwind_table *t)
{
	if (t == NULL)
		return;
	free(t->rows);
	free(t->pages);
	free(t);
}

const struct unwind_row *
unwind_table_rows(const struct unwind_table *t, size_t *n)
{
	*n = t->nrows;
	return t->rows;
}

const struct unwind_page *
unwind_table_pages(const struct unwind_table *t, size_t *n)
{
	*n = t->npages;
	return t->pages;
}

uint64_t
unwind_table_pc_base(const struct unwind_table *t)
{
	return t->pc_base;
}

uint64_t
unwind_table_pc_end(const struct unwind_table *t)
{
	return t->pc_end;
}

/*
 * What a file's CFI may take in memory: no more than the file holds on
 * disk, twice its blocks for file systems that compress (a sparse file
 * of 1 GB on 8 KiB of disk claims sections it does not have, read back
 * as zeros: eight of them took the daemon from 31 MB to 1.41 GB), nor
 * than its size, nor than lim already says.
 */
void
unwind_table_limits_file(struct unwind_table_limits *lim,
    const struct stat *sb)
{
	uint64_t	 real;

	real = (uint64_t)(sb->st_blocks > 0 ? sb->st_blocks : 0) * 512 * 2;
	if (sb->st_size >= 0 && real > (uint64_t)sb->st_size)
		real = sb->st_size;
	if (real == 0)
		real = 1;	/* 0 would be no limit */
	if (lim->max_input == 0 || lim->max_input > real)
		lim->max_input = real;
}

size_t
unwind_table_bytes(const struct unwind_table *t)
{
	return t->nrows * sizeof(*t->rows) + t->npages * sizeof(*t->pages);
}

void
unwind_table_stats(const struct unwind_table *t,
    struct unwind_table_stats *st)
{
	*st = t->st;
}

/*
 * The row for vaddr, found as the BPF walker does: its page, then a
 * binary search of the page's rows.  NULL outside the table.
 */
const struct unwind_row *
unwind_table_lookup(const struct unwind_table *t, uint64_t vaddr)
{
	const struct unwind_page	*pg;
	uint64_t			 off;
	size_t				 lo, hi, mid;

	if (vaddr < t->pc_base || vaddr >= t->pc_end)
		return NULL;
	off = vaddr - t->pc_base;
	pg = &t->pages[off >> UNWIND_PAGE_SHIFT];
	lo = pg->first;
	hi = lo + pg->n;
	if (hi > t->nrows || lo >= hi || t->rows[lo].pc > off)
		return NULL;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (t->rows[mid].pc <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

const char *
unwind_table_kind_name(unsigned int kind)
{
	return kind <= UNWIND_GAP ? unwind_table_kind_names[kind] : "?";
}

const char *
unwind_table_err_name(unsigned int err)
{
	return err < UNWIND_TABLE_ERR_MAX ? unwind_table_err_names[err] : "?";
}
