/*
 * The unwind table builder: a file's .eh_frame (its FDEs listed by
 * .eh_frame_hdr, or found by walking .eh_frame when the header is
 * missing or broken), or the .debug_frame of its debug file when it has
 * no .eh_frame, made into the sorted rows and 64 KiB page index of
 * bpf/unwind.h.
 *
 * A builder copies the CFI out of the file when it is created, then runs
 * a bounded number of FDEs per step, so the daemon can build a large
 * file's table from an idle watcher without holding its loop; rows are
 * appended in address order and merged as they come.  FDEs are taken in
 * the order of their start address; as in libgcc's lookup (the last FDE
 * starting at or before pc, if pc is inside it), an FDE starting inside
 * the previous one cuts that one short, and an address no FDE covers
 * gets an UNWIND_GAP row.  Limits on rows, bytes and input are checked
 * as the table grows: over one, there is no table, and the stats say so.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"
#include "unwind_cfi.h"
#include "unwind_table.h"
#include "unwind_table_int.h"
#include "util/xmalloc.h"

#define UNWIND_TABLE_INPUT_MAX	(64U << 20)
#define UNWIND_TABLE_CIE_SLOTS	64
#define UNWIND_TABLE_WALK_STEP	4	/* entries walked per FDE a step */
#define UNWIND_TABLE_CIE_MAX	512	/* bytes: a CIE is ~20-30 */

/* What a step does next. */
enum {
	BUILDER_HDR = 0,	/* list the FDEs from .eh_frame_hdr */
	BUILDER_WALK,		/* else walk .eh_frame or .debug_frame */
	BUILDER_FDES,		/* read the FDEs into rows */
};

/* One FDE in the index, sorted by pc. */
struct unwind_table_fde {
	uint64_t	 pc;
	uint64_t	 off;		/* in the section */
};

/* A CIE read once, or the error it gave. */
struct unwind_table_cie {
	uint64_t		 off;	/* UINT64_MAX: empty slot */
	int			 err;
	struct unwind_cfi_cie	 c;
};

struct unwind_table_builder {
	struct unwind_table_limits	 lim;
	uint64_t			 work;		/* bytes parsed */
	uint64_t			 work_max;
	uint8_t				*cfi;
	uint8_t				*hdr;
	size_t				 hdr_size;
	uint64_t			 hdr_vaddr;
	struct unwind_cfi_sec		 sec;
	int				 phase;		/* BUILDER_* */
	int				 from_hdr;
	uint64_t			 walk_off;	/* next entry */
	struct unwind_table_fde		*fdes;
	size_t				 fdes_size;
	size_t				 nfdes;
	size_t				 next;
	struct unwind_table_cie		 cies[UNWIND_TABLE_CIE_SLOTS];
	struct unwind_row		*rows;
	size_t				 nrows;
	size_t				 rows_size;
	uint64_t			 pc_base;
	int				 have_base;
	uint64_t			 prev_end;
	int				 have_prev;
	int				 failed;
	struct unwind_table_stats	 st;
};

static void
unwind_table_builder_error(struct unwind_table_builder *b, int err)
{
	if (err >= 0 && err < UNWIND_TABLE_ERR_MAX)
		b->st.errors[err]++;
}

static int
unwind_table_builder_fde_cmp(const void *a, const void *b)
{
	const struct unwind_table_fde	*x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/*
 * A builder for ef's table, debug being its debug file (or NULL).  The
 * CFI is copied: neither file is needed after this.  NULL when neither
 * file has CFI we can read.
 */
struct unwind_table_builder *
unwind_table_builder_create(struct elf_file *ef, struct elf_file *debug,
    const struct unwind_table_limits *lim)
{
	struct unwind_table_builder	*b;
	struct elf_file_scn		 sc, hs;
	size_t				 i, len = 0;
	int				 too_big = 0;

	b = xcalloc(1, sizeof(*b));
	/* The file's registers: a table of another architecture's is no use. */
	switch (elf_file_machine(ef)) {
	case EM_X86_64:
		b->sec.regs = &unwind_cfi_regs_x86_64;
		break;
	case EM_AARCH64:
		b->sec.regs = &unwind_cfi_regs_arm64;
		break;
	default:
		goto fail;
	}
	if (lim != NULL)
		b->lim = *lim;
	if (b->lim.max_input == 0)
		b->lim.max_input = UNWIND_TABLE_INPUT_MAX;
	for (i = 0; i < UNWIND_TABLE_CIE_SLOTS; i++)
		b->cies[i].off = UINT64_MAX;

	if (elf_section_find(ef, ".eh_frame", &sc) == 0 &&
	    sc.type != SHT_NOBITS && sc.size > 0) {
		/* The two together: each is read whole. */
		if (elf_section_find(ef, ".eh_frame_hdr", &hs) == -1 ||
		    hs.type == SHT_NOBITS || hs.size < 4)
			hs.size = 0;
		if (sc.size > b->lim.max_input ||
		    hs.size > b->lim.max_input - sc.size)
			too_big = 1;
		else if ((b->cfi = elf_section_data(ef, &sc,
		    b->lim.max_input)) == NULL)
			goto fail;
		b->sec.data = b->cfi;
		b->sec.size = sc.size;
		b->sec.vaddr = sc.addr;
		b->sec.is_eh = 1;
		b->st.source = ".eh_frame";
		if (!too_big && hs.size > 0 &&
		    (b->hdr = elf_section_data(ef, &hs,
		    b->lim.max_input)) != NULL) {
			b->hdr_size = hs.size;
			b->hdr_vaddr = hs.addr;
			b->sec.datarel = hs.addr;
			b->sec.has_datarel = 1;
			b->st.source = ".eh_frame_hdr";
		}
	} else if ((b->cfi = unwind_table_file_debug_frame(debug,
	    b->lim.max_input, &len, &too_big)) != NULL || too_big ||
	    (b->cfi = unwind_table_file_debug_frame(ef,
	    b->lim.max_input, &len, &too_big)) != NULL || too_big) {
		b->sec.data = b->cfi;
		b->sec.size = len;
		b->st.source = ".debug_frame";
	} else
		goto fail;
	b->work_max = 4 * (uint64_t)b->sec.size + (1 << 20);
	if (too_big) {
		b->st.too_big = b->st.over_input = 1;
		b->failed = 1;
	}
	return b;
fail:
	unwind_table_builder_free(b);
	return NULL;
}

/* The same for an ELF image in memory: the vDSO. */
struct unwind_table_builder *
unwind_table_builder_create_mem(const void *buf, size_t len,
    const struct unwind_table_limits *lim)
{
	struct unwind_table_builder	*b;
	struct elf_file			*ef;

	if ((ef = elf_file_open_mem(buf, len)) == NULL)
		return NULL;
	b = unwind_table_builder_create(ef, NULL, lim);
	elf_file_close(ef);
	return b;
}

void
unwind_table_builder_free(struct unwind_table_builder *b)
{
	if (b == NULL)
		return;
	free(b->cfi);
	free(b->hdr);
	free(b->fdes);
	free(b->rows);
	free(b);
}

size_t
unwind_table_builder_bytes(const struct unwind_table_builder *b)
{
	if (b == NULL)
		return 0;
	return sizeof(*b) + (b->cfi != NULL ? b->sec.size : 0) +
	    b->hdr_size + b->fdes_size * sizeof(*b->fdes) +
	    b->rows_size * sizeof(*b->rows);
}

/*
 * What parsing costs, in bytes and a little per entry.  Each byte of
 * a sound section is parsed about once, CIEs aside; more than a few
 * times the section's size means entries listed again and again (or
 * inside each other) by a hostile .eh_frame_hdr or CIE pointers: stop
 * there rather than let it run for minutes.
 */
static int
unwind_table_builder_work(struct unwind_table_builder *b, size_t bytes)
{
	b->work += 16 + bytes;
	if (b->work <= b->work_max)
		return 0;
	if (!b->failed)
		unwind_table_builder_error(b, UNWIND_TABLE_ERR_WORK);
	b->failed = 1;
	return -1;
}

static const struct unwind_cfi_cie *
unwind_table_builder_cie(struct unwind_table_builder *b, uint64_t off,
    int *err)
{
	struct unwind_table_cie		*s;
	struct unwind_cfi_entry		 e;

	s = &b->cies[((off >> 2) ^ (off >> 8)) % UNWIND_TABLE_CIE_SLOTS];
	if (s->off != off) {
		s->off = off;
		/* A huge CIE read again for each FDE would cost too much. */
		if (unwind_cfi_entry(&b->sec, off, &e) == UNWIND_CFI_OK &&
		    e.end - e.body > UNWIND_TABLE_CIE_MAX)
			s->err = UNWIND_TABLE_ERR_CIE;
		else {
			s->err = unwind_cfi_cie(&b->sec, off, &s->c);
			unwind_table_builder_work(b, s->err == UNWIND_CFI_OK ?
			    (size_t)(s->c.ins_end - s->c.ins) : 0);
		}
	}
	*err = s->err;
	return s->err == UNWIND_CFI_OK ? &s->c : NULL;
}

static void
unwind_table_builder_fde_push(struct unwind_table_builder *b, uint64_t pc,
    uint64_t off)
{
	if (b->nfdes == b->fdes_size) {
		b->fdes_size = b->fdes_size ? b->fdes_size * 2 : 256;
		b->fdes = xreallocarray(b->fdes, b->fdes_size,
		    sizeof(*b->fdes));
	}
	b->fdes[b->nfdes].pc = pc;
	b->fdes[b->nfdes].off = off;
	b->nfdes++;
}

/* The FDEs from .eh_frame_hdr's binary search table; -1 if unusable. */
static int
unwind_table_builder_index_hdr(struct unwind_table_builder *b)
{
	struct unwind_cfi_sec	 hs;
	const uint8_t		*h = b->hdr, *p, *end;
	uint64_t		 ehptr, count, pc, addr, i;
	size_t			 esize;
	int			 sorted = 1;

	if (h == NULL)
		return -1;
	memset(&hs, 0, sizeof(hs));
	hs.data = h;
	hs.size = b->hdr_size;
	hs.vaddr = hs.datarel = b->hdr_vaddr;
	hs.has_datarel = 1;
	hs.is_eh = 1;
	p = h + 4;
	end = h + b->hdr_size;
	if (h[0] != 1 || h[2] == DW_EH_PE_omit || h[3] == DW_EH_PE_omit ||
	    unwind_cfi_ptr(&hs, &p, end, h[1], 8, 1, &ehptr) !=
	    UNWIND_CFI_OK || ehptr != b->sec.vaddr ||
	    unwind_cfi_ptr(&hs, &p, end, h[2], 8, 1, &count) != UNWIND_CFI_OK)
		return -1;
	switch (h[3] & 0x0f) {
	case 0x02:
	case 0x0a:
		esize = 2;
		break;
	case 0x03:
	case 0x0b:
		esize = 4;
		break;
	case 0x00:
	case 0x04:
	case 0x0c:
		esize = 8;
		break;
	default:
		return -1;
	}
	if (count > (uint64_t)(end - p) / (2 * esize))
		return -1;
	for (i = 0; i < count; i++) {
		if (h[3] == (DW_EH_PE_datarel | DW_EH_PE_sdata4)) {
			pc = b->hdr_vaddr +
			    (uint64_t)(int32_t)unwind_cfi_rd32(p);
			addr = b->hdr_vaddr +
			    (uint64_t)(int32_t)unwind_cfi_rd32(p + 4);
			p += 8;
		} else if (unwind_cfi_ptr(&hs, &p, end, h[3], 8, 1, &pc) !=
		    UNWIND_CFI_OK || unwind_cfi_ptr(&hs, &p, end, h[3], 8, 1,
		    &addr) != UNWIND_CFI_OK) {
			b->nfdes = 0;
			return -1;
		}
		if (addr < b->sec.vaddr || addr - b->sec.vaddr >= b->sec.size) {
			b->st.errors[UNWIND_TABLE_ERR_HDR]++;
			continue;
		}
		if (b->nfdes > 0 && (pc < b->fdes[b->nfdes - 1].pc ||
		    (pc == b->fdes[b->nfdes - 1].pc &&
		    addr - b->sec.vaddr < b->fdes[b->nfdes - 1].off)))
			sorted = 0;
		unwind_table_builder_fde_push(b, pc, addr - b->sec.vaddr);
	}
	if (!sorted)
		qsort(b->fdes, b->nfdes, sizeof(*b->fdes),
		    unwind_table_builder_fde_cmp);
	b->from_hdr = 1;
	return 0;
}

/*
 * The FDEs found by walking the section, at most max entries a call;
 * sorted after the last.  1 while there is more to walk.
 */
static int
unwind_table_builder_index_walk(struct unwind_table_builder *b, size_t max)
{
	const struct unwind_cfi_cie	*c;
	struct unwind_cfi_entry		 e;
	struct unwind_cfi_fde		 f;
	size_t				 i;
	int				 r, sorted = 1;

	for (i = 0; i < max && b->walk_off < b->sec.size; i++) {
		r = unwind_cfi_entry(&b->sec, b->walk_off, &e);
		if (r != UNWIND_CFI_OK || e.is_end ||
		    unwind_table_builder_work(b, 0) == -1) {
			unwind_table_builder_error(b, r);
			b->walk_off = b->sec.size;
			break;
		}
		if (!e.is_cie) {
			if ((c = unwind_table_builder_cie(b, e.cie_off,
			    &r)) == NULL || (r = unwind_cfi_fde(&b->sec, &e, c,
			    &f)) != UNWIND_CFI_OK)
				unwind_table_builder_error(b, r);
			else
				unwind_table_builder_fde_push(b, f.start,
				    b->walk_off);
		}
		b->walk_off = e.next;
	}
	if (b->walk_off < b->sec.size)
		return 1;
	for (i = 1; i < b->nfdes && sorted; i++)
		if (unwind_table_builder_fde_cmp(&b->fdes[i - 1],
		    &b->fdes[i]) > 0)
			sorted = 0;
	if (!sorted)
		qsort(b->fdes, b->nfdes, sizeof(*b->fdes),
		    unwind_table_builder_fde_cmp);
	return 0;
}

static int
unwind_table_builder_push(struct unwind_table_builder *b, uint64_t pc,
    const struct unwind_row *r)
{
	struct unwind_row	*last;

	if (b->nrows > 0) {
		last = &b->rows[b->nrows - 1];
		if (last->kind == r->kind && last->cfa_off == r->cfa_off &&
		    last->rbp_off == r->rbp_off)
			return 0;
	}
	if ((b->lim.max_rows != 0 && b->nrows >= b->lim.max_rows) ||
	    (b->lim.max_bytes != 0 &&
	    (b->nrows + 1) * sizeof(*b->rows) > b->lim.max_bytes)) {
		b->st.too_big = 1;
		b->failed = 1;
		return -1;
	}
	if (b->nrows == b->rows_size) {
		b->rows_size = b->rows_size ? b->rows_size * 2 : 1024;
		b->rows = xreallocarray(b->rows, b->rows_size,
		    sizeof(*b->rows));
	}
	b->rows[b->nrows] = *r;
	b->rows[b->nrows].pc = (uint32_t)(pc - b->pc_base);
	b->nrows++;
	return 0;
}

static int
unwind_table_builder_emit_cb(void *arg, uint64_t pc, const struct unwind_row *r)
{
	return unwind_table_builder_push(arg, pc, r);
}

static int
unwind_table_builder_gap(struct unwind_table_builder *b, uint64_t pc)
{
	struct unwind_row	 r;

	memset(&r, 0, sizeof(r));
	r.kind = UNWIND_GAP;
	return unwind_table_builder_push(b, pc, &r);
}

/* One FDE of the index into rows. */
static void
unwind_table_builder_fde(struct unwind_table_builder *b,
    const struct unwind_table_fde *x)
{
	const struct unwind_cfi_cie	*c;
	struct unwind_cfi_entry		 e;
	struct unwind_cfi_fde		 f;
	uint64_t			 off;
	int				 r;

	if ((r = unwind_cfi_entry(&b->sec, x->off, &e)) != UNWIND_CFI_OK) {
		unwind_table_builder_error(b, r);
		return;
	}
	if (e.is_end || e.is_cie) {
		unwind_table_builder_error(b, UNWIND_TABLE_ERR_HDR);
		return;
	}
	if (unwind_table_builder_work(b, e.end - e.body) == -1)
		return;
	if ((c = unwind_table_builder_cie(b, e.cie_off, &r)) == NULL ||
	    (r = unwind_cfi_fde(&b->sec, &e, c, &f)) != UNWIND_CFI_OK) {
		unwind_table_builder_error(b, r);
		return;
	}
	if (f.start != x->pc) {
		unwind_table_builder_error(b, UNWIND_TABLE_ERR_RANGE);
		return;
	}
	if (f.start == f.end)
		return;
	if (!b->have_base) {
		b->pc_base = f.start & ~(UNWIND_TABLE_PAGE - 1);
		b->have_base = 1;
	}
	/* Row pcs are 32 bits, and the last FDE's end gets a GAP row. */
	if (f.start < b->pc_base || f.end - b->pc_base >= UINT32_MAX) {
		unwind_table_builder_error(b, UNWIND_TABLE_ERR_RANGE);
		return;
	}
	if (b->have_prev) {
		if (f.start < b->prev_end) {
			unwind_table_builder_error(b, UNWIND_TABLE_ERR_OVERLAP);
			off = f.start - b->pc_base;
			while (b->nrows > 0 && b->rows[b->nrows - 1].pc >= off)
				b->nrows--;
		} else if (f.start > b->prev_end &&
		    unwind_table_builder_gap(b, b->prev_end) == -1)
			return;
	}
	r = unwind_cfi_run(&b->sec, c, &f, unwind_table_builder_emit_cb, b,
	    &b->st.expr_unknown);
	if (r == UNWIND_CFI_STOPPED)
		return;
	unwind_table_builder_error(b, r);
	b->st.fdes_used++;
	b->prev_end = f.end;
	b->have_prev = 1;
}

/*
 * List the FDEs (from .eh_frame_hdr on the first call, or walking the
 * section max * UNWIND_TABLE_WALK_STEP entries a call), then read at
 * most max FDEs a call.  1 while there is more to do, 0 when done (or
 * over a limit).
 */
int
unwind_table_builder_step(struct unwind_table_builder *b, size_t max)
{
	size_t	 end;

	if (b->failed)
		return 0;
	if (max == 0)
		max = 1;
	switch (b->phase) {
	case BUILDER_HDR:
		if (unwind_table_builder_index_hdr(b) == 0) {
			b->phase = BUILDER_FDES;
			b->st.fdes = b->nfdes;
			return b->nfdes > 0;
		}
		if (b->hdr != NULL) {
			b->st.errors[UNWIND_TABLE_ERR_HDR]++;
			b->st.source = ".eh_frame";
		}
		b->phase = BUILDER_WALK;
		/* FALLTHROUGH */
	case BUILDER_WALK:
		if (unwind_table_builder_index_walk(b, max > SIZE_MAX /
		    UNWIND_TABLE_WALK_STEP ? SIZE_MAX :
		    max * UNWIND_TABLE_WALK_STEP) == 1)
			return !b->failed;
		b->phase = BUILDER_FDES;
		b->st.fdes = b->nfdes;
		return !b->failed && b->nfdes > 0;
	}
	end = b->nfdes - b->next > max ? b->next + max : b->nfdes;
	while (b->next < end && !b->failed)
		unwind_table_builder_fde(b, &b->fdes[b->next++]);
	return !b->failed && b->next < b->nfdes;
}

static void
unwind_table_builder_pages_build(struct unwind_table *t)
{
	uint64_t	 start;
	size_t		 p, i = 0, j;

	t->pages = xreallocarray(NULL, t->npages ? t->npages : 1,
	    sizeof(*t->pages));
	for (p = 0; p < t->npages; p++) {
		start = (uint64_t)p << UNWIND_PAGE_SHIFT;
		while (i + 1 < t->nrows && t->rows[i + 1].pc <= start)
			i++;
		j = i;
		while (j + 1 < t->nrows &&
		    t->rows[j + 1].pc < start + UNWIND_TABLE_PAGE)
			j++;
		t->pages[p].first = (uint32_t)i;
		t->pages[p].n = (uint32_t)(j - i + 1);
	}
}

/*
 * Run what is left, and make the table; the builder is freed.  NULL
 * when the table is over a limit; stats, if given, say why.
 */
struct unwind_table *
unwind_table_builder_finish(struct unwind_table_builder *b,
    struct unwind_table_stats *stats)
{
	struct unwind_table	*t = NULL;
	size_t			 i, e;

	while (unwind_table_builder_step(b, SIZE_MAX) == 1)
		;
	if (!b->failed && b->have_prev)
		unwind_table_builder_gap(b, b->prev_end);
	if (b->failed)
		goto done;
	t = xcalloc(1, sizeof(*t));
	t->nrows = b->nrows;
	t->rows = b->nrows ? xreallocarray(b->rows, b->nrows,
	    sizeof(*b->rows)) : b->rows;
	b->rows = NULL;
	t->pc_base = b->pc_base;
	t->pc_end = b->have_prev ? b->prev_end : b->pc_base;
	t->npages = (t->pc_end - t->pc_base + UNWIND_TABLE_PAGE - 1) >>
	    UNWIND_PAGE_SHIFT;
	if (b->lim.max_bytes != 0 && (t->nrows + t->npages) * 8 >
	    b->lim.max_bytes) {
		b->st.too_big = 1;
		unwind_table_free(t);
		t = NULL;
		goto done;
	}
	unwind_table_builder_pages_build(t);
	b->st.rows = t->nrows;
	b->st.pages = t->npages;
	for (i = 0; i < t->npages; i++)
		if (t->pages[i].n > b->st.page_rows_max)
			b->st.page_rows_max = t->pages[i].n;
	b->st.bytes = t->nrows * sizeof(*t->rows) +
	    t->npages * sizeof(*t->pages);
	for (i = 0; i < t->nrows; i++)
		if ((t->rows[i].kind & UNWIND_KIND_MASK) <= UNWIND_GAP)
			b->st.kinds[t->rows[i].kind & UNWIND_KIND_MASK]++;
done:
	for (e = 0; e < UNWIND_TABLE_ERR_MAX; e++)
		b->st.error_total += b->st.errors[e];
	if (t != NULL)
		t->st = b->st;
	if (stats != NULL)
		*stats = b->st;
	unwind_table_builder_free(b);
	return t;
}
