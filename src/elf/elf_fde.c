/*
 * Function ranges from .eh_frame_hdr, for naming the frames of a
 * stripped file without debug info by the function they are in
 * ("gzip+0x4840" once for the function, not a name per sampled
 * address: sym/resolve.c).  Not an unwinder: src/unwind/ reads the CFI.
 *
 * .eh_frame_hdr holds the sorted table the unwinder's binary search
 * uses: for each FDE its initial location and its address, both
 * relative to the header (DW_EH_PE_datarel | sdata4, what GNU ld and
 * lld write; other encodings are not read).  Each FDE's range is read
 * from .eh_frame where its pc_begin is pc-relative sdata4, the usual
 * encoding, found by decoding it and comparing with the table's; else
 * the function ends where the next one begins.  Bounded by the
 * section's size, which the file's size bounds, and by a maximum.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf.h"
#include "util/xmalloc.h"

#define EH_PE_udata4	0x03
#define EH_PE_sdata4	0x0b
#define EH_PE_udata8	0x04
#define EH_PE_sdata8	0x0c
#define EH_PE_absptr	0x00
#define EH_PE_datarel	0x30
#define EH_PE_omit	0xff

static uint32_t
fde_u32(const uint8_t *p)
{
	uint32_t	 v;

	memcpy(&v, p, sizeof(v));
	return v;		/* little-endian: the only hosts (arch.h) */
}

/* Bytes of an encoded pointer's value, by the low 4 bits; 0: unknown. */
static size_t
fde_enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case EH_PE_udata4:
	case EH_PE_sdata4:
		return 4;
	case EH_PE_absptr:
	case EH_PE_udata8:
	case EH_PE_sdata8:
		return 8;
	}
	return 0;
}

/* The end of the function FDE fde starts at start, read from .eh_frame. */
static uint64_t
fde_end(struct elf_file *ef, const struct elf_file_scn *eh, uint64_t fde,
    uint64_t start)
{
	uint8_t		 b[16];
	int32_t		 pcb;
	uint32_t	 len;

	if (eh->size < 16 || fde < eh->addr || fde - eh->addr > eh->size - 16 ||
	    elf_file_read(ef, b, sizeof(b), eh->offset + (fde - eh->addr)) ==
	    -1)
		return 0;
	len = fde_u32(b);
	if (len < 12 || len == 0xffffffff)
		return 0;
	pcb = (int32_t)fde_u32(b + 8);
	if (fde + 8 + (int64_t)pcb != start)
		return 0;	/* not pcrel sdata4: the next start bounds it */
	return start + fde_u32(b + 12);
}

/*
 * The function ranges of ef, sorted by start, into *out (free it): how
 * many; 0 with *out NULL when the file has no table this reads, or more
 * than max entries.
 */
size_t
elf_fde_ranges(struct elf_file *ef, struct elf_fde_range **out, size_t max)
{
	struct elf_fde_range	*v;
	struct elf_file_scn	 hdr, eh;
	uint8_t			*h;
	uint64_t		 count, i, start, prev = 0;
	size_t			 skip, n = 0;
	int			 has_eh;

	*out = NULL;
	if (elf_section_find(ef, ".eh_frame_hdr", &hdr) == -1 ||
	    hdr.size < 8 || (h = elf_section_data(ef, &hdr, hdr.size)) ==
	    NULL)
		return 0;
	has_eh = elf_section_find(ef, ".eh_frame", &eh) == 0 &&
	    eh.type != SHT_NOBITS;
	if (h[0] != 1 || h[2] != EH_PE_udata4 ||
	    h[3] != (EH_PE_datarel | EH_PE_sdata4) || h[1] == EH_PE_omit ||
	    (skip = fde_enc_size(h[1])) == 0 || 4 + skip + 4 > hdr.size)
		goto none;
	count = fde_u32(h + 4 + skip);
	if (count == 0 || count > max ||
	    count > (hdr.size - 4 - skip - 4) / 8)
		goto none;
	v = xcalloc(count, sizeof(*v));
	for (i = 0; i < count; i++) {
		const uint8_t	*e = h + 4 + skip + 4 + i * 8;

		start = hdr.addr + (int64_t)(int32_t)fde_u32(e);
		if (i > 0 && start < prev) {
			free(v);	/* not sorted: not a table */
			goto none;
		}
		if (i > 0 && start == prev)
			continue;
		v[n].start = start;
		v[n].end = has_eh ? fde_end(ef, &eh, hdr.addr +
		    (int64_t)(int32_t)fde_u32(e + 4), start) : 0;
		n++;
		prev = start;
	}
	/* Where .eh_frame did not say: up to the next function. */
	for (i = 0; i < n; i++) {
		if (v[i].end > v[i].start && (i + 1 == n ||
		    v[i].end <= v[i + 1].start))
			continue;
		v[i].end = i + 1 < n ? v[i + 1].start : v[i].start + 1;
	}
	free(h);
	*out = v;
	return n;
none:
	free(h);
	return 0;
}

/* The range holding vaddr, or NULL. */
const struct elf_fde_range *
elf_fde_find(const struct elf_fde_range *v, size_t n, uint64_t vaddr)
{
	size_t	 lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || vaddr >= v[lo - 1].end)
		return NULL;
	return &v[lo - 1];
}
