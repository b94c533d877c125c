/*
 * A table of id lists kept under a key of (generation, id), for
 * stacknames: the names of a stack under its stack id, the names of a
 * frame under its address.
 *
 * Open addressing with linear probes, at most half full.  Rounds age
 * the table in place: an entry unused for long is deleted by shifting
 * the entries after it back (no tombstones), so that a round's end
 * costs one pass over the table and no new one.  The table only
 * shrinks, by a rehash, when most of it went.  A list of up to
 * STACKNAMES_INLINE ids (a frame's name and its flags) lives in its
 * entry; longer ones are allocated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "stacknames_int.h"
#include "util/xmalloc.h"

#define STACKNAMES_TAB_MIN	1024
#define STACKNAMES_TAB_ALIGN	64	/* a cache line: entries within one */

_Static_assert(sizeof(struct stacknames_entry) == 32, "two to a line");

static size_t
stacknames_tab_home(uint64_t gen, uint64_t id, size_t size)
{
	return stacknames_key_hash(gen, id) & (size - 1);
}

/* size empty slots, aligned so that no entry straddles two lines. */
static struct stacknames_entry *
stacknames_tab_alloc(size_t size)
{
	void	*v;

	if (posix_memalign(&v, STACKNAMES_TAB_ALIGN, size *
	    sizeof(struct stacknames_entry)) != 0)
		fatalx("stacknames: out of memory");
	memset(v, 0, size * sizeof(struct stacknames_entry));
	return v;
}

static int
stacknames_tab_is_inline(const struct stacknames_entry *e)
{
	return e->n + e->nextra <= STACKNAMES_INLINE;
}

static uint32_t *
stacknames_tab_ids(struct stacknames_entry *e)
{
	return stacknames_tab_is_inline(e) ? e->ids.v : e->ids.p;
}

static void
stacknames_tab_release(struct stacknames_tab *t, struct stacknames_entry *e)
{
	if (stacknames_tab_is_inline(e))
		return;
	t->idbytes -= (e->n + e->nextra) * sizeof(*e->ids.p);
	free(e->ids.p);
}

void
stacknames_tab_init(struct stacknames_tab *t)
{
	memset(t, 0, sizeof(*t));
	t->size = STACKNAMES_TAB_MIN;
	t->v = stacknames_tab_alloc(t->size);
}

void
stacknames_tab_clear(struct stacknames_tab *t)
{
	size_t	 i;

	for (i = 0; i < t->size; i++) {
		if (t->v[i].id != 0)
			stacknames_tab_release(t, &t->v[i]);
	}
	memset(t->v, 0, t->size * sizeof(*t->v));
	t->count = 0;
	t->idbytes = 0;
}

void
stacknames_tab_free(struct stacknames_tab *t)
{
	stacknames_tab_clear(t);
	free(t->v);
	t->v = NULL;
}

static struct stacknames_entry *
stacknames_tab_slot(struct stacknames_entry *v, size_t size, uint64_t gen,
    uint64_t id)
{
	size_t	 i;

	for (i = stacknames_tab_home(gen, id, size);;
	    i = (i + 1) & (size - 1)) {
		if (v[i].id == 0 || (v[i].id == id && v[i].gen == gen))
			return &v[i];
	}
}

/* Put every entry in a table of size slots. */
static void
stacknames_tab_rehash(struct stacknames_tab *t, size_t size)
{
	struct stacknames_entry	*v, *o;
	size_t			 i;

	v = stacknames_tab_alloc(size);
	for (i = 0; i < t->size; i++) {
		o = &t->v[i];
		if (o->id != 0)
			*stacknames_tab_slot(v, size, o->gen, o->id) = *o;
	}
	free(t->v);
	t->v = v;
	t->size = size;
}

/*
 * The list under (gen, id), marked used in round: *n ids and *nextra
 * after them.  NULL when there is none.
 */
const uint32_t *
stacknames_tab_get(struct stacknames_tab *t, uint64_t gen, uint64_t id,
    uint64_t round, size_t *n, size_t *nextra)
{
	struct stacknames_entry	*e;

	*n = *nextra = 0;
	if (id == 0)
		return NULL;
	e = stacknames_tab_slot(t->v, t->size, gen, id);
	if (e->id == 0) {
		t->misses++;
		return NULL;
	}
	t->hits++;
	e->used = (uint32_t)round;
	*n = e->n;
	*nextra = e->nextra;
	return stacknames_tab_ids(e);
}

void
stacknames_tab_put(struct stacknames_tab *t, uint64_t gen, uint64_t id,
    uint64_t round, const uint32_t *ids, size_t n, const uint32_t *extra,
    size_t nextra)
{
	struct stacknames_entry	*e;
	uint32_t		*d;

	if (id == 0 || n > UINT16_MAX || nextra > UINT16_MAX)
		return;
	if ((t->count + 1) * 2 > t->size)
		stacknames_tab_rehash(t, t->size * 2);
	e = stacknames_tab_slot(t->v, t->size, gen, id);
	if (e->id != 0)
		stacknames_tab_release(t, e);
	else
		t->count++;
	e->gen = gen;
	e->id = id;
	e->n = n;
	e->nextra = nextra;
	e->used = (uint32_t)round;
	if (!stacknames_tab_is_inline(e)) {
		e->ids.p = xreallocarray(NULL, n + nextra, sizeof(*e->ids.p));
		t->idbytes += (n + nextra) * sizeof(*e->ids.p);
	}
	d = stacknames_tab_ids(e);
	if (n > 0)
		memcpy(d, ids, n * sizeof(*ids));
	if (nextra > 0)
		memcpy(d + n, extra, nextra * sizeof(*extra));
}

/*
 * Empty slot i: move back the entries after it that could live there,
 * so that every entry stays reachable from its home slot.
 */
static void
stacknames_tab_delete(struct stacknames_tab *t, size_t i)
{
	size_t	 mask = t->size - 1, j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (t->v[j].id == 0)
			break;
		k = stacknames_tab_home(t->v[j].gen, t->v[j].id, t->size);
		/* Its home is cyclically in (i, j]: it stays. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->v[i] = t->v[j];
		i = j;
	}
	memset(&t->v[i], 0, sizeof(t->v[i]));
	t->count--;
}

/*
 * Drop the entries unused for `rounds' rounds before round, in place
 * (rounds compared in 32 bits: an entry is not kept 2^32 rounds).
 * The pass starts after an empty slot: entries only move back, towards
 * where the pass is, and never across that slot, so each is seen once.
 */
void
stacknames_tab_age(struct stacknames_tab *t, uint64_t round,
    unsigned int rounds)
{
	struct stacknames_entry	*e;
	size_t			 mask = t->size - 1, start, i, k;

	if (t->count > 0) {
		for (start = 0; t->v[start].id != 0; start++)
			;
		for (k = 1; k < t->size; k++) {
			i = (start + k) & mask;
			e = &t->v[i];
			while (e->id != 0 &&
			    (uint32_t)round - e->used >= rounds) {
				stacknames_tab_release(t, e);
				stacknames_tab_delete(t, i);
			}
		}
	}
	/* Shrink when most of it went. */
	k = t->size;
	while (k > STACKNAMES_TAB_MIN && t->count * 8 < k)
		k /= 2;
	if (k != t->size)
		stacknames_tab_rehash(t, k);
}

/*
 * Each entry's name ids through remap(arg, id): all of them, or the
 * first n only where the extras are not names (a frame's flags).
 */
void
stacknames_tab_remap(struct stacknames_tab *t, int extras,
    uint32_t (*remap)(void *, uint32_t), void *arg)
{
	struct stacknames_entry	*e;
	uint32_t		*ids;
	size_t			 i, j, n;

	for (i = 0; i < t->size; i++) {
		e = &t->v[i];
		if (e->id == 0)
			continue;
		ids = stacknames_tab_ids(e);
		n = e->n + (extras ? e->nextra : 0);
		for (j = 0; j < n; j++)
			ids[j] = remap(arg, ids[j]);
	}
}

size_t
stacknames_tab_bytes(const struct stacknames_tab *t)
{
	return t->size * sizeof(*t->v) + t->idbytes;
}
