/*
 * The insides of a file's DWARF, shared by srcline.c (opening it,
 * bounds, budget), srcline_index.c (which unit covers an address) and
 * srcline_chain.c (an address's inline chain in a unit).  Nothing else
 * includes it.
 */
#ifndef EBPFSPY_SRCLINE_INT_H
#define EBPFSPY_SRCLINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "srcline.h"

/* An address range of a unit: [lo, hi). */
struct srcline_range {
	uint64_t	 lo, hi;
	uint32_t	 unit;		/* index into srcline_index.units */
};

/* A function of a unit: a range of a DIE, at its depth in the tree. */
struct srcline_scope {
	uint64_t	 lo, hi;
	Dwarf_Off	 off;
	uint32_t	 depth;
};

struct srcline_unit {
	Dwarf_Off		 off;		/* of its DIE in .debug_info */
	int			 scanned;	/* scopes read */
	struct srcline_scope	*scopes;	/* its functions */
	size_t			 nscopes;
};

struct srcline_index {
	struct srcline_range	*ranges;	/* sorted by lo */
	size_t			 nranges;
	struct srcline_unit	*units;
	size_t			 nunits;
};

/* srcline_index.c */
int		 srcline_index_build(struct srcline_index *, Dwarf *, size_t);
struct srcline_unit *srcline_index_find(struct srcline_index *, uint64_t);
size_t		 srcline_index_bytes(const struct srcline_index *);
void		 srcline_index_free(struct srcline_index *);

/* srcline_scope.c */
void		 srcline_scope_build(struct srcline_unit *, Dwarf_Die *,
		    size_t);
size_t		 srcline_scope_find(const struct srcline_unit *, uint64_t,
		    Dwarf_Off *, size_t);
size_t		 srcline_scope_bytes(const struct srcline_unit *);

/* srcline_chain.c */
int		 srcline_chain(Dwarf *, Dwarf_Die *, const struct srcline_unit *,
		    uint64_t, struct srcline_frame *, size_t);
size_t		 srcline_chain_line_bytes(Dwarf_Die *);

#endif
