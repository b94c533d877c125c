/*
 * Unwind tables: a file's .eh_frame (its FDEs listed by .eh_frame_hdr,
 * or found by walking .eh_frame when the header is missing or broken),
 * or the .debug_frame of its debug file when it has no .eh_frame, made
 * into the sorted rows and 64 KiB page index of bpf/unwind.h that the
 * BPF walker searches.
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
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "elf.h"
#include "log.h"
#include "unwind_cfi.h"
#include "unwind_table.h"
#include "xmalloc.h"

#define UNWIND_TABLE_INPUT_MAX	(256U << 20)
#define UNWIND_TABLE_CIE_SLOTS	64
#define UNWIND_TABLE_CIE_MAX	4096	/* bytes: a CIE is ~20 */
#define UNWIND_TABLE_PAGE	((uint64_t)1 << UNWIND_PAGE_SHIFT)

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
	uint8_t				*cfi;
	uint8_t				*hdr;
	size_t				 hdr_size;
	uint64_t			 hdr_vaddr;
	struct unwind_cfi_sec		 sec;
	int				 indexed;
	int				 from_hdr;
	struct unwind_table_fde		*fdes;
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

struct unwind_table {
	struct unwind_row	*rows;
	size_t			 nrows;
	struct unwind_page	*pages;
	size_t			 npages;
	uint64_t		 pc_base;
	uint64_t		 pc_end;
	struct unwind_table_stats st;
};

static const char *unwind_table_kind_names[] = {
	"rsp", "rbp", "plt", "deref", "signal", "stop", "invalid", "gap"
};

static const char *unwind_table_err_names[] = {
	"truncated", "cie", "encoding", "op", "state", "range", "overlap",
	"hdr"
};

static void
unwind_table_error(struct unwind_table_builder *b, int err)
{
	if (err >= 0 && err < UNWIND_TABLE_ERR_MAX)
		b->st.errors[err]++;
}

static int
unwind_table_fde_cmp(const void *a, const void *b)
{
	const struct unwind_table_fde	*x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/*
 * A compressed section (SHF_COMPRESSED, zlib), as debug files have
 * theirs, inflated; nothing larger than max either way.
 */
static uint8_t *
unwind_table_inflate(struct elf_file *ef, const struct elf_file_scn *sc,
    size_t max, size_t *len)
{
	Elf64_Chdr	 ch;
	z_stream	 zs;
	uint8_t		*in, *out = NULL;
	int		 r;

	if (sc->size < sizeof(ch) || sc->size > max)
		return NULL;
	in = xmalloc(sc->size);
	if (elf_file_read(ef, in, sc->size, sc->offset) == -1)
		goto done;
	memcpy(&ch, in, sizeof(ch));
	if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size == 0 ||
	    ch.ch_size > max || sc->size - sizeof(ch) > UINT32_MAX ||
	    ch.ch_size > UINT32_MAX)
		goto done;
	out = xmalloc(ch.ch_size);
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK) {
		free(out);
		out = NULL;
		goto done;
	}
	zs.next_in = in + sizeof(ch);
	zs.avail_in = sc->size - sizeof(ch);
	zs.next_out = out;
	zs.avail_out = ch.ch_size;
	r = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (r != Z_STREAM_END || zs.total_out != ch.ch_size) {
		free(out);
		out = NULL;
		goto done;
	}
	*len = ch.ch_size;
done:
	free(in);
	return out;
}

/* The .debug_frame of ef, copied (inflated); NULL if it has none. */
static uint8_t *
unwind_table_debug_frame(struct elf_file *ef, size_t max, size_t *len,
    int *too_big)
{
	struct elf_file_scn	 sc;

	if (ef == NULL || elf_file_section(ef, ".debug_frame", &sc) == -1 ||
	    sc.type == SHT_NOBITS || sc.size == 0)
		return NULL;
	if (sc.size > max) {
		*too_big = 1;
		return NULL;
	}
	if (sc.flags & SHF_COMPRESSED)
		return unwind_table_inflate(ef, &sc, max, len);
	*len = sc.size;
	return elf_file_section_data(ef, &sc, max);
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
	if (lim != NULL)
		b->lim = *lim;
	if (b->lim.max_input == 0)
		b->lim.max_input = UNWIND_TABLE_INPUT_MAX;
	for (i = 0; i < UNWIND_TABLE_CIE_SLOTS; i++)
		b->cies[i].off = UINT64_MAX;

	if (elf_file_section(ef, ".eh_frame", &sc) == 0 &&
	    sc.type != SHT_NOBITS && sc.size > 0) {
		if (sc.size > b->lim.max_input)
			too_big = 1;
		else if ((b->cfi = elf_file_section_data(ef, &sc,
		    b->lim.max_input)) == NULL)
			goto fail;
		b->sec.data = b->cfi;
		b->sec.size = sc.size;
		b->sec.vaddr = sc.addr;
		b->sec.is_eh = 1;
		b->st.source = ".eh_frame";
		if (elf_file_section(ef, ".eh_frame_hdr", &hs) == 0 &&
		    hs.type != SHT_NOBITS && hs.size >= 4 &&
		    hs.size <= b->lim.max_input &&
		    (b->hdr = elf_file_section_data(ef, &hs,
		    b->lim.max_input)) != NULL) {
			b->hdr_size = hs.size;
			b->hdr_vaddr = hs.addr;
			b->sec.datarel = hs.addr;
			b->sec.has_datarel = 1;
			b->st.source = ".eh_frame_hdr";
		}
	} else if ((b->cfi = unwind_table_debug_frame(debug, b->lim.max_input,
	    &len, &too_big)) != NULL || too_big ||
	    (b->cfi = unwind_table_debug_frame(ef, b->lim.max_input,
	    &len, &too_big)) != NULL || too_big) {
		b->sec.data = b->cfi;
		b->sec.size = len;
		b->st.source = ".debug_frame";
	} else
		goto fail;
	if (too_big) {
		b->st.too_big = 1;
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

static const struct unwind_cfi_cie *
unwind_table_cie(struct unwind_table_builder *b, uint64_t off, int *err)
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
		else
			s->err = unwind_cfi_cie(&b->sec, off, &s->c);
	}
	*err = s->err;
	return s->err == UNWIND_CFI_OK ? &s->c : NULL;
}

static void
unwind_table_fde_push(struct unwind_table_builder *b, size_t *size,
    uint64_t pc, uint64_t off)
{
	if (b->nfdes == *size) {
		*size = *size ? *size * 2 : 256;
		b->fdes = xreallocarray(b->fdes, *size, sizeof(*b->fdes));
	}
	b->fdes[b->nfdes].pc = pc;
	b->fdes[b->nfdes].off = off;
	b->nfdes++;
}

/* The FDEs from .eh_frame_hdr's binary search table; -1 if unusable. */
static int
unwind_table_index_hdr(struct unwind_table_builder *b)
{
	struct unwind_cfi_sec	 hs;
	const uint8_t		*h = b->hdr, *p, *end;
	uint64_t		 ehptr, count, pc, addr, i;
	size_t			 esize, size = 0;
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
		if (b->nfdes > 0 && pc < b->fdes[b->nfdes - 1].pc)
			sorted = 0;
		unwind_table_fde_push(b, &size, pc, addr - b->sec.vaddr);
	}
	if (!sorted)
		qsort(b->fdes, b->nfdes, sizeof(*b->fdes),
		    unwind_table_fde_cmp);
	b->from_hdr = 1;
	return 0;
}

/* The FDEs found by walking the section, sorted. */
static void
unwind_table_index_walk(struct unwind_table_builder *b)
{
	const struct unwind_cfi_cie	*c;
	struct unwind_cfi_entry		 e;
	struct unwind_cfi_fde		 f;
	uint64_t			 off = 0;
	size_t				 size = 0;
	int				 r;

	while (off < b->sec.size) {
		if ((r = unwind_cfi_entry(&b->sec, off, &e)) != UNWIND_CFI_OK) {
			unwind_table_error(b, r);
			break;
		}
		if (e.is_end)
			break;
		if (!e.is_cie) {
			if ((c = unwind_table_cie(b, e.cie_off, &r)) == NULL ||
			    (r = unwind_cfi_fde(&b->sec, &e, c, &f)) !=
			    UNWIND_CFI_OK)
				unwind_table_error(b, r);
			else
				unwind_table_fde_push(b, &size, f.start, off);
		}
		off = e.next;
	}
	qsort(b->fdes, b->nfdes, sizeof(*b->fdes), unwind_table_fde_cmp);
}

static int
unwind_table_push(struct unwind_table_builder *b, uint64_t pc,
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
unwind_table_emit_cb(void *arg, uint64_t pc, const struct unwind_row *r)
{
	return unwind_table_push(arg, pc, r);
}

static int
unwind_table_gap(struct unwind_table_builder *b, uint64_t pc)
{
	struct unwind_row	 r;

	memset(&r, 0, sizeof(r));
	r.kind = UNWIND_GAP;
	return unwind_table_push(b, pc, &r);
}

/* One FDE of the index into rows. */
static void
unwind_table_fde(struct unwind_table_builder *b,
    const struct unwind_table_fde *x)
{
	const struct unwind_cfi_cie	*c;
	struct unwind_cfi_entry		 e;
	struct unwind_cfi_fde		 f;
	uint64_t			 off;
	int				 r;

	if ((r = unwind_cfi_entry(&b->sec, x->off, &e)) != UNWIND_CFI_OK) {
		unwind_table_error(b, r);
		return;
	}
	if (e.is_end || e.is_cie) {
		unwind_table_error(b, UNWIND_TABLE_ERR_HDR);
		return;
	}
	if ((c = unwind_table_cie(b, e.cie_off, &r)) == NULL ||
	    (r = unwind_cfi_fde(&b->sec, &e, c, &f)) != UNWIND_CFI_OK) {
		unwind_table_error(b, r);
		return;
	}
	if (f.start != x->pc) {
		unwind_table_error(b, UNWIND_TABLE_ERR_RANGE);
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
		unwind_table_error(b, UNWIND_TABLE_ERR_RANGE);
		return;
	}
	if (b->have_prev) {
		if (f.start < b->prev_end) {
			unwind_table_error(b, UNWIND_TABLE_ERR_OVERLAP);
			off = f.start - b->pc_base;
			while (b->nrows > 0 && b->rows[b->nrows - 1].pc >= off)
				b->nrows--;
		} else if (f.start > b->prev_end &&
		    unwind_table_gap(b, b->prev_end) == -1)
			return;
	}
	r = unwind_cfi_run(&b->sec, c, &f, unwind_table_emit_cb, b,
	    &b->st.expr_unknown);
	if (r == UNWIND_CFI_STOPPED)
		return;
	unwind_table_error(b, r);
	b->st.fdes_used++;
	b->prev_end = f.end;
	b->have_prev = 1;
}

/*
 * Index the FDEs on the first call, then read at most max FDEs.  1 while
 * there is more to do, 0 when done (or over a limit).
 */
int
unwind_table_builder_step(struct unwind_table_builder *b, size_t max)
{
	size_t	 end;

	if (b->failed)
		return 0;
	if (!b->indexed) {
		if (unwind_table_index_hdr(b) == -1) {
			if (b->hdr != NULL) {
				b->st.errors[UNWIND_TABLE_ERR_HDR]++;
				b->st.source = ".eh_frame";
			}
			unwind_table_index_walk(b);
		}
		b->indexed = 1;
		b->st.fdes = b->nfdes;
		return b->nfdes > 0;
	}
	if (max == 0)
		max = 1;
	end = b->nfdes - b->next > max ? b->next + max : b->nfdes;
	while (b->next < end && !b->failed)
		unwind_table_fde(b, &b->fdes[b->next++]);
	return !b->failed && b->next < b->nfdes;
}

static void
unwind_table_pages_build(struct unwind_table *t)
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
		unwind_table_gap(b, b->prev_end);
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
	unwind_table_pages_build(t);
	b->st.rows = t->nrows;
	b->st.pages = t->npages;
	b->st.bytes = t->nrows * sizeof(*t->rows) +
	    t->npages * sizeof(*t->pages);
	for (i = 0; i < t->nrows; i++)
		if (t->rows[i].kind <= UNWIND_GAP)
			b->st.kinds[t->rows[i].kind]++;
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

/*
 * A file's key, as the symbol cache keys its tables: the build id, else
 * the inode with its size and mtime (sb), never the path.
 */
int
unwind_table_key(struct elf_file *ef, const struct stat *sb,
    struct unwind_table_key *k)
{
	size_t	 n;

	memset(k, 0, sizeof(*k));
	if (ef != NULL && elf_file_build_id(ef, k->id, sizeof(k->id),
	    &n) == 0 && n > 0) {
		k->type = UNWIND_TABLE_KEY_BUILD_ID;
		k->len = (uint8_t)n;
		return 0;
	}
	if (sb == NULL)
		return -1;
	k->type = UNWIND_TABLE_KEY_INODE;
	k->dev = sb->st_dev;
	k->ino = sb->st_ino;
	k->size = sb->st_size;
	k->mtime_sec = sb->st_mtim.tv_sec;
	k->mtime_nsec = sb->st_mtim.tv_nsec;
	return 0;
}

static uint64_t
unwind_table_fnv(uint64_t h, const void *buf, size_t len)
{
	const uint8_t	*p = buf;
	size_t		 i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The key of an ELF image in memory: its build id, else its bytes. */
void
unwind_table_key_mem(const void *buf, size_t len, struct unwind_table_key *k)
{
	struct elf_file	*ef;
	uint64_t	 h;

	ef = elf_file_open_mem(buf, len);
	if (ef != NULL && unwind_table_key(ef, NULL, k) == 0) {
		elf_file_close(ef);
		return;
	}
	elf_file_close(ef);
	memset(k, 0, sizeof(*k));
	k->type = UNWIND_TABLE_KEY_CONTENT;
	h = unwind_table_fnv(0xcbf29ce484222325ULL, buf, len);
	memcpy(k->id, &h, sizeof(h));
	k->len = sizeof(h);
	k->size = (int64_t)len;
}

uint64_t
unwind_table_key_hash(const struct unwind_table_key *k)
{
	uint64_t	 h = 0xcbf29ce484222325ULL;

	h = unwind_table_fnv(h, &k->type, sizeof(k->type));
	if (k->type == UNWIND_TABLE_KEY_INODE) {
		h = unwind_table_fnv(h, &k->dev, sizeof(k->dev));
		h = unwind_table_fnv(h, &k->ino, sizeof(k->ino));
		h = unwind_table_fnv(h, &k->size, sizeof(k->size));
		h = unwind_table_fnv(h, &k->mtime_sec, sizeof(k->mtime_sec));
		return unwind_table_fnv(h, &k->mtime_nsec,
		    sizeof(k->mtime_nsec));
	}
	h = unwind_table_fnv(h, k->id, k->len);
	return unwind_table_fnv(h, &k->size, sizeof(k->size));
}

int
unwind_table_key_equal(const struct unwind_table_key *a,
    const struct unwind_table_key *b)
{
	if (a->type != b->type)
		return 0;
	if (a->type == UNWIND_TABLE_KEY_INODE)
		return a->dev == b->dev && a->ino == b->ino &&
		    a->size == b->size && a->mtime_sec == b->mtime_sec &&
		    a->mtime_nsec == b->mtime_nsec;
	return a->len == b->len && memcmp(a->id, b->id, a->len) == 0 &&
	    a->size == b->size;
}
