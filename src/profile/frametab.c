/*
 * The pprof details of names: an array indexed by name id (names are
 * dense small ids), and the mappings, few, in a list searched from its
 * end (a process's frames come in runs of one file).  A mapping's
 * flags are the union of what its frames were given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frametab.h"
#include "util/xmalloc.h"

/* Past this many mappings, frames get none (their names stay). */
#define FRAMETAB_MAPS_MAX	65536

struct frametab {
	struct frametab_frame	*v;		/* by name id */
	uint8_t			*set;
	size_t			 cap;
	struct frametab_map	*maps;
	size_t			 nmaps, mapcap;
};

struct frametab *
frametab_create(void)
{
	return xcalloc(1, sizeof(struct frametab));
}

void
frametab_free(struct frametab *t)
{
	if (t == NULL)
		return;
	free(t->v);
	free(t->set);
	free(t->maps);
	free(t);
}

void
frametab_clear(struct frametab *t)
{
	if (t->set != NULL)
		memset(t->set, 0, t->cap);
	t->nmaps = 0;
}

int
frametab_set(struct frametab *t, uint32_t id, const struct frametab_frame *f)
{
	size_t	 cap;

	if (id >= t->cap) {
		for (cap = t->cap ? t->cap : 1024; cap <= id; cap *= 2)
			;
		t->v = xreallocarray(t->v, cap, sizeof(*t->v));
		t->set = xreallocarray(t->set, cap, 1);
		memset(t->set + t->cap, 0, cap - t->cap);
		t->cap = cap;
	}
	if (t->set[id])
		return 0;
	t->v[id] = *f;
	t->set[id] = 1;
	return 1;
}

const struct frametab_frame *
frametab_get(const struct frametab *t, uint32_t id)
{
	if (id >= t->cap || !t->set[id])
		return NULL;
	return &t->v[id];
}

uint32_t
frametab_map_add(struct frametab *t, const struct frametab_map *m)
{
	struct frametab_map	*o;
	size_t			 i;

	for (i = t->nmaps; i-- > 0;) {
		o = &t->maps[i];
		if (o->file == m->file && o->offset == m->offset &&
		    o->build_id == m->build_id) {
			o->flags |= m->flags;
			return i + 1;
		}
	}
	if (t->nmaps >= FRAMETAB_MAPS_MAX)
		return 0;
	if (t->nmaps == t->mapcap) {
		t->mapcap = t->mapcap ? t->mapcap * 2 : 16;
		t->maps = xreallocarray(t->maps, t->mapcap, sizeof(*t->maps));
	}
	t->maps[t->nmaps] = *m;
	return ++t->nmaps;
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
	return sizeof(*t) + t->cap * (sizeof(*t->v) + 1) +
	    t->mapcap * sizeof(*t->maps);
}
