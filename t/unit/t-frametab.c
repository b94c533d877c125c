/*
 * frametab: a location is the same id for the same name, mapping,
 * address, source file and flags, whatever line comes after the first
 * (a frame of no address); a mapping is the
 * same for the same file, offset and build id, its flags the union of
 * what was given; both grow past their first tables and clear.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "profile/frametab.h"
#include "tap.h"

static uint32_t
map(struct frametab *t, uint32_t file, uint64_t off, uint32_t id,
    uint32_t flags)
{
	struct frametab_map	 m;

	memset(&m, 0, sizeof(m));
	m.start = off;
	m.limit = off + 0x1000;
	m.offset = off;
	m.file = file;
	m.build_id = id;
	m.flags = flags;
	return frametab_map_add(t, &m);
}

static uint32_t
loc(struct frametab *t, uint32_t name, uint32_t m, uint32_t file,
    int64_t line, uint64_t addr)
{
	struct frametab_frame	 f;

	memset(&f, 0, sizeof(f));
	f.map = m;
	f.file = file;
	f.line = line;
	f.addr = addr;
	return frametab_loc_add(t, name, &f);
}

int
main(void)
{
	struct frametab			*t;
	const struct frametab_loc	*l;
	uint32_t			 a, b, ids[5000];
	size_t				 i;
	int				 good;

	t = frametab_create();
	a = map(t, 1, 0x1000, 2, 0);
	ok(a == 1, "the first mapping is number 1");
	ok(map(t, 1, 0x1000, 2, FRAMETAB_MAP_FUNCTIONS) == a &&
	    (frametab_map(t, a)->flags & FRAMETAB_MAP_FUNCTIONS),
	    "the same file, offset and build id: the same, flags added");
	ok(map(t, 1, 0x2000, 2, 0) != a, "another offset: another mapping");
	ok(map(t, 1, 0x1000, 3, 0) != a, "another build id: another one");
	ok(frametab_map(t, 0) == NULL && frametab_map(t, 99) == NULL,
	    "numbers not given out: none");

	b = loc(t, 10, a, 0, 0, 0x1234);
	ok(loc(t, 10, a, 0, 0, 0x1234) == b,
	    "a name at an address of a mapping: one");
	ok(loc(t, 10, a, 0, 0, 0x5678) != b,
	    "the name at another address: another");
	l = frametab_loc(t, b);
	ok(l != NULL && l->name == 10 && l->f.addr == 0x1234,
	    "its details");
	ok(loc(t, 12, 0, 7, 3, 0) == loc(t, 12, 0, 7, 9, 0) &&
	    frametab_loc(t, loc(t, 12, 0, 7, 9, 0))->f.line == 3,
	    "no address: one per name and file, its first line stays");
	ok(loc(t, 10, 0, 0, 0, 0) != b, "the name in no mapping: another");
	ok(loc(t, 10, a, 7, 3, 0) != b, "in another source file: another");
	ok(frametab_loc_add(t, 11, NULL) == frametab_loc_add(t, 11, NULL),
	    "a name without details: one location");
	ok(frametab_loc(t, 100000) == NULL, "an id not given out: none");

	/* Past the first tables: every id still found, none moved. */
	for (i = 0; i < 5000; i++)
		ids[i] = loc(t, 1000 + i, map(t, 5, 0x1000 * (i % 300), 0, 0),
		    0, 0, i);
	good = frametab_nmaps(t) == 3 + 300;
	for (i = 0; i < 5000; i++)
		if (loc(t, 1000 + i, map(t, 5, 0x1000 * (i % 300), 0, 0), 0,
		    0, i) != ids[i] || frametab_loc(t, ids[i])->f.addr != i)
			good = 0;
	ok(good, "5,000 locations in 300 mappings, all found again");
	ok(frametab_bytes(t) > 5000 * sizeof(struct frametab_loc),
	    "their memory counted");

	frametab_clear(t);
	ok(frametab_nlocs(t) == 0 && frametab_nmaps(t) == 0 &&
	    frametab_loc(t, 0) == NULL, "cleared: nothing left");
	ok(map(t, 1, 0x1000, 2, 0) == 1 && frametab_loc_add(t, 10, NULL) == 0,
	    "numbers start again");
	frametab_free(t);
	frametab_free(NULL);
	return done_testing();
}
