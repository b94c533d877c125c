/*
 * Go's source lines: a function's pc-value tables pcfile and pcln say,
 * for each pc, the number of its source file among those of its
 * compilation unit (cutab: offsets into the file name table) and its
 * line.  Where a call was inlined, the line of the inlined function is
 * at the pc, and the caller's is at the call site (the inline tree
 * node's parentPc), as runtime.CallersFrames unwinds them.
 *
 * The tables (the functions' pcfile and pcln tables of pctab, cutab,
 * the file names and three words a function) are copied when the
 * pclntab is read, if they fit within the bound on a table's names
 * ([symbols] max_symbol_bytes_per_file): else a table has names and no
 * lines.  They are walked when a frame is named, which
 * the round keeps per address (collect_frame.c); a walk is bounded by
 * the table's bytes and the function's size.  Untrusted like the rest:
 * every offset is checked against what it points into.
 *
 * Those bounds still let a crafted table cost: a function claimed 256
 * MB long and a table of entries that never move the pc on (a pc delta
 * of 0, which Go's linker never writes) walk the whole table at each
 * lookup -- 175 ms a frame, the daemon's rounds ten times late.  So a
 * lookup, all its frames' walks together, may take GOPCLNTAB_LINE_STEPS
 * steps, and the lookups of one file GOPCLNTAB_LINE_BUDGET a second; a
 * real table needs one step per line change up to the pc.  A table
 * over either is refused: its lines freed, its names kept, counted
 * (symstats_refuse).
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elf/elf.h"
#include "gopclntab.h"
#include "gopclntab_int.h"
#include "symstats.h"
#include "elf/symtab.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Steps of pc-value tables one lookup may walk, all frames together. */
#define GOPCLNTAB_LINE_STEPS	(1 << 17)
/* And the lookups of one file in a second: some 50 ms of CPU. */
#define GOPCLNTAB_LINE_BUDGET	(1 << 24)

static int
gopclntab_line_varint(struct gopclntab_pcv *it, uint32_t *v)
{
	uint32_t	 x = 0;
	unsigned int	 shift;
	uint8_t		 b;

	for (shift = 0; shift < 35; shift += 7) {
		if (it->p >= it->end)
			return -1;
		b = *it->p++;
		x |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* Walk the pc-value table at off of pctab, for a function at entry. */
int
gopclntab_line_start(struct gopclntab_pcv *it, const uint8_t *pctab,
    size_t len, uint32_t off, uint64_t entry, uint32_t quantum)
{
	if (off == 0 || off >= len)
		return -1;
	memset(it, 0, sizeof(*it));
	it->p = pctab + off;
	it->end = pctab + len;
	it->pc = entry;
	it->val = -1;
	it->first = 1;
	it->quantum = quantum;
	return 0;
}

/* The next [start, end) of a pc-value table and its value; 0 at its end. */
int
gopclntab_line_next(struct gopclntab_pcv *it, uint64_t *start,
    uint64_t *end, int32_t *val)
{
	uint32_t	 uv, pcd, d;

	if (gopclntab_line_varint(it, &uv) == -1 || (uv == 0 && !it->first))
		return 0;
	it->first = 0;
	d = (0U - (uv & 1)) ^ (uv >> 1);
	it->val = (int32_t)((uint32_t)it->val + d);
	if (gopclntab_line_varint(it, &pcd) == -1)
		return 0;
	*start = it->pc;
	it->pc += (uint64_t)pcd * it->quantum;
	*end = it->pc;
	*val = it->val;
	return 1;
}

/* A _func's line tables; -1 if it lies past the table. */
int
gopclntab_line_func(const struct gopclntab_hdr *h, uint64_t funcoff,
    struct gopclntab_fn *fn)
{
	const uint8_t	*f;
	uint64_t	 base = h->version == 116 ? h->ptrsize + 16 : 20;

	memset(fn, 0, sizeof(*fn));
	if (funcoff > h->pcln_len || base + 16 > h->pcln_len - funcoff)
		return -1;
	f = h->pcln + funcoff + base;
	memcpy(&fn->pcfile, f, 4);
	memcpy(&fn->pcln, f + 4, 4);
	memcpy(&fn->cu, f + 12, 4);	/* after npcdata */
	return 0;
}

/* A table's offset, and which function's (2 i) or (2 i + 1) it is. */
struct gopclntab_line_ref {
	uint32_t	off;
	uint32_t	slot;
};

static int
gopclntab_line_ref_cmp(const void *a, const void *b)
{
	const struct gopclntab_line_ref	*x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The bytes of the table at off of pctab: to its end, or to limit.  Not
 * decoded: pairs of varints, up to a value delta of a 0 byte after the
 * first (as gopclntab_line_next ends, for the encoding Go writes).
 */
static size_t
gopclntab_line_len(const uint8_t *pctab, size_t limit, uint32_t off)
{
	const uint8_t	*p = pctab + off, *end = pctab + limit;
	int		 first = 1, k;

	while (p < end) {
		if (*p == 0 && !first)
			return p + 1 - (pctab + off);
		first = 0;
		for (k = 0; k < 2 && p < end; k++) {
			while (p < end && (*p & 0x80))
				p++;
			if (p < end)
				p++;
		}
	}
	return limit - off;
}

/*
 * The functions' pcfile and pcln tables, without the rest of pctab
 * (pcsp, pcdata), into *out, and fn's offsets made into it; its bytes.
 * A table ends at its end or where the next starts, so the walks add up
 * to pctab's bytes at most; a table functions share is copied once.
 * Offset 0 still means none.
 */
static size_t
gopclntab_line_compact(const struct gopclntab_hdr *h, struct gopclntab_fn *fn,
    size_t nfn, uint8_t **out)
{
	struct gopclntab_line_ref	*r;
	uint32_t			*t, newoff = 0;
	uint8_t				*buf;
	size_t				 i, n = 0, k, len = 1;

	r = xreallocarray(NULL, 2 * nfn, sizeof(*r));
	for (i = 0; i < 2 * nfn; i++) {
		t = i % 2 ? &fn[i / 2].pcln : &fn[i / 2].pcfile;
		if (*t != 0 && *t < h->pctab_len) {
			r[n].off = *t;
			r[n++].slot = i;
		}
		*t = 0;
	}
	if (n > 0)
		qsort(r, n, sizeof(*r), gopclntab_line_ref_cmp);
	buf = xmalloc(h->pctab_len + 1);
	buf[0] = 0;
	for (i = 0; i < n; i++) {
		if (i == 0 || r[i].off != r[i - 1].off) {
			/* Up to the next table at most. */
			for (k = i + 1; k < n && r[k].off == r[i].off; k++)
				;
			k = gopclntab_line_len(h->pctab, k < n ? r[k].off :
			    h->pctab_len, r[i].off);
			newoff = len;
			memcpy(buf + len, h->pctab + r[i].off, k);
			len += k;
		}
		t = r[i].slot % 2 ? &fn[r[i].slot / 2].pcln :
		    &fn[r[i].slot / 2].pcfile;
		*t = newoff;
	}
	free(r);
	*out = xreallocarray(buf, len, 1);
	return len;
}

/*
 * Keep the line tables of the nfn functions of fn (which it takes), if
 * they are no more than max bytes (0: no bound); NULL if not.
 */
struct gopclntab_lines *
gopclntab_line_keep(const struct gopclntab_hdr *h, struct gopclntab_fn *fn,
    size_t nfn, size_t max)
{
	struct gopclntab_lines	*l;
	uint8_t			*pctab;
	size_t			 len, size;

	if (nfn == 0) {
		free(fn);
		return NULL;
	}
	len = gopclntab_line_compact(h, fn, nfn, &pctab);
	size = len + h->cutab_len + h->files_len + 1 + nfn * sizeof(*fn);
	if (max > 0 && size > max) {
		log_debug("gopclntab: %zu bytes of line tables: over the "
		    "bound, no lines", size);
		free(pctab);
		free(fn);
		return NULL;
	}
	l = xcalloc(1, sizeof(*l));
	l->fn = xreallocarray(fn, nfn, sizeof(*fn));
	l->quantum = h->quantum;
	l->pctab_len = len;
	l->pctab = pctab;
	l->cutab_len = h->cutab_len;
	l->cutab = xmalloc(h->cutab_len + 1);
	memcpy(l->cutab, h->cutab, h->cutab_len);
	l->files_len = h->files_len;
	l->files = xmalloc(h->files_len + 1);
	memcpy(l->files, h->files, h->files_len);
	l->files[h->files_len] = '\0';
	return l;
}

void
gopclntab_line_free(struct gopclntab_lines *l)
{
	if (l == NULL)
		return;
	free(l->fn);
	free(l->pctab);
	free(l->cutab);
	free(l->files);
	free(l);
}

size_t
gopclntab_line_bytes(const struct gopclntab_lines *l, size_t nfn)
{
	if (l == NULL)
		return 0;
	if (l->refused)
		return sizeof(*l);
	return sizeof(*l) + nfn * sizeof(*l->fn) + l->pctab_len +
	    l->cutab_len + l->files_len + 3;
}

/* Over the budget of work: the lines go, the names stay. */
static void
gopclntab_line_refuse(struct gopclntab_lines *l)
{
	log_warnx("gopclntab: line tables over the bound of work (%d steps "
	    "a lookup, %d a second): refused, %zu bytes freed",
	    GOPCLNTAB_LINE_STEPS, GOPCLNTAB_LINE_BUDGET, l->pctab_len);
	symstats_refuse(SYMSTATS_REFUSED_GO_LINES);
	free(l->fn);
	free(l->pctab);
	free(l->cutab);
	free(l->files);
	l->fn = NULL;
	l->pctab = l->cutab = NULL;
	l->files = NULL;
	l->pctab_len = l->cutab_len = l->files_len = 0;
	l->refused = 1;
}

/*
 * The value at pc of the table at off of the function [entry, fend),
 * in *left steps at most, which it takes from.
 */
static int
gopclntab_line_value(const struct gopclntab_lines *l, uint32_t off,
    uint64_t entry, uint64_t fend, uint64_t pc, int32_t *val,
    uint64_t *left)
{
	struct gopclntab_pcv	 it;
	uint64_t		 s, e, steps;
	int32_t			 v;

	if (pc < entry || pc >= fend || gopclntab_line_start(&it, l->pctab,
	    l->pctab_len, off, entry, l->quantum) == -1)
		return -1;
	/* A step reads two bytes at least and moves on in real tables. */
	for (steps = 0; steps <= fend - entry && steps < *left &&
	    it.pc <= pc && gopclntab_line_next(&it, &s, &e, &v); steps++)
		if (pc >= s && pc < e) {
			*left -= steps + 1;
			*val = v;
			return 0;
		}
	*left -= steps < *left ? steps : *left;
	return -1;
}

/*
 * The file and line at pc of function i (NULL and 0 if unknown), in
 * *left steps.
 */
static void
gopclntab_line_at(const struct gopclntab *g, size_t i, uint64_t pc,
    const char **file, int32_t *line, uint64_t *left)
{
	const struct gopclntab_lines	*l = g->lines;
	const struct symtab_sym		*s = &g->funcs->v[i];
	const struct gopclntab_fn	*fn = &l->fn[i];
	uint64_t			 nfiles = l->cutab_len / 4;
	uint32_t			 off;
	int32_t				 v;

	*file = NULL;
	*line = 0;
	if (pc == 0)
		return;
	if (gopclntab_line_value(l, fn->pcln, s->addr, s->addr + s->size,
	    pc, &v, left) == 0 && v > 0)
		*line = v;
	if (gopclntab_line_value(l, fn->pcfile, s->addr, s->addr + s->size,
	    pc, &v, left) == 0 && v >= 0 && fn->cu < nfiles &&
	    (uint64_t)v < nfiles - fn->cu) {
		memcpy(&off, l->cutab + 4 * ((uint64_t)fn->cu + v), 4);
		if (off < l->files_len)
			*file = l->files + off;
	}
}

/*
 * The source file and line of each function gopclntab_frames gives at
 * addr, in its order (outermost first): the innermost's at addr, each
 * caller's at its call site.  How many (as gopclntab_frames), 0 if the
 * table has no lines; a file NULL, a line 0 where unknown.
 */
size_t
gopclntab_lines(const struct gopclntab *g, uint64_t addr, const char **files,
    int32_t *lines, size_t max)
{
	struct gopclntab_lines		*l;
	const struct symtab_sym		*s;
	const struct gopclntab_inl	*r;
	const struct gopclntab_node	*nd;
	const char			*cf[GOPCLNTAB_DEPTH_MAX];
	int32_t				 cl[GOPCLNTAB_DEPTH_MAX];
	struct timespec			 ts;
	uint64_t			 pc = addr, left = GOPCLNTAB_LINE_STEPS;
	size_t				 i, n = 0, k = 1;
	uint32_t			 node;

	if (g == NULL || (l = g->lines) == NULL || l->refused || max == 0 ||
	    (s = symtab_find(g->funcs, addr)) == NULL)
		return 0;
	i = s - g->funcs->v;
	if ((r = gopclntab_inl_find(g, addr)) != NULL)
		for (node = r->node; node != GOPCLNTAB_NONE &&
		    n < GOPCLNTAB_DEPTH_MAX; node = nd->parent) {
			nd = &g->nodes[node];
			if (nd->name != GOPCLNTAB_NONE) {
				gopclntab_line_at(g, i, pc, &cf[n], &cl[n],
				    &left);
				n++;
			}
			pc = nd->call != GOPCLNTAB_NONE ? s->addr + nd->call :
			    0;
		}
	gopclntab_line_at(g, i, pc, &files[0], &lines[0], &left);
	/* The second, coarse: a lookup costs no more than a system call. */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	if (l->second != ts.tv_sec) {
		l->second = ts.tv_sec;
		l->spent = 0;
	}
	l->spent += GOPCLNTAB_LINE_STEPS - left;
	if (left == 0 || l->spent > GOPCLNTAB_LINE_BUDGET) {
		gopclntab_line_refuse(l);
		return 0;
	}
	while (n > 0 && k < max) {
		n--;
		files[k] = cf[n];
		lines[k++] = cl[n];
	}
	return k;
}
