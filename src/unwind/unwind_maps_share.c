/*
 * Tables shared between files: a file's table that is, row for row and
 * page for page, the table another file has loaded borrows that one's
 * rows instead of taking room of its own (two containers of the same
 * image map two copies of libc, of two inodes).
 *
 * Never on a claimed identity: a file may carry any build id, and a
 * table is no cache of a file's contents but what the walker reads.
 * Each file's table is built from its own CFI, then compared, bytes
 * and bounds, with the loaded tables of the same hash: only the very
 * same rows are shared, so a file in one container, whatever it says
 * it is, cannot change how another process's stacks are walked.
 *
 * The lender keeps its borrowers in a list: their processes keep its
 * table in use (it is not evicted while they walk it), and when it goes
 * their slots are cleared with its own; they are built again when a
 * process maps them next.
 */
#include <sys/types.h>

#include <stdint.h>
#include <string.h>

#include "unwind_maps_int.h"
#include "util/hash.h"

int
unwind_maps_share(struct unwind_maps *um, struct unwind_maps_file *f,
    const struct unwind_table *t)
{
	const struct unwind_row		*rows;
	const struct unwind_page	*pages;
	const struct unwind_file	*s;
	struct unwind_maps_file		*g;
	size_t				 nrows, npages, i;
	uint64_t			 pc_base, pc_end;

	rows = unwind_table_rows(t, &nrows);
	pages = unwind_table_pages(t, &npages);
	pc_base = unwind_table_pc_base(t);
	pc_end = unwind_table_pc_end(t);
	f->thash = hash_pair(hash_bytes(rows, nrows * sizeof(*rows)),
	    hash_bytes(pages, npages * sizeof(*pages)));
	for (i = 0; i < um->nslots; i++) {
		if ((g = um->byid[i]) == NULL || g == f ||
		    g->state != UNWIND_MAPS_LOADED || g->thash != f->thash ||
		    g->nrows != nrows || g->npages != npages)
			continue;
		s = &um->slots[g->id];
		if (s->pc_base != pc_base || s->pc_end != pc_end ||
		    memcmp(&um->rows[g->row_base], rows,
		    nrows * sizeof(*rows)) != 0 ||
		    memcmp(&um->pages[g->page_base], pages,
		    npages * sizeof(*pages)) != 0)
			continue;
		f->lender = g;
		f->bnext = g->borrowers;
		g->borrowers = f;
		f->row_base = g->row_base;
		f->nrows = g->nrows;
		f->page_base = g->page_base;
		f->npages = g->npages;
		f->used = unwind_maps_now();
		f->state = UNWIND_MAPS_SHARED;
		unwind_maps_slot_publish(um, f, pc_base, pc_end);
		um->st.shared++;
		return 0;
	}
	return -1;
}

/* A borrower's slot cleared: it has no table. */
static void
unwind_maps_share_clear(struct unwind_maps *um, struct unwind_maps_file *f)
{
	__atomic_store_n(&um->slots[f->id].nrows, 0, __ATOMIC_RELEASE);
	f->nrows = f->npages = 0;
	f->lender = NULL;
	f->bnext = NULL;
	f->state = UNWIND_MAPS_NONE;
	um->st.shared--;
}

/*
 * A borrower lets its lender's table go; a lender's table going, its
 * borrowers lose it too.  Their room is the lender's to free.
 */
void
unwind_maps_share_drop(struct unwind_maps *um, struct unwind_maps_file *f)
{
	struct unwind_maps_file	**pp, *b;

	if (f->state == UNWIND_MAPS_SHARED) {
		for (pp = &f->lender->borrowers; *pp != NULL;
		    pp = &(*pp)->bnext) {
			if (*pp == f) {
				*pp = f->bnext;
				break;
			}
		}
		unwind_maps_share_clear(um, f);
		return;
	}
	while ((b = f->borrowers) != NULL) {
		f->borrowers = b->bnext;
		unwind_maps_share_clear(um, b);
	}
}

size_t
unwind_maps_share_refs(const struct unwind_maps_file *f)
{
	const struct unwind_maps_file	*b;
	size_t				 n = f->refs;

	for (b = f->borrowers; b != NULL; b = b->bnext)
		n += b->refs;
	return n;
}

/* When a loaded table was last of use, as unwind_file.hit. */
static uint32_t
unwind_maps_share_used_one(struct unwind_maps *um,
    const struct unwind_maps_file *f)
{
	uint32_t	 hit = um->slots[f->id].hit;

	return hit > f->used ? hit : f->used;
}

uint32_t
unwind_maps_share_used(struct unwind_maps *um,
    const struct unwind_maps_file *f)
{
	const struct unwind_maps_file	*b;
	uint32_t			 u, v;

	u = unwind_maps_share_used_one(um, f);
	for (b = f->borrowers; b != NULL; b = b->bnext) {
		v = unwind_maps_share_used_one(um, b);
		if (v > u)
			u = v;
	}
	return u;
}
