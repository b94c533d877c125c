/*
 * The table of a process's runtime stacks by id (runtime/rt_stacks.c):
 * every stack added is found with what it holds, across the table's
 * growth; an id kept already is not added twice; past its bound the
 * table empties itself, clearing each entry, and goes on.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_stacks.h"
#include "tap.h"

struct entry {
	uint64_t	 id;
	uint64_t	 twice;
	char		*held;
};

static size_t	 cleared;

static void
entry_clear(void *arg)
{
	struct entry	*e = arg;

	free(e->held);
	cleared++;
}

int
main(void)
{
	struct rt_stacks	 t;
	struct entry		*e;
	uint64_t		 id;
	size_t			 bad = 0;

	memset(&t, 0, sizeof(t));
	ok(rt_stacks_find(&t, 7) == NULL, "an empty table finds nothing");
	for (id = 1; id <= 50000; id++) {
		e = rt_stacks_add(&t, NULL, id * 0x9e3779b97f4a7c15ULL,
		    sizeof(*e), entry_clear);
		if (e == NULL || e->twice != 0 || e->held != NULL) {
			bad++;
			continue;
		}
		e->twice = 2 * id;
		e->held = strdup("x");
	}
	is_int(bad, 0, "50000 ids added, each a zeroed entry");
	for (id = 1; id <= 50000; id++) {
		e = rt_stacks_find(&t, id * 0x9e3779b97f4a7c15ULL);
		if (e == NULL || e->twice != 2 * id)
			bad++;
	}
	is_int(bad, 0, "each found with what it holds, after growing");
	ok(rt_stacks_find(&t, 3) == NULL, "an id never added is not found");
	ok(rt_stacks_add(&t, NULL, 0x9e3779b97f4a7c15ULL, sizeof(*e),
	    entry_clear) == NULL, "an id kept is not added again");
	ok(rt_stacks_add(&t, NULL, 0, sizeof(*e), entry_clear) == NULL,
	    "id 0 is no stack");
	for (id = 50001; id <= 70000; id++)
		if ((e = rt_stacks_add(&t, NULL, id, sizeof(*e),
		    entry_clear)) != NULL)
			e->twice = 2 * id;
	ok(cleared >= 50000, "past its bound the table emptied itself "
	    "(%zu entries cleared)", cleared);
	ok(t.n < 65536 && rt_stacks_find(&t, 70000) != NULL &&
	    rt_stacks_find(&t, 1 * 0x9e3779b97f4a7c15ULL) == NULL,
	    "and went on: the newest found, the oldest gone (%zu kept)", t.n);
	rt_stacks_free(&t, NULL, entry_clear);
	ok(t.n == 0 && t.v == NULL && rt_stacks_find(&t, 70000) == NULL,
	    "freed: empty");
	return done_testing();
}
