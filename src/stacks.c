/*
 * The daemon's copy of the BPF stacks map.  Stack ids are hashes of the
 * frames, so a copy never goes stale: it is looked up in the kernel once
 * and reused while the stack keeps being sampled.
 *
 * Lifetime: a stack sampled this round stays in the kernel map (hot
 * stacks are not deleted and walked again).  A stack not sampled this
 * round is deleted from the kernel map, and its copy is kept one more
 * round, for a sample that raced with the delete.  Every 10 rounds the
 * kernel map is swept for ids the daemon does not know (their count was
 * lost to a full counts map).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "bpf/profile.h"
#include "log.h"
#include "session.h"
#include "stacks.h"
#include "xmalloc.h"

#define STACKS_SWEEP_ROUNDS	10

struct stacks_entry {
	uint64_t	 id;		/* 0: empty slot */
	uint64_t	*ip;
	uint32_t	 n;
	uint8_t		 in_bpf;
	uint64_t	 used;		/* round last used */
};

struct stacks {
	int			 fd;	/* the BPF map */
	size_t			 vwords;	/* u64 words of a value */
	size_t			(*len)(const uint64_t *, size_t);
	uint64_t		*buf;	/* one value */
	struct stacks_entry	*v;
	size_t			 size;	/* power of 2 */
	size_t			 count;
	uint64_t		 round;
	struct stacks_stats	 st;
};

/* Native stacks: return addresses up to the first 0. */
static size_t
stacks_native_len(const uint64_t *ip, size_t n)
{
	size_t	 i;

	for (i = 0; i < n && ip[i] != 0; i++)
		;
	return i;
}

struct stacks *
stacks_create(struct session *session)
{
	return stacks_create_map(session_stacks_fd(session),
	    PROFILE_STACK_DEPTH, stacks_native_len);
}

/*
 * A map of other stacks (Python's): values of vwords u64 words, of
 * which len() tells how many to keep.
 */
struct stacks *
stacks_create_map(int fd, size_t vwords,
    size_t (*len)(const uint64_t *, size_t))
{
	struct stacks	*s;

	s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->vwords = vwords;
	s->len = len;
	s->buf = xcalloc(vwords, sizeof(*s->buf));
	s->size = 1024;
	s->v = xcalloc(s->size, sizeof(*s->v));
	s->round = 1;
	return s;
}

void
stacks_free(struct stacks *s)
{
	size_t	 i;

	if (s == NULL)
		return;
	for (i = 0; i < s->size; i++)
		free(s->v[i].ip);
	free(s->v);
	free(s->buf);
	free(s);
}

static struct stacks_entry *
stacks_slot(struct stacks_entry *v, size_t size, uint64_t id)
{
	size_t	 i;

	/* Ids are already well-mixed hashes. */
	for (i = id & (size - 1);; i = (i + 1) & (size - 1)) {
		if (v[i].id == id || v[i].id == 0)
			return &v[i];
	}
}

static void
stacks_grow(struct stacks *s)
{
	struct stacks_entry	*v, *e;
	size_t			 i, size = s->size * 2;

	v = xcalloc(size, sizeof(*v));
	for (i = 0; i < s->size; i++) {
		if (s->v[i].id == 0)
			continue;
		e = stacks_slot(v, size, s->v[i].id);
		*e = s->v[i];
	}
	free(s->v);
	s->v = v;
	s->size = size;
}

/* Remove an entry, re-placing the run of entries after it. */
static void
stacks_remove(struct stacks *s, struct stacks_entry *e)
{
	struct stacks_entry	 tmp, *slot;
	size_t			 i;

	free(e->ip);
	memset(e, 0, sizeof(*e));
	s->count--;
	i = (e - s->v + 1) & (s->size - 1);
	while (s->v[i].id != 0) {
		tmp = s->v[i];
		memset(&s->v[i], 0, sizeof(s->v[i]));
		slot = stacks_slot(s->v, s->size, tmp.id);
		*slot = tmp;
		i = (i + 1) & (s->size - 1);
	}
}

const uint64_t *
stacks_get(struct stacks *s, uint64_t id, size_t *n)
{
	struct stacks_entry	*e;
	size_t			 i;

	*n = 0;
	if (id == 0)
		return NULL;
	e = stacks_slot(s->v, s->size, id);
	if (e->id == id) {
		s->st.hits++;
		e->used = s->round;
		e->in_bpf = 1;	/* sampled again: BPF holds it again */
		*n = e->n;
		return e->ip;
	}
	s->st.misses++;
	if (bpf_map_lookup_elem(s->fd, &id, s->buf) != 0) {
		s->st.lost++;
		return NULL;
	}
	i = s->len(s->buf, s->vwords);
	if (i == 0)
		return NULL;
	if ((s->count + 1) * 2 > s->size) {
		stacks_grow(s);
		e = stacks_slot(s->v, s->size, id);
	}
	e->id = id;
	e->n = i;
	e->ip = xcalloc(i, sizeof(*e->ip));
	memcpy(e->ip, s->buf, i * sizeof(*e->ip));
	e->in_bpf = 1;
	e->used = s->round;
	s->count++;
	*n = e->n;
	return e->ip;
}

static int
stacks_known(struct stacks *s, uint64_t id)
{
	return stacks_slot(s->v, s->size, id)->id == id;
}

/* Delete the kernel's ids the daemon does not know. */
static void
stacks_sweep(struct stacks *s)
{
	uint64_t	 key, next, *dead = NULL;
	size_t		 ndead = 0, i;
	int		 fd = s->fd;
	void		*prev = NULL;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (!stacks_known(s, next)) {
			dead = xreallocarray(dead, ndead + 1, sizeof(*dead));
			dead[ndead++] = next;
		}
		key = next;
		prev = &key;
	}
	for (i = 0; i < ndead; i++) {
		if (bpf_map_delete_elem(fd, &dead[i]) == 0)
			s->st.swept++;
	}
	free(dead);
}

void
stacks_round_end(struct stacks *s)
{
	struct stacks_entry	*e;
	size_t			 i;
	int			 fd = s->fd;

	for (i = 0; i < s->size;) {
		e = &s->v[i];
		if (e->id == 0 || e->used == s->round) {
			i++;
			continue;
		}
		if (e->in_bpf) {
			if (bpf_map_delete_elem(fd, &e->id) == 0)
				s->st.deleted++;
			e->in_bpf = 0;
			i++;
			continue;
		}
		if (e->used + 1 < s->round) {
			/* Removal shifts entries into slot i: look again. */
			stacks_remove(s, e);
			continue;
		}
		i++;
	}
	if (s->round % STACKS_SWEEP_ROUNDS == 0)
		stacks_sweep(s);
	s->round++;
}

void
stacks_stats(struct stacks *s, struct stacks_stats *st)
{
	size_t	 i;

	*st = s->st;
	st->entries = s->count;
	st->bytes = s->size * sizeof(*s->v);
	for (i = 0; i < s->size; i++)
		st->bytes += s->v[i].n * sizeof(*s->v[i].ip);
}
