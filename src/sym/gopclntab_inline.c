/*
 * Go's inlined calls: a function's pc-value table PCDATA_InlTreeIndex
 * says which node of its inline tree (FUNCDATA_InlTree) the code at a pc
 * was inlined from; a node names the function inlined and its parent
 * call.  Walks are bounded by the table's bytes and the function's size,
 * and a node's parent must come before it, so parent chains end.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"
#include "gopclntab.h"
#include "gopclntab_int.h"
#include "util/xmalloc.h"

/* The tree index in effect at pc, from the function's ranges. */
static int32_t
gopclntab_inline_range_val(const struct gopclntab_build *bd, uint64_t pc)
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
gopclntab_inline_tree(struct gopclntab_build *bd,
    const struct gopclntab_hdr *h, struct gopclntab_img *img,
    uint64_t entry, uint64_t fend, uint32_t pcoff, uint64_t tree)
{
	struct gopclntab_pcv	 it;
	struct gopclntab_node	*nd;
	const uint8_t		*t;
	uint64_t		 s, e, steps;
	size_t			 i, nsize, count, base;
	int32_t			 val, maxval = -1, pv, call;
	uint32_t		 nameoff;
	int16_t			 parent;

	if (gopclntab_line_start(&it, h->pctab, h->pctab_len, pcoff, entry,
	    h->quantum) == -1)
		return;
	bd->nfr = 0;
	for (steps = 0; steps <= fend - entry && it.pc < fend &&
	    gopclntab_line_next(&it, &s, &e, &val); steps++) {
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
	if ((t = gopclntab_image_at(img, tree, nsize)) == NULL)
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
			memcpy(&call, t + i * nsize + 8, 4);
			pv = call >= 0 && (uint64_t)call < fend - entry ?
			    gopclntab_inline_range_val(bd, entry + call) : -1;
		} else {
			memcpy(&parent, t + i * nsize, 2);
			memcpy(&nameoff, t + i * nsize + 12, 4);
			memcpy(&call, t + i * nsize + 16, 4);
			pv = parent;
		}
		nd->call = call >= 0 && (uint64_t)call < fend - entry ?
		    (uint32_t)call : GOPCLNTAB_NONE;
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
void
gopclntab_inline_func(struct gopclntab_build *bd,
    const struct gopclntab_hdr *h, struct gopclntab_img *img,
    uint64_t gofunc, uint64_t funcoff, uint64_t entry, uint64_t fend)
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
		tree = gopclntab_image_uword(h->pcln + fdoff, h->ptrsize);
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
	gopclntab_inline_tree(bd, h, img, entry, fend, pcoff, tree);
}
