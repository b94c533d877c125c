/*
 * A Go binary read by virtual address, for the pclntab's readers: words
 * of the file's sections, the RELATIVE relocations a PIE leaves its
 * pointers to, and moduledata's go:func.*, which funcdata offsets are
 * from since Go 1.18.  Everything is checked against the section read.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"
#include "gopclntab.h"
#include "gopclntab_int.h"
#include "util/xmalloc.h"

uint64_t
gopclntab_image_uword(const uint8_t *p, unsigned int ptrsize)
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

uint32_t
gopclntab_image_u32(const uint8_t *p)
{
	uint32_t	 v;

	memcpy(&v, p, 4);
	return v;
}

static int
gopclntab_image_rel_cmp(const void *a, const void *b)
{
	const struct gopclntab_rel	*x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The RELATIVE relocations of a PIE, whose targets the file leaves 0. */
static void
gopclntab_image_rel_read(struct gopclntab_img *img)
{
	struct elf_file_scn	 sc;
	Elf64_Rela		*ra;
	size_t			 idx = 0, i, n;

	img->rel_read = 1;
	if (GOPCLNTAB_R_RELATIVE == 0 || img->ptrsize != 8)
		return;
	while (elf_section_next(img->ef, &idx, &sc) == 0) {
		if (sc.type != SHT_RELA || sc.size < sizeof(*ra))
			continue;
		if ((ra = elf_section_data(img->ef, &sc,
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
		    gopclntab_image_rel_cmp);
}

/* A word of the file at vaddr, raw, or relocated if the file has 0. */
uint64_t
gopclntab_image_reloc(struct gopclntab_img *img, uint64_t vaddr,
    uint64_t raw)
{
	struct gopclntab_rel	 key, *r;

	if (raw != 0)
		return raw;
	if (!img->rel_read)
		gopclntab_image_rel_read(img);
	if (img->nrel == 0)
		return 0;
	key.off = vaddr;
	r = bsearch(&key, img->rel, img->nrel, sizeof(*img->rel),
	    gopclntab_image_rel_cmp);
	return r != NULL ? r->val : 0;
}

/*
 * len bytes at vaddr, from the section holding them, read whole and
 * kept for the next call (inline trees are all in go:func.*).
 */
const uint8_t *
gopclntab_image_at(struct gopclntab_img *img, uint64_t vaddr, size_t len)
{
	struct elf_file_scn	 sc;

	if (img->sec == NULL || vaddr < img->sec_addr ||
	    vaddr - img->sec_addr >= img->sec_size) {
		if (elf_section_at(img->ef, vaddr, &sc) == -1)
			return NULL;
		free(img->sec);
		img->sec = elf_section_data(img->ef, &sc,
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

/*
 * The address of go:func.*: moduledata.gofunc.  moduledata starts with
 * the address of the pclntab and then the name table's slice.
 */
int
gopclntab_image_gofunc(struct gopclntab_img *img,
    const struct gopclntab_hdr *h, uint64_t *gofunc)
{
	struct elf_file_scn	 sc;
	uint8_t			*d;
	uint64_t		 v, ps = h->ptrsize;
	size_t			 i, idx;
	int			 r = -1;

	idx = h->version == 120 ? GOPCLNTAB_MD_GOFUNC_120 :
	    GOPCLNTAB_MD_GOFUNC_118;
	if (elf_section_find(img->ef, ".noptrdata", &sc) == -1 ||
	    (d = elf_section_data(img->ef, &sc,
	    GOPCLNTAB_SECTION_MAX)) == NULL)
		return -1;
#define GOPCLNTAB_MD(k)	gopclntab_image_reloc(img, sc.addr + i + (k) * ps, \
	gopclntab_image_uword(d + i + (k) * ps, ps))
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
