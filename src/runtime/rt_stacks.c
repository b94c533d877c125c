/*
 * Stacks of runtime frame records by id (rt_stacks.h): an open
 * addressing table that doubles, and empties itself (and the BPF
 * copies) when a process has more stacks than RT_STACKS_MAX -- the
 * walker then stores and announces them again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_stacks.h"
#include "session/session.h"
#include "util/hash.h"
#include "util/intern.h"
#include "util/xmalloc.h"

#define RT_STACKS_MAX	(64 * 1024)	/* per process */

static uint64_t
rt_stacks_id(const struct rt_stacks *t, size_t i)
{
	uint64_t	 id;

	memcpy(&id, t->v + i * t->elsize, sizeof(id));
	return id;
}

/* The slot of id: its entry, or the free slot it would take. */
static size_t
rt_stacks_slot(const struct rt_stacks *t, uint64_t id)
{
	size_t	 i = hash_mix(id) & (t->size - 1);
	uint64_t cur;

	while ((cur = rt_stacks_id(t, i)) != 0 && cur != id)
		i = (i + 1) & (t->size - 1);
	return i;
}

void *
rt_stacks_find(const struct rt_stacks *t, uint64_t id)
{
	size_t	 i;

	if (t->size == 0 || id == 0)
		return NULL;
	i = rt_stacks_slot(t, id);
	return rt_stacks_id(t, i) == id ? t->v + i * t->elsize : NULL;
}

void
rt_stacks_free(struct rt_stacks *t, struct session *session,
    void (*clear)(void *))
{
	size_t	 i;
	uint64_t id;

	for (i = 0; i < t->size; i++) {
		if ((id = rt_stacks_id(t, i)) == 0)
			continue;
		if (session != NULL)
			(void)session_rtstack_delete(session, id);
		clear(t->v + i * t->elsize);
	}
	free(t->v);
	t->v = NULL;
	t->size = t->n = 0;
	intern_free(t->names);
	t->names = NULL;
}

/* Room for one more: the table doubled, or emptied when full. */
static void
rt_stacks_room(struct rt_stacks *t, struct session *session,
    void (*clear)(void *))
{
	unsigned char	*old;
	size_t		 i, size;
	uint64_t	 id;

	if (2 * (t->n + 1) <= t->size)
		return;
	if (t->n >= RT_STACKS_MAX)
		rt_stacks_free(t, session, clear);
	old = t->v;
	size = t->size;
	t->size = size == 0 ? 64 : 2 * size;
	t->v = xcalloc(t->size, t->elsize);
	for (i = 0; i < size; i++) {
		memcpy(&id, old + i * t->elsize, sizeof(id));
		if (id != 0)
			memcpy(t->v + rt_stacks_slot(t, id) * t->elsize,
			    old + i * t->elsize, t->elsize);
	}
	free(old);
}

void *
rt_stacks_add(struct rt_stacks *t, struct session *session, uint64_t id,
    size_t elsize, void (*clear)(void *))
{
	unsigned char	*e;
	size_t		 i;

	if (id == 0)
		return NULL;
	if (t->elsize == 0)
		t->elsize = elsize;
	rt_stacks_room(t, session, clear);
	if (t->names == NULL)
		t->names = intern_create();
	i = rt_stacks_slot(t, id);
	if (rt_stacks_id(t, i) == id)
		return NULL;
	e = t->v + i * t->elsize;
	memset(e, 0, t->elsize);
	memcpy(e, &id, sizeof(id));
	t->n++;
	return e;
}
