/*
 * Which compilation unit covers an address: the units' address ranges
 * (DW_AT_low_pc/high_pc or DW_AT_ranges of each unit's DIE, DWARF 4's
 * .debug_ranges or 5's .debug_rnglists), sorted once when the file's
 * DWARF is first used.  Not .debug_aranges: clang does not write it and
 * the libdw of Debian 12 (0.188) finds no unit without it.  Reading a
 * unit's header and its DIE's attributes is all this costs; the DIEs
 * under it, its lines and its abbreviations are read when an address
 * in it is first looked up (srcline_chain.c).
 *
 * The DWARF is untrusted: at most max ranges are kept (a unit claiming
 * a million ranges is cut, its addresses then have no unit), empty and
 * inverted ranges are dropped.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "srcline_int.h"
#include "util/xmalloc.h"

static int
srcline_index_cmp(const void *a, const void *b)
{
	const struct srcline_range	*x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static void
srcline_index_add(struct srcline_index *ix, size_t *cap, uint64_t lo,
    uint64_t hi, uint32_t unit)
{
	if (lo >= hi)
		return;
	if (ix->nranges == *cap) {
		*cap = *cap == 0 ? 64 : *cap * 2;
		ix->ranges = xreallocarray(ix->ranges, *cap,
		    sizeof(*ix->ranges));
	}
	ix->ranges[ix->nranges].lo = lo;
	ix->ranges[ix->nranges].hi = hi;
	ix->ranges[ix->nranges].unit = unit;
	ix->nranges++;
}

/*
 * Index the units of dbg, keeping at most max ranges: 0, or -1 when
 * there is no unit with an address at all.
 */
int
srcline_index_build(struct srcline_index *ix, Dwarf *dbg, size_t max)
{
	Dwarf_CU	*cu = NULL;
	Dwarf_Die	 cudie;
	Dwarf_Addr	 base, lo, hi;
	ptrdiff_t	 off;
	size_t		 cap = 0, ucap = 0;
	uint8_t		 unit_type;
	Dwarf_Half	 version;

	memset(ix, 0, sizeof(*ix));
	while (ix->nranges < max && dwarf_get_units(dbg, cu, &cu, &version,
	    &unit_type, &cudie, NULL) == 0) {
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial &&
		    unit_type != DW_UT_skeleton)
			continue;
		if (ix->nunits == ucap) {
			ucap = ucap == 0 ? 64 : ucap * 2;
			ix->units = xreallocarray(ix->units, ucap,
			    sizeof(*ix->units));
		}
		memset(&ix->units[ix->nunits], 0, sizeof(*ix->units));
		ix->units[ix->nunits].off = dwarf_dieoffset(&cudie);
		off = 0;
		while (ix->nranges < max && (off = dwarf_ranges(&cudie, off,
		    &base, &lo, &hi)) > 0)
			srcline_index_add(ix, &cap, lo, hi, ix->nunits);
		ix->nunits++;
		if (ix->nunits >= UINT32_MAX)
			break;
	}
	if (ix->nranges == 0) {
		srcline_index_free(ix);
		return -1;
	}
	qsort(ix->ranges, ix->nranges, sizeof(*ix->ranges),
	    srcline_index_cmp);
	return 0;
}

/* Ranges of units that overlap (bad DWARF) are looked back this far. */
#define SRCLINE_INDEX_BACK	8

/* The unit whose ranges hold addr, or NULL. */
struct srcline_unit *
srcline_index_find(struct srcline_index *ix, uint64_t addr)
{
	size_t	 lo = 0, hi = ix->nranges, mid, i, n;

	/* The first range that starts after addr. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ix->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo, n = 0; i > 0 && n < SRCLINE_INDEX_BACK; i--, n++)
		if (addr < ix->ranges[i - 1].hi)
			return &ix->units[ix->ranges[i - 1].unit];
	return NULL;
}

size_t
srcline_index_bytes(const struct srcline_index *ix)
{
	return ix->nranges * sizeof(*ix->ranges) +
	    ix->nunits * sizeof(*ix->units);
}

void
srcline_index_free(struct srcline_index *ix)
{
	size_t	 i;

	for (i = 0; i < ix->nunits; i++)
		free(ix->units[i].scopes);
	free(ix->ranges);
	free(ix->units);
	memset(ix, 0, sizeof(*ix));
}
