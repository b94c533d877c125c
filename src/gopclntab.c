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
 * loses the inlined names.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf.h"
#include "gopclntab.h"
#include "log.h"
#include "symtab.h"
#include "xmalloc.h"

#define GOPCLNTAB_MAGIC_116	0xfffffffaU
#define GOPCLNTAB_MAGIC_118	0xfffffff0U
#define GOPCLNTAB_MAGIC_120	0xfffffff1U

/* No section of a real binary is bigger; bigger claims are not read. */
#define GOPCLNTAB_SECTION_MAX	(1ULL << 30)
#define GOPCLNTAB_PCDATA_INLTREE	2
#define GOPCLNTAB_FUNCDATA_INLTREE	3
#define GOPCLNTAB_NONE		UINT32_MAX
#define GOPCLNTAB_FUNC_NODES_MAX	(1 << 16)
/* moduledata, in words: funcnametab's pointer, text, gofunc. */
#define GOPCLNTAB_MD_FUNCNAMETAB	1
#define GOPCLNTAB_MD_TEXT	22
#define GOPCLNTAB_MD_GOFUNC_118	38
#define GOPCLNTAB_MD_GOFUNC_120	40

#if defined(__x86_64__)
#define GOPCLNTAB_R_RELATIVE	8	/* R_X86_64_RELATIVE */
#elif defined(__aarch64__)
#define GOPCLNTAB_R_RELATIVE	1027	/* R_AARCH64_RELATIVE */
#else
#define GOPCLNTAB_R_RELATIVE	0
#endif

struct gopclntab_inl {
	uint64_t	addr;
	uint32_t	size;
	uint32_t	node;
};

struct gopclntab_node {
	uint32_t	name;		/* in the names, or NONE */
	uint32_t	parent;		/* a node, or GOPCLNTAB_NONE */
};

struct gopclntab {
	struct symtab		*funcs;	/* names: the name table */
	struct gopclntab_inl	*inl;	/* sorted, no overlap */
	size_t			 ninl;
	struct gopclntab_node	*nodes;
	size_t			 nnodes;
	int			 version;
};

/* What the header says, checked against the section. */
struct gopclntab_hdr {
	int		 version;	/* 116, 118 or 120 */
	uint32_t	 quantum;
	unsigned int	 ptrsize;
	uint64_t	 vaddr;		/* of the table */
	uint64_t	 nfunc;
	uint64_t	 text;
	uint64_t	 names_off;
	const uint8_t	*names;
	size_t		 names_len;
	const uint8_t	*pctab;
	size_t		 pctab_len;
	const uint8_t	*pcln;		/* functab and _funcs */
	size_t		 pcln_len;
	uint64_t	 pcln_vaddr;
};

struct gopclntab_rel {
	uint64_t	off;
	uint64_t	val;
};

/* The file, read by virtual address. */
struct gopclntab_img {
	struct elf_file		*ef;
	unsigned int		 ptrsize;
	struct gopclntab_rel	*rel;	/* RELATIVE relocs, sorted */
	size_t			 nrel;
	int			 rel_read;
	uint8_t			*sec;	/* the last section read */
	uint64_t		 sec_addr, sec_size;
};

/* What the functions' inline trees add up to, while reading. */
struct gopclntab_build {
	struct gopclntab_inl	*inl;
	size_t			 ninl, inl_cap, inl_max;
	struct gopclntab_node	*nodes;
	size_t			 nnodes, nodes_cap, nodes_max;
	struct gopclntab_range	*fr;	/* one function's ranges */
	size_t			 nfr, fr_cap;
};

struct gopclntab_range {
	uint64_t	start, end;
	int32_t		val;
};

/* Walking a pc-value table. */
struct gopclntab_pcv {
	const uint8_t	*p, *end;
	uint64_t	 pc;
	int32_t		 val;
	int		 first;
	uint32_t	 quantum;
};

static uint64_t
gopclntab_uword(const uint8_t *p, unsigned int ptrsize)
{
	uint64_t	 v64;
	uint32_t	 v32;

	if (ptrsize == 8) {
		memcpy(&v64, p, 8);
		return v64;
	}
	memcpy(&v32, p, 4);
	return v32;
}

static uint32_t
gopclntab_u32(const uint8_t *p)
{
	uint32_t	 v;

	memcpy(&v, p, 4);
	return v;
}

static int
gopclntab_rel_cmp(const void *a, const void *b)
{
	const struct gopclntab_rel	*x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The RELATIVE relocations of a PIE, whose targets the file leaves 0. */
static void
gopclntab_rel_read(struct gopclntab_img *img)
{
	struct elf_file_scn	 sc;
	Elf64_Rela		*ra;
	size_t			 idx = 0, i, n;

	img->rel_read = 1;
	if (GOPCLNTAB_R_RELATIVE == 0 || img->ptrsize != 8)
		return;
	while (elf_file_section_next(img->ef, &idx, &sc) == 0) {
		if (sc.type != SHT_RELA || sc.size < sizeof(*ra))
			continue;
		if ((ra = elf_file_section_data(img->ef, &sc,
		    GOPCLNTAB_SECTION_MAX)) == NULL)
			continue;
		n = sc.size / sizeof(*ra);
		for (i = 0; i < n; i++) {
			if (ELF64_R_TYPE(ra[i].r_info) != GOPCLNTAB_R_RELATIVE)
				continue;
			if (img->nrel % 1024 == 0)
				img->rel = xreallocarray(img->rel,
				    img->nrel + 1024, sizeof(*img->rel));
			img->rel[img->nrel].off = ra[i].r_offset;
			img->rel[img->nrel].val = ra[i].r_addend;
			img->nrel++;
		}
		free(ra);
	}
	if (img->nrel > 0)
		qsort(img->rel, img->nrel, sizeof(*img->rel),
		    gopclntab_rel_cmp);
}

/* A word of the file at vaddr, raw, or relocated if the file has 0. */
static uint64_t
gopclntab_reloc(struct gopclntab_img *img, uint64_t vaddr, uint64_t raw)
{
	struct gopclntab_rel	 key, *r;

	if (raw != 0)
		return raw;
	if (!img->rel_read)
		gopclntab_rel_read(img);
	if (img->nrel == 0)
		return 0;
	key.off = vaddr;
	r = bsearch(&key, img->rel, img->nrel, sizeof(*img->rel),
	    gopclntab_rel_cmp);
	return r != NULL ? r->val : 0;
}

/*
 * len bytes at vaddr, from the section holding them, read whole and
 * kept for the next call (inline trees are all in go:func.*).
 */
static const uint8_t *
gopclntab_img_at(struct gopclntab_img *img, uint64_t vaddr, size_t len)
{
	struct elf_file_scn	 sc;

	if (img->sec == NULL || vaddr < img->sec_addr ||
	    vaddr - img->sec_addr >= img->sec_size) {
		if (elf_file_section_at(img->ef, vaddr, &sc) == -1)
			return NULL;
		free(img->sec);
		img->sec = elf_file_section_data(img->ef, &sc,
		    GOPCLNTAB_SECTION_MAX);
		img->sec_addr = sc.addr;
		img->sec_size = img->sec != NULL ? sc.size : 0;
		if (img->sec == NULL)
			return NULL;
	}
	if (len > img->sec_size - (vaddr - img->sec_addr))
		return NULL;
	return img->sec + (vaddr - img->sec_addr);
}

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
	magic = gopclntab_u32(p);
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
		w[i] = gopclntab_uword(p + 8 + i * h->ptrsize, h->ptrsize);
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
	h->pctab = p + pc;
	h->pctab_len = ln - pc;
	h->pcln = p + ln;
	h->pcln_len = len - ln;
	h->pcln_vaddr = vaddr + ln;
	return 0;
}

/*
 * The address of go:func.*: moduledata.gofunc.  moduledata starts with
 * the address of the pclntab and then the name table's slice.
 */
static int
gopclntab_gofunc(struct gopclntab_img *img, const struct gopclntab_hdr *h,
    uint64_t *gofunc)
{
	struct elf_file_scn	 sc;
	uint8_t			*d;
	uint64_t		 v, ps = h->ptrsize;
	size_t			 i, idx;
	int			 r = -1;

	idx = h->version == 120 ? GOPCLNTAB_MD_GOFUNC_120 :
	    GOPCLNTAB_MD_GOFUNC_118;
	if (elf_file_section(img->ef, ".noptrdata", &sc) == -1 ||
	    (d = elf_file_section_data(img->ef, &sc,
	    GOPCLNTAB_SECTION_MAX)) == NULL)
		return -1;
#define GOPCLNTAB_MD(k)	gopclntab_reloc(img, sc.addr + i + (k) * ps, \
	gopclntab_uword(d + i + (k) * ps, ps))
	for (i = 0; sc.size >= (idx + 1) * ps &&
	    i <= sc.size - (idx + 1) * ps; i += ps) {
		if (GOPCLNTAB_MD(0) != h->vaddr ||
		    GOPCLNTAB_MD(GOPCLNTAB_MD_FUNCNAMETAB) !=
		    h->vaddr + h->names_off)
			continue;
		if (h->text != 0 && GOPCLNTAB_MD(GOPCLNTAB_MD_TEXT) !=
		    h->text)
			continue;
		if ((v = GOPCLNTAB_MD(idx)) == 0)
			continue;
		*gofunc = v;
		r = 0;
		break;
	}
#undef GOPCLNTAB_MD
	free(d);
	return r;
}

static int
gopclntab_varint(struct gopclntab_pcv *it, uint32_t *v)
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

/* The next [start, end) of a pc-value table and its value; 0 at its end. */
static int
gopclntab_pcv_next(struct gopclntab_pcv *it, uint64_t *start, uint64_t *end,
    int32_t *val)
{
	uint32_t	 uv, pcd, d;

	if (gopclntab_varint(it, &uv) == -1 || (uv == 0 && !it->first))
		return 0;
	it->first = 0;
	d = (0U - (uv & 1)) ^ (uv >> 1);
	it->val = (int32_t)((uint32_t)it->val + d);
	if (gopclntab_varint(it, &pcd) == -1)
		return 0;
	*start = it->pc;
	it->pc += (uint64_t)pcd * it->quantum;
	*end = it->pc;
	*val = it->val;
	return 1;
}

/* The tree index in effect at pc, from the function's ranges. */
static int32_t
gopclntab_range_val(const struct gopclntab_build *bd, uint64_t pc)
{
	size_t	 i;

	for (i = 0; i < bd->nfr; i++)
		if (pc >= bd->fr[i].start && pc < bd->fr[i].end)
			return bd->fr[i].val;
	return -1;
}

/*
 * One function's inlined code: the ranges of its tree index table at
 * pcoff, and the nodes of its tree at tree.
 */
static void
gopclntab_func_inline(struct gopclntab_build *bd,
    const struct gopclntab_hdr *h, struct gopclntab_img *img,
    uint64_t entry, uint64_t fend, uint32_t pcoff, uint64_t tree)
{
	struct gopclntab_pcv	 it;
	struct gopclntab_node	*nd;
	const uint8_t		*t;
	uint64_t		 s, e, steps;
	size_t			 i, nsize, count, base;
	int32_t			 val, maxval = -1, pv;
	uint32_t		 nameoff;
	int16_t			 parent;

	if (pcoff == 0 || pcoff >= h->pctab_len)
		return;
	memset(&it, 0, sizeof(it));
	it.p = h->pctab + pcoff;
	it.end = h->pctab + h->pctab_len;
	it.pc = entry;
	it.val = -1;
	it.first = 1;
	it.quantum = h->quantum;
	bd->nfr = 0;
	for (steps = 0; steps <= fend - entry && it.pc < fend &&
	    gopclntab_pcv_next(&it, &s, &e, &val); steps++) {
		if (e > fend)
			e = fend;
		if (val < 0 || e <= s || val >= GOPCLNTAB_FUNC_NODES_MAX)
			continue;
		if (bd->nfr == bd->fr_cap) {
			bd->fr_cap = bd->fr_cap ? bd->fr_cap * 2 : 64;
			bd->fr = xreallocarray(bd->fr, bd->fr_cap,
			    sizeof(*bd->fr));
		}
		bd->fr[bd->nfr].start = s;
		bd->fr[bd->nfr].end = e;
		bd->fr[bd->nfr].val = val;
		bd->nfr++;
		if (val > maxval)
			maxval = val;
	}
	if (maxval < 0)
		return;

	nsize = h->version == 120 ? 16 : 20;
	count = (size_t)maxval + 1;
	if ((t = gopclntab_img_at(img, tree, nsize)) == NULL)
		return;
	/* Only the nodes that lie in the section. */
	if (count > (img->sec_size - (tree - img->sec_addr)) / nsize)
		count = (img->sec_size - (tree - img->sec_addr)) / nsize;
	if (bd->nnodes + count > bd->nodes_max ||
	    bd->ninl + bd->nfr > bd->inl_max)
		return;
	base = bd->nnodes;
	if (bd->nnodes + count > bd->nodes_cap) {
		bd->nodes_cap = (bd->nnodes + count) * 2;
		bd->nodes = xreallocarray(bd->nodes, bd->nodes_cap,
		    sizeof(*bd->nodes));
	}
	for (i = 0; i < count; i++) {
		nd = &bd->nodes[base + i];
		if (h->version == 120) {
			memcpy(&nameoff, t + i * nsize + 4, 4);
			memcpy(&pv, t + i * nsize + 8, 4);
			pv = pv >= 0 && (uint64_t)pv < fend - entry ?
			    gopclntab_range_val(bd, entry + pv) : -1;
		} else {
			memcpy(&parent, t + i * nsize, 2);
			memcpy(&nameoff, t + i * nsize + 12, 4);
			pv = parent;
		}
		nd->name = nameoff < h->names_len ? nameoff : GOPCLNTAB_NONE;
		/* A parent comes before its children: chains end. */
		nd->parent = pv >= 0 && (size_t)pv < i ? base + pv :
		    GOPCLNTAB_NONE;
	}
	bd->nnodes += count;

	for (i = 0; i < bd->nfr; i++) {
		if ((size_t)bd->fr[i].val >= count)
			continue;
		if (bd->ninl == bd->inl_cap) {
			bd->inl_cap = bd->inl_cap ? bd->inl_cap * 2 : 256;
			bd->inl = xreallocarray(bd->inl, bd->inl_cap,
			    sizeof(*bd->inl));
		}
		e = bd->fr[i].end - bd->fr[i].start;
		bd->inl[bd->ninl].addr = bd->fr[i].start;
		bd->inl[bd->ninl].size = e > UINT32_MAX ? UINT32_MAX : e;
		bd->inl[bd->ninl].node = base + bd->fr[i].val;
		bd->ninl++;
	}
}

/* One _func: its inline tree and index table, if it has them. */
static void
gopclntab_func(struct gopclntab_build *bd, const struct gopclntab_hdr *h,
    struct gopclntab_img *img, uint64_t gofunc, uint64_t funcoff,
    uint64_t entry, uint64_t fend)
{
	const uint8_t	*f;
	uint64_t	 hsize, npcoff, fdoff, tree;
	uint32_t	 npcdata, pcoff, off32;
	uint8_t		 nfuncdata;

	switch (h->version) {
	case 116:
		hsize = h->ptrsize + 36;
		npcoff = h->ptrsize + 24;
		break;
	case 118:
		hsize = 40;
		npcoff = 28;
		break;
	default:
		hsize = 44;
		npcoff = 28;
		break;
	}
	if (funcoff > h->pcln_len || hsize > h->pcln_len - funcoff)
		return;
	f = h->pcln + funcoff;
	memcpy(&npcdata, f + npcoff, 4);
	nfuncdata = f[hsize - 1];
	if (npcdata <= GOPCLNTAB_PCDATA_INLTREE ||
	    nfuncdata <= GOPCLNTAB_FUNCDATA_INLTREE ||
	    npcdata > (h->pcln_len - funcoff - hsize) / 4)
		return;
	memcpy(&pcoff, f + hsize + GOPCLNTAB_PCDATA_INLTREE * 4, 4);
	fdoff = funcoff + hsize + (uint64_t)npcdata * 4;
	if (h->version == 116) {
		/* Pointers, aligned in memory. */
		if (h->ptrsize == 8 && ((h->pcln_vaddr + fdoff) & 4))
			fdoff += 4;
		fdoff += GOPCLNTAB_FUNCDATA_INLTREE * h->ptrsize;
		if (fdoff > h->pcln_len || h->ptrsize > h->pcln_len - fdoff)
			return;
		tree = gopclntab_uword(h->pcln + fdoff, h->ptrsize);
		if (tree == 0)
			return;
	} else {
		fdoff += GOPCLNTAB_FUNCDATA_INLTREE * 4;
		if (gofunc == 0 || fdoff > h->pcln_len ||
		    4 > h->pcln_len - fdoff)
			return;
		memcpy(&off32, h->pcln + fdoff, 4);
		if (off32 == UINT32_MAX)
			return;
		tree = gofunc + off32;
	}
	gopclntab_func_inline(bd, h, img, entry, fend, pcoff, tree);
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
		*entry = gopclntab_reloc(img, h->pcln_vaddr + i * es,
		    gopclntab_uword(p, h->ptrsize));
		*funcoff = gopclntab_uword(p + h->ptrsize, h->ptrsize);
	} else {
		*entry = h->text + gopclntab_u32(p);
		*funcoff = gopclntab_u32(p + 4);
	}
	return 0;
}

static struct gopclntab *
gopclntab_parse(struct gopclntab_img *img, const struct gopclntab_hdr *h)
{
	struct gopclntab_build	 bd;
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
	if (h->version != 116 && gopclntab_gofunc(img, h, &gofunc) == -1)
		log_debug("gopclntab: no moduledata: no inlined names");

	memset(&bd, 0, sizeof(bd));
	/* Bounded by the bytes that describe them. */
	bd.inl_max = h->pctab_len / 2 + h->nfunc;
	bd.nodes_max = h->pctab_len / 2 + h->nfunc;

	st = xcalloc(1, sizeof(*st));
	st->v = xreallocarray(NULL, h->nfunc, sizeof(*st->v));
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
		s = &st->v[st->n++];
		s->addr = entry;
		s->size = next - entry > UINT32_MAX ? UINT32_MAX :
		    next - entry;
		s->name = nameoff;
		gopclntab_func(&bd, h, img, gofunc, funcoff, entry, next);
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
	free(bd.inl);
	free(bd.nodes);
	free(bd.fr);
	symtab_free(st);
	return NULL;
}

/*
 * The Go functions of ef, NULL if it has no pclntab we can read, or
 * one of more than max_funcs functions (errno EFBIG) or max_names bytes
 * of names (EOVERFLOW); 0: no bound.
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

	if (elf_file_section(ef, ".gopclntab", &sc) == -1 &&
	    elf_file_section_suffix(ef, ".gopclntab", &sc) == -1)
		return NULL;
	if ((p = elf_file_section_data(ef, &sc, GOPCLNTAB_SECTION_MAX)) ==
	    NULL)
		return NULL;
	memset(&img, 0, sizeof(img));
	img.ef = ef;
	if (gopclntab_header(&h, p, sc.size, sc.addr) == 0 &&
	    h.ptrsize == sizeof(void *)) {
		img.ptrsize = h.ptrsize;
		if (h.version != 116 && h.text == 0)
			h.text = gopclntab_reloc(&img, sc.addr + 8 +
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
			g = gopclntab_parse(&img, &h);
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
	free(g);
}

static const struct gopclntab_inl *
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
	    g->ninl * sizeof(*g->inl) + g->nnodes * sizeof(*g->nodes);
}

int
gopclntab_version(const struct gopclntab *g)
{
	return g == NULL ? 0 : g->version;
}
