/*
 * Locations and their mappings, for pprof.  Each is an array indexed by
 * id, found by its key in an open-addressing table at most half full:
 * a location by (name, mapping, address, source file, flags), a
 * mapping by (file, offset, build id).  A mapping's flags are the union of what its
 * frames were given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frametab.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define FRAMETAB_TAB_MIN	1024
/* Past this many mappings, frames get none (their names stay). */
#define FRAMETAB_MAPS_MAX	65536

struct frametab {
	struct frametab_loc	*locs;
	size_t			 nlocs, loccap;
	uint32_t		*tab;		/* location id + 1, 0: empty */
	size_t			 tabsz;		/* a power of two */
	struct frametab_map	*maps;
	size_t			 nmaps, mapcap;
	uint32_t		*maptab;	/* mapping id, 0: empty */
	size_t			 maptabsz;
};

struct frametab *
frametab_create(void)
{
	struct frametab	*t;

	t = xcalloc(1, sizeof(*t));
	t->tabsz = FRAMETAB_TAB_MIN;
	t->tab = xcalloc(t->tabsz, sizeof(*t->tab));
	t->maptabsz = 64;
	t->maptab = xcalloc(t->maptabsz, sizeof(*t->maptab));
	return t;
}

void
frametab_free(struct frametab *t)
{
	if (t == NULL)
		return;
	free(t->locs);
	free(t->tab);
	free(t->maps);
	free(t->maptab);
	free(t);
}

void
frametab_clear(struct frametab *t)
{
	memset(t->tab, 0, t->tabsz * sizeof(*t->tab));
	memset(t->maptab, 0, t->maptabsz * sizeof(*t->maptab));
	t->nlocs = 0;
	t->nmaps = 0;
}

static uint64_t
frametab_hash(uint32_t name, const struct frametab_frame *f)
{
	return hash_pair(hash_pair(hash_pair(name, f->map), f->addr),
	    (uint64_t)f->file << 32 | f->flags);
}

/* The same location: name and frame equal in what keys it. */
static int
frametab_is_same(const struct frametab_loc *l, uint32_t name,
    const struct frametab_frame *f)
{
	return l->name == name && l->f.map == f->map &&
	    l->f.addr == f->addr && l->f.file == f->file &&
	    l->f.flags == f->flags;
}

static void
frametab_grow(struct frametab *t)
{
	const struct frametab_loc	*l;
	size_t				 i, j, mask;

	free(t->tab);
	t->tabsz *= 2;
	t->tab = xcalloc(t->tabsz, sizeof(*t->tab));
	mask = t->tabsz - 1;
	for (i = 0; i < t->nlocs; i++) {
		l = &t->locs[i];
		for (j = frametab_hash(l->name, &l->f) & mask;
		    t->tab[j] != 0; j = (j + 1) & mask)
			;
		t->tab[j] = i + 1;
	}
}

uint32_t
frametab_loc_add(struct frametab *t, uint32_t name,
    const struct frametab_frame *f)
{
	static const struct frametab_frame	 none;
	struct frametab_loc			*l;
	size_t					 j, mask = t->tabsz - 1;

	if (f == NULL)
		f = &none;
	for (j = frametab_hash(name, f) & mask; t->tab[j] != 0;
	    j = (j + 1) & mask) {
		l = &t->locs[t->tab[j] - 1];
		if (frametab_is_same(l, name, f))
			return t->tab[j] - 1;
	}
	if (t->nlocs >= UINT32_MAX - 1)
		fatalx("frametab: too many locations");
	if (t->nlocs == t->loccap) {
		t->loccap = t->loccap ? t->loccap * 2 : 256;
		t->locs = xreallocarray(t->locs, t->loccap, sizeof(*t->locs));
	}
	l = &t->locs[t->nlocs];
	l->name = name;
	l->f = *f;
	t->tab[j] = ++t->nlocs;
	if (t->nlocs * 2 > t->tabsz)
		frametab_grow(t);
	return t->nlocs - 1;
}

const struct frametab_loc *
frametab_loc(const struct frametab *t, uint32_t id)
{
	return id < t->nlocs ? &t->locs[id] : NULL;
}

size_t
frametab_nlocs(const struct frametab *t)
{
	return t->nlocs;
}

static uint64_t
frametab_map_hash(const struct frametab_map *m)
{
	return hash_pair(hash_pair(m->file, m->offset), m->build_id);
}

static void
frametab_map_grow(struct frametab *t)
{
	size_t	 i, j, mask;

	free(t->maptab);
	t->maptabsz *= 2;
	t->maptab = xcalloc(t->maptabsz, sizeof(*t->maptab));
	mask = t->maptabsz - 1;
	for (i = 0; i < t->nmaps; i++) {
		for (j = frametab_map_hash(&t->maps[i]) & mask;
		    t->maptab[j] != 0; j = (j + 1) & mask)
			;
		t->maptab[j] = i + 1;
	}
}

uint32_t
frametab_map_add(struct frametab *t, const struct frametab_map *m)
{
	struct frametab_map	*o;
	size_t			 j, mask = t->maptabsz - 1;

	for (j = frametab_map_hash(m) & mask; t->maptab[j] != 0;
	    j = (j + 1) & mask) {
		o = &t->maps[t->maptab[j] - 1];
		if (o->file == m->file && o->offset == m->offset &&
		    o->build_id == m->build_id) {
			o->flags |= m->flags;
			return t->maptab[j];
		}
	}
	if (t->nmaps >= FRAMETAB_MAPS_MAX)
		return 0;
	if (t->nmaps == t->mapcap) {
		t->mapcap = t->mapcap ? t->mapcap * 2 : 16;
		t->maps = xreallocarray(t->maps, t->mapcap, sizeof(*t->maps));
	}
	t->maps[t->nmaps] = *m;
	t->maptab[j] = ++t->nmaps;
	if (t->nmaps * 2 > t->maptabsz)
		frametab_map_grow(t);
	return t->nmaps;
}

const struct frametab_map *
frametab_map(const struct frametab *t, uint32_t i)
{
	if (i == 0 || i > t->nmaps)
		return NULL;
	return &t->maps[i - 1];
}

size_t
frametab_nmaps(const struct frametab *t)
{
	return t->nmaps;
}

size_t
frametab_bytes(const struct frametab *t)
{
	return sizeof(*t) + t->loccap * sizeof(*t->locs) +
	    t->tabsz * sizeof(*t->tab) + t->mapcap * sizeof(*t->maps) +
	    t->maptabsz * sizeof(*t->maptab);
}
