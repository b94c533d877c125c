/*
 * The unwind tables' oracle, shared by t-unwind_table.c (x86_64 files)
 * and t-unwind_arm64.c (aarch64 files): a table as address ranges with
 * a rule each, in the words of t/helper/unwind_readelf.py, which says
 * the same of readelf --debug-dump=frames-interp; their comparison; and
 * the checks of a table's own form (sorted rows, pages, lookup).
 */
#ifndef EBPFSPY_UNWINDFIX_H
#define EBPFSPY_UNWINDFIX_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind_table.h"

#include "tap.h"

struct range {
	uint64_t	 s, e;
	char		 rule[32];
};

struct ranges {
	struct range	*v;
	size_t		 n, size;
};

static void
ranges_add(struct ranges *rs, uint64_t s, uint64_t e, const char *rule)
{
	struct range	*last = rs->n ? &rs->v[rs->n - 1] : NULL;

	if (last != NULL && last->e == s && strcmp(last->rule, rule) == 0) {
		last->e = e;
		return;
	}
	if (rs->n == rs->size) {
		rs->size = rs->size ? rs->size * 2 : 1024;
		rs->v = realloc(rs->v, rs->size * sizeof(*rs->v));
	}
	rs->v[rs->n].s = s;
	rs->v[rs->n].e = e;
	snprintf(rs->v[rs->n].rule, sizeof(rs->v[rs->n].rule), "%s", rule);
	rs->n++;
}

/* A table as ranges of rules: each row in row_rule's words. */
static void
table_ranges(const struct unwind_table *t, struct ranges *rs,
    void (*row_rule)(const struct unwind_row *, char *, size_t))
{
	const struct unwind_row	*rows;
	uint64_t		 base = unwind_table_pc_base(t);
	size_t			 n, i;
	char			 rule[32];

	memset(rs, 0, sizeof(*rs));
	rows = unwind_table_rows(t, &n);
	for (i = 0; i + 1 < n; i++) {
		if (rows[i].kind == UNWIND_GAP)
			continue;
		row_rule(&rows[i], rule, sizeof(rule));
		ranges_add(rs, base + rows[i].pc, base + rows[i + 1].pc, rule);
	}
}

static int
readelf_ranges(const char *path, const char *section, struct ranges *rs)
{
	const char	*src = getenv("EBPFSPY_SOURCE_DIR");
	char		 cmd[1024], line[256], rule[64];
	unsigned long long s, e;
	FILE		*f;

	memset(rs, 0, sizeof(*rs));
	snprintf(cmd, sizeof(cmd), "python3 '%s/t/helper/unwind_readelf.py' "
	    "%s%s '%s'", src ? src : ".", section ? "--section " : "",
	    section ? section : "", path);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%llx %llx %63[^\n]", &s, &e, rule) == 3)
			ranges_add(rs, s, e, rule);
	return pclose(f) == 0 && rs->n > 0 ? 0 : -1;
}

/* Every row the same; the first differences as diagnostics. */
static void
compare(const char *what, const struct ranges *got, const struct ranges *want)
{
	size_t	 i, bad = 0;
	char	 msg[256];

	for (i = 0; i < got->n || i < want->n; i++) {
		if (i < got->n && i < want->n && got->v[i].s == want->v[i].s &&
		    got->v[i].e == want->v[i].e &&
		    strcmp(got->v[i].rule, want->v[i].rule) == 0)
			continue;
		if (bad++ < 5) {
			snprintf(msg, sizeof(msg), "row %zu: got %" PRIx64
			    "..%" PRIx64 " %s, readelf %" PRIx64 "..%" PRIx64
			    " %s", i, i < got->n ? got->v[i].s : 0,
			    i < got->n ? got->v[i].e : 0,
			    i < got->n ? got->v[i].rule : "-",
			    i < want->n ? want->v[i].s : 0,
			    i < want->n ? want->v[i].e : 0,
			    i < want->n ? want->v[i].rule : "-");
			diag(msg);
		}
	}
	ok(bad == 0 && got->n > 0, "%s: %zu rows as readelf's %zu (%zu differ)",
	    what, got->n, want->n, bad);
}

/* Sorted unique pcs, pages as the format says, lookup by page. */
static int
table_check(const struct unwind_table *t, int verbose)
{
	const struct unwind_row		*rows, *r;
	const struct unwind_page	*pages;
	uint64_t			 base = unwind_table_pc_base(t);
	uint64_t			 end = unwind_table_pc_end(t), a, ps;
	size_t				 n, np, i = 0, j, want;
	char				 msg[128];

	rows = unwind_table_rows(t, &n);
	pages = unwind_table_pages(t, &np);
	if ((base & 0xffff) != 0 || end < base ||
	    np != ((end - base + 0xffff) >> 16))
		goto bad;
	for (i = 1; i < n; i++)
		if (rows[i].pc <= rows[i - 1].pc ||
		    (rows[i].kind == rows[i - 1].kind &&
		    rows[i].cfa_off == rows[i - 1].cfa_off &&
		    rows[i].rbp_off == rows[i - 1].rbp_off))
			goto bad;
	for (i = 0; i < np; i++) {
		ps = (uint64_t)i << 16;
		if (pages[i].n < 1 || pages[i].first + pages[i].n > n)
			goto bad;
		if (pages[i].first > 0 && rows[pages[i].first].pc > ps)
			goto bad;
		j = pages[i].first + pages[i].n;
		if (j < n && rows[j].pc < ps + 0x10000)
			goto bad;
	}
	/* Each row's first and last byte, and the byte before. */
	for (i = 0, j = 0; i < n; i++) {
		for (a = base + rows[i].pc - (i > 0);
		    a <= base + rows[i].pc; a++) {
			want = a - base >= rows[i].pc ? i : i - 1;
			r = unwind_table_lookup(t, a);
			if (a >= end ? r != NULL : r != &rows[want])
				goto bad;
			j++;
		}
	}
	return 0;
bad:
	if (verbose) {
		snprintf(msg, sizeof(msg), "table check failed at %zu", i);
		diag(msg);
	}
	return -1;
}

#endif
