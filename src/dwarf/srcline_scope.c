/*
 * The functions of one compilation unit by address: its
 * DW_TAG_subprogram and DW_TAG_inlined_subroutine DIEs with their
 * ranges and depths, read in one walk of the unit's DIEs when an
 * address in it is first looked up.  dwarf_getscopes walks the unit's
 * tree again at every lookup: 0.35 ms an address in libc6-dbg's units,
 * where a scan of this table is a few microseconds.  The functions
 * holding an address, deepest first, are its inline chain.
 *
 * Untrusted: the walk goes SRCLINE_SCOPE_DEPTH deep at most and keeps
 * at most max entries (a unit over them has the entries read so far:
 * its other addresses have no function, only a line).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "srcline_int.h"
#include "util/xmalloc.h"

#define SRCLINE_SCOPE_DEPTH	64

static int
srcline_scope_descend(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_partial_unit:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return 1;
	}
	return 0;
}

static void
srcline_scope_add(struct srcline_unit *u, size_t *cap, Dwarf_Die *die,
    int depth, size_t max)
{
	Dwarf_Addr	 base, lo, hi;
	ptrdiff_t	 off = 0;

	while (u->nscopes < max &&
	    (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (u->nscopes == *cap) {
			*cap = *cap == 0 ? 32 : *cap * 2;
			u->scopes = xreallocarray(u->scopes, *cap,
			    sizeof(*u->scopes));
		}
		u->scopes[u->nscopes].lo = lo;
		u->scopes[u->nscopes].hi = hi;
		u->scopes[u->nscopes].off = dwarf_dieoffset(die);
		u->scopes[u->nscopes].depth = depth;
		u->nscopes++;
	}
}

/* Read the functions of the unit of cudie into u, max entries at most. */
void
srcline_scope_build(struct srcline_unit *u, Dwarf_Die *cudie, size_t max)
{
	Dwarf_Die	 stack[SRCLINE_SCOPE_DEPTH];
	size_t		 cap = 0;
	int		 depth = 0, tag, rc;

	u->scanned = 1;
	if (dwarf_child(cudie, &stack[0]) != 0)
		return;
	for (;;) {
		tag = dwarf_tag(&stack[depth]);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point ||
		    tag == DW_TAG_inlined_subroutine)
			srcline_scope_add(u, &cap, &stack[depth], depth, max);
		if (u->nscopes >= max)
			return;
		if (depth + 1 < SRCLINE_SCOPE_DEPTH &&
		    srcline_scope_descend(tag) &&
		    dwarf_child(&stack[depth], &stack[depth + 1]) == 0) {
			depth++;
			continue;
		}
		/* The next sibling here, or up until there is one. */
		while ((rc = dwarf_siblingof(&stack[depth], &stack[depth])) !=
		    0) {
			if (rc == -1 || depth == 0)
				return;
			depth--;
		}
	}
}

/*
 * The DIEs of the functions holding addr, deepest first, into offs:
 * how many.
 */
size_t
srcline_scope_find(const struct srcline_unit *u, uint64_t addr,
    Dwarf_Off *offs, size_t max)
{
	uint32_t	 depths[SRCLINE_DEPTH_MAX];
	Dwarf_Off	 o;
	uint32_t	 d;
	size_t		 i, j, n = 0;

	for (i = 0; i < u->nscopes && n < max && n < SRCLINE_DEPTH_MAX; i++) {
		if (addr < u->scopes[i].lo || addr >= u->scopes[i].hi)
			continue;
		offs[n] = u->scopes[i].off;
		depths[n] = u->scopes[i].depth;
		/* Insertion, deepest first: a chain is a few entries. */
		for (j = n; j > 0 && depths[j - 1] < depths[j]; j--) {
			o = offs[j], offs[j] = offs[j - 1], offs[j - 1] = o;
			d = depths[j], depths[j] = depths[j - 1];
			depths[j - 1] = d;
		}
		n++;
	}
	return n;
}

size_t
srcline_scope_bytes(const struct srcline_unit *u)
{
	return u->nscopes * sizeof(*u->scopes);
}
