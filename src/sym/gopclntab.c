/*
 * Go functions from .gopclntab, which every Go binary keeps, stripped or
 * not (the runtime needs it for its own tracebacks).
 *
 * The table starts with a header: magic, the pc quantum, the pointer
 * size, the number of functions, and the offsets of its parts from the
 * header (function names, compilation units, files, pc-value tables,
 * and the function table).  Magic 0xfffffffa is Go 1.16 and 1.17,
 * 0xfffffff0 Go 1.18 and 1.19, 0xfffffff1 Go 1.20 and later; 1.18 added
 * the base of the text, which function entries are offsets from.  The
 * function table is sorted by entry; the next entry ends a function.
 * Names are offsets into the name table, which we copy whole: it is the
 * table's string block.
 *
 * Inlined calls: a function's pc-value table PCDATA_InlTreeIndex says,
 * for each pc, which node of the function's inline tree (FUNCDATA
 * _InlTree) the code there was inlined from, and a node names the
 * function inlined and its parent call.  As the Go runtime does
 * (runtime.FuncForPC), an address is named after the innermost
 * function inlined there; gopclntab_frames gives the whole chain, as
 * runtime.CallersFrames does.  Since Go 1.18 funcdata are offsets from
 * go:func.*, whose address only the runtime's moduledata holds: it is
 * found in .noptrdata by its first word, the address of the pclntab
 * (through the relocations in a PIE).  A node's parent is a field
 * before Go 1.20, and since then the tree index at the call site.
 *
 * All of it is untrusted: every offset and count is checked against the
 * section it points into, walks of pc-value tables are bounded by their
 * bytes and by the function's size, a node's parent must come before it
 * (so parent chains end), and the memory kept is bounded by the size of
 * the sections read.  A table that fails a check of its header or of
 * the order of its functions is not used at all; a bad inline tree only
 * loses the inlined names.  The inline trees are gopclntab_inline.c's;
 * source files and lines, gopclntab_line.c's; reading the binary by
 * virtual address, gopclntab_image.c's.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"
#include "gopclntab.h"
#include "gopclntab_int.h"
#include "util/log.h"
#include "elf/symtab.h"
#include "util/xmalloc.h"

#define GOPCLNTAB_MAGIC_116	0xfffffffaU
#define GOPCLNTAB_MAGIC_118	0xfffffff0U
#define GOPCLNTAB_MAGIC_120	0xfffffff1U

static int
gopclntab_header(struct gopclntab_hdr *h, const uint8_t *p, size_t len,
    uint64_t vaddr)
{
	uint64_t	 w[8], fn, cu, ft, pc, ln;
	uint32_t	 magic;
	size_t		 nw, hdr, i;

	memset(h, 0, sizeof(*h));
	if (len < 8)
		return -1;
	magic = gopclntab_image_u32(p);
	if (p[4] != 0 || p[5] != 0 || (p[6] != 1 && p[6] != 2 &&
	    p[6] != 4) || (p[7] != 4 && p[7] != 8))
		return -1;
	h->quantum = p[6];
	h->ptrsize = p[7];
	switch (magic) {
	case GOPCLNTAB_MAGIC_116:
		h->version = 116;
		nw = 7;
		break;
	case GOPCLNTAB_MAGIC_118:
		h->version = 118;
		nw = 8;
		break;
	case GOPCLNTAB_MAGIC_120:
		h->version = 120;
		nw = 8;
		break;
	default:
		return -1;
	}
	hdr = 8 + nw * h->ptrsize;
	if (len < hdr)
		return -1;
	for (i = 0; i < nw; i++)
		w[i] = gopclntab_image_uword(p + 8 + i * h->ptrsize,
		    h->ptrsize);
	h->nfunc = w[0];
	if (h->version == 116) {
		fn = w[2], cu = w[3], ft = w[4], pc = w[5], ln = w[6];
	} else {
		h->text = w[2];
		fn = w[3], cu = w[4], ft = w[5], pc = w[6], ln = w[7];
	}
	if (fn < hdr || cu < fn || ft < cu || pc < ft || ln < pc || ln > len)
		return -1;
	if (cu - fn >= UINT32_MAX)
		return -1;
	h->vaddr = vaddr;
	h->names_off = fn;
	h->names = p + fn;
	h->names_len = cu - fn;
	h->cutab = p + cu;
	h->cutab_len = ft - cu;
	h->files = p + ft;
	h->files_len = pc - ft;
	h->pctab = p + pc;
	h->pctab_len = ln - pc;
	h->pcln = p + ln;
	h->pcln_len = len - ln;
	h->pcln_vaddr = vaddr + ln;
	return 0;
}

/* Entry and _func offset of function i of the function table. */
static int
gopclntab_functab(struct gopclntab_img *img, const struct gopclntab_hdr *h,
    uint64_t i, uint64_t *entry, uint64_t *funcoff)
{
	const uint8_t	*p;
	uint64_t	 es = h->version == 116 ? 2 * h->ptrsize : 8;

	p = h->pcln + i * es;
	if (h->version == 116) {
		*entry = gopclntab_image_reloc(img, h->pcln_vaddr + i * es,
		    gopclntab_image_uword(p, h->ptrsize));
		*funcoff = gopclntab_image_uword(p + h->ptrsize, h->ptrsize);
	} else {
		*entry = h->text + gopclntab_image_u32(p);
		*funcoff = gopclntab_image_u32(p + 4);
	}
	return 0;
}

static struct gopclntab *
gopclntab_parse(struct gopclntab_img *img, const struct gopclntab_hdr *h,
    size_t max_lines)
{
	struct gopclntab_build	 bd;
	struct gopclntab_fn	*fn;
	struct gopclntab	*g;
	struct symtab		*st;
	struct symtab_sym	*s;
	const uint8_t		*f;
	uint64_t		 es, i, entry, next, funcoff, nextoff;
	uint64_t		 gofunc = 0;
	int32_t			 nameoff;

	es = h->version == 116 ? 2 * h->ptrsize : 8;
	if (h->nfunc == 0 || h->nfunc >= h->pcln_len / es ||
	    h->nfunc > SIZE_MAX / sizeof(*st->v))
		return NULL;
	if (h->version != 116 && gopclntab_image_gofunc(img, h, &gofunc) == -1)
		log_debug("gopclntab: no moduledata: no inlined names");

	memset(&bd, 0, sizeof(bd));
	/* Bounded by the bytes that describe them. */
	bd.inl_max = h->pctab_len / 2 + h->nfunc;
	bd.nodes_max = h->pctab_len / 2 + h->nfunc;

	st = xcalloc(1, sizeof(*st));
	st->v = xreallocarray(NULL, h->nfunc, sizeof(*st->v));
	fn = xreallocarray(NULL, h->nfunc, sizeof(*fn));
	gopclntab_functab(img, h, 0, &next, &nextoff);
	for (i = 0; i < h->nfunc; i++) {
		entry = next;
		funcoff = nextoff;
		gopclntab_functab(img, h, i + 1, &next, &nextoff);
		if (next < entry)
			goto bad;	/* not sorted: not a table */
		if (next == entry)
			continue;
		if (funcoff > h->pcln_len || h->ptrsize + 8 >
		    h->pcln_len - funcoff)
			continue;
		f = h->pcln + funcoff;
		memcpy(&nameoff, f + (h->version == 116 ? h->ptrsize : 4), 4);
		if (nameoff < 0 || (uint64_t)nameoff >= h->names_len)
			continue;
		gopclntab_line_func(h, funcoff, &fn[st->n]);
		s = &st->v[st->n++];
		s->addr = entry;
		s->size = next - entry > UINT32_MAX ? UINT32_MAX :
		    next - entry;
		s->name = nameoff;
		gopclntab_inline_func(&bd, h, img, gofunc, funcoff, entry,
		    next);
	}
	if (st->n == 0)
		goto bad;
	st->names = xmalloc(h->names_len + 1);
	memcpy(st->names, h->names, h->names_len);
	st->names[h->names_len] = '\0';
	st->names_len = h->names_len + 1;

	g = xcalloc(1, sizeof(*g));
	g->funcs = st;
	g->version = h->version;
	g->inl = bd.inl;
	g->ninl = bd.ninl;
	g->nodes = bd.nodes;
	g->nnodes = bd.nnodes;
	g->lines = gopclntab_line_keep(h, fn, st->n, max_lines);
	free(bd.fr);
	/* Shrink what was grown by doubling. */
	if (g->ninl > 0)
		g->inl = xreallocarray(g->inl, g->ninl, sizeof(*g->inl));
	if (g->nnodes > 0)
		g->nodes = xreallocarray(g->nodes, g->nnodes,
		    sizeof(*g->nodes));
	if (st->n < h->nfunc)
		st->v = xreallocarray(st->v, st->n, sizeof(*st->v));
	return g;
bad:
	free(fn);
	free(bd.inl);
	free(bd.nodes);
	free(bd.fr);
	symtab_free(st);
	return NULL;
}

/*
 * The Go functions of ef, NULL if it has no pclntab we can read, or
 * one of more than max_funcs functions (errno EFBIG) or max_names bytes
 * of names (EOVERFLOW); 0: no bound.  Its line tables are kept if they
 * are no more than max_names bytes too, else it has no lines.
 */
struct gopclntab *
gopclntab_read(struct elf_file *ef, size_t max_funcs, size_t max_names)
{
	struct gopclntab_img	 img;
	struct gopclntab_hdr	 h;
	struct gopclntab	*g = NULL;
	struct elf_file_scn	 sc;
	uint8_t			*p;
	int			 over = 0;

	if (elf_section_find(ef, ".gopclntab", &sc) == -1 &&
	    elf_section_find_suffix(ef, ".gopclntab", &sc) == -1)
		return NULL;
	if ((p = elf_section_data(ef, &sc, GOPCLNTAB_SECTION_MAX)) ==
	    NULL)
		return NULL;
	memset(&img, 0, sizeof(img));
	img.ef = ef;
	if (gopclntab_header(&h, p, sc.size, sc.addr) == 0 &&
	    h.ptrsize == sizeof(void *)) {
		img.ptrsize = h.ptrsize;
		if (h.version != 116 && h.text == 0)
			h.text = gopclntab_image_reloc(&img, sc.addr + 8 +
			    2 * h.ptrsize, 0);
		if (max_funcs > 0 && h.nfunc > max_funcs)
			over = EFBIG;
		else if (max_names > 0 && h.names_len > max_names)
			over = EOVERFLOW;
		if (over != 0)
			log_debug("gopclntab: %llu functions, %zu bytes of "
			    "names: over the bounds", (unsigned long long)
			    h.nfunc, h.names_len);
		else
			g = gopclntab_parse(&img, &h, max_names);
	}
	if (g == NULL) {
		if (over == 0)
			log_debug("gopclntab: not a table we can read");
	} else
		log_debug("gopclntab: Go %d.%d format, %zu functions, %zu "
		    "inlined ranges", g->version / 100, g->version % 100,
		    g->funcs->n, g->ninl);
	free(img.sec);
	free(img.rel);
	free(p);
	if (over != 0)
		errno = over;
	return g;
}

void
gopclntab_free(struct gopclntab *g)
{
	if (g == NULL)
		return;
	symtab_free(g->funcs);
	free(g->inl);
	free(g->nodes);
	gopclntab_line_free(g->lines);
	free(g);
}

const struct gopclntab_inl *
gopclntab_inl_find(const struct gopclntab *g, uint64_t addr)
{
	const struct gopclntab_inl	*base;
	size_t				 n, half;

	if (g->ninl == 0 || addr < g->inl[0].addr)
		return NULL;
	base = g->inl;
	n = g->ninl;
	while (n > 1) {
		half = n / 2;
		base = base[half].addr <= addr ? base + half : base;
		n -= half;
	}
	if (addr - base->addr >= base->size)
		return NULL;
	return base;
}

/* The innermost function at addr, as runtime.FuncForPC names it. */
const char *
gopclntab_lookup(const struct gopclntab *g, uint64_t addr)
{
	const struct gopclntab_inl	*r;
	const struct gopclntab_node	*nd;

	if (g == NULL)
		return NULL;
	if ((r = gopclntab_inl_find(g, addr)) != NULL) {
		nd = &g->nodes[r->node];
		if (nd->name != GOPCLNTAB_NONE)
			return g->funcs->names + nd->name;
	}
	return symtab_lookup(g->funcs, addr);
}

/*
 * The functions at addr, outermost first: the function the code is in,
 * then those inlined into it, down to the innermost.  How many were
 * put in names (at most max), 0 if none.
 */
size_t
gopclntab_frames(const struct gopclntab *g, uint64_t addr,
    const char **names, size_t max)
{
	const struct gopclntab_inl	*r;
	const char			*chain[GOPCLNTAB_DEPTH_MAX];
	const char			*fn;
	size_t				 n = 0, k = 0;
	uint32_t			 node;

	if (g == NULL || max == 0 ||
	    (fn = symtab_lookup(g->funcs, addr)) == NULL)
		return 0;
	if ((r = gopclntab_inl_find(g, addr)) != NULL)
		for (node = r->node; node != GOPCLNTAB_NONE &&
		    n < GOPCLNTAB_DEPTH_MAX; node = g->nodes[node].parent)
			if (g->nodes[node].name != GOPCLNTAB_NONE)
				chain[n++] = g->funcs->names +
				    g->nodes[node].name;
	names[k++] = fn;
	while (n > 0 && k < max)
		names[k++] = chain[--n];
	return k;
}

size_t
gopclntab_count(const struct gopclntab *g)
{
	return g == NULL ? 0 : g->funcs->n;
}

size_t
gopclntab_inlined(const struct gopclntab *g)
{
	return g == NULL ? 0 : g->ninl;
}

size_t
gopclntab_bytes(const struct gopclntab *g)
{
	if (g == NULL)
		return 0;
	return sizeof(*g) + symtab_bytes(g->funcs) +
	    g->ninl * sizeof(*g->inl) + g->nnodes * sizeof(*g->nodes) +
	    gopclntab_line_bytes(g->lines, g->funcs->n);
}

int
gopclntab_version(const struct gopclntab *g)
{
	return g == NULL ? 0 : g->version;
}
