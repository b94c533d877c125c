/*
 * The session's stack store: a copy of every native stack the stack
 * ring brings (src/session/stacks.c keeps them, and says for how long), and
 * the map of Python stacks as a store of them reads it.
 *
 * Stack ids are hashes of the frames, so a copy never goes stale.  BPF
 * sends a stack once a generation (bpf/profile.bpf.c), before the
 * sample's count is added and before an event that names it; the
 * daemon starts a generation at each round's start.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/profile.skel.h"
#include "util/log.h"
#include "session.h"
#include "session_int.h"
#include "stacks.h"

#define SESSION_STACKS_DELETE_BATCH	4096

static int	 session_stacks_py_lookup(void *, uint64_t, uint64_t *);
static size_t	 session_stacks_py_delete(void *, const uint64_t *, size_t);
static int	 session_stacks_py_next_key(void *, const uint64_t *,
		    uint64_t *);

void
session_stacks_open(struct session *s)
{
	s->stacks = stacks_create();
	s->pystacks.lookup = session_stacks_py_lookup;
	s->pystacks.delete = session_stacks_py_delete;
	s->pystacks.next_key = session_stacks_py_next_key;
	s->pystacks.arg = s;
	s->stack_seen_size = bpf_map__max_entries(s->skel->maps.stack_seen);
	session_stack_gen_next(s);
}

void
session_stacks_close(struct session *s)
{
	stacks_free(s->stacks);
	s->stacks = NULL;
}

/* A record of the stack ring: its id, n and the n frames walked. */
int
session_stacks_rb_cb(void *ctx, void *data, size_t len)
{
	struct session			*s = ctx;
	const struct profile_stack_rec	*rec = data;

	if (len < offsetof(struct profile_stack_rec, ip) ||
	    rec->n == 0 || rec->n > PROFILE_STACK_DEPTH ||
	    len < offsetof(struct profile_stack_rec, ip) +
	    rec->n * sizeof(rec->ip[0]))
		return 0;
	stacks_add(s->stacks, rec->id, (const uint64_t *)rec->ip, rec->n);
	return 0;
}

/*
 * A new generation: every stack sampled from now on is sent again
 * (bpf/profile.bpf.c), once.  Through the mapped .bss, no system call.
 * The tags hold the low 16 bits of it, never 0: when they come round
 * again, tags of 65535 rounds ago would say "sent" of a stack not sent
 * for so long, so the table is emptied then.
 */
void
session_stacks_gen_next(struct session *s)
{
	__u64	 zero = 0;
	__u32	 i;
	int	 fd;

	s->stack_gen++;
	if ((s->stack_gen & PROFILE_STACK_GEN_MASK) == 0) {
		fd = bpf_map__fd(s->skel->maps.stack_seen);
		for (i = 0; i < s->stack_seen_size; i++) {
			if (bpf_map_update_elem(fd, &i, &zero, BPF_ANY) != 0) {
				log_warn("clear stack_seen");
				break;
			}
		}
		s->stack_gen++;
	}
	s->skel->bss->stack_gen = s->stack_gen;
}

const uint64_t *
session_stacks_get(struct session *s, uint64_t id, size_t *n)
{
	return stacks_get(s->stacks, id, n);
}

void
session_stacks_touch(struct session *s, uint64_t id)
{
	stacks_touch(s->stacks, id);
}

/*
 * A native stack for whoever looks at one outside a round (an exec's
 * first sample, a new Python stack): peeked at, so that looking keeps
 * no stack longer.
 */
int
session_stacks_lookup(struct session *s, uint64_t id, struct profile_stack *st)
{
	const uint64_t	*ip;
	size_t		 n;

	memset(st, 0, sizeof(*st));
	if ((ip = stacks_peek(s->stacks, id, &n)) == NULL)
		return -1;
	if (n > PROFILE_STACK_DEPTH)
		n = PROFILE_STACK_DEPTH;
	memcpy(st->ip, ip, n * sizeof(*ip));
	return 0;
}

void
session_stacks_end_round(struct session *s)
{
	stacks_round_end(s->stacks);
}

void
session_stacks_read_stats(struct session *s, struct stacks_stats *st)
{
	stacks_stats(s->stacks, st);
}

const struct stacks_map *
session_stacks_pymap(struct session *s)
{
	return &s->pystacks;
}

static int
session_stacks_py_lookup(void *arg, uint64_t id, uint64_t *buf)
{
	struct session	*s = arg;

	return bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.pystacks), &id,
	    buf) == 0 ? 0 : -1;
}

/*
 * Delete ids from the map, a batch per system call where the kernel
 * has them: a round can leave tens of thousands unused.  How many were
 * deleted.
 */
static size_t
session_stacks_py_delete(void *arg, const uint64_t *ids, size_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct session	*s = arg;
	size_t		 i = 0, deleted = 0;
	__u32		 count;
	int		 fd = bpf_map__fd(s->skel->maps.pystacks);

	while (!s->stacks_no_batch && i < n) {
		count = n - i > SESSION_STACKS_DELETE_BATCH ?
		    SESSION_STACKS_DELETE_BATCH : n - i;
		if (bpf_map_delete_batch(fd, ids + i, &count, &opts) == 0) {
			i += count;
			deleted += count;
			continue;
		}
		if (errno == EINVAL || errno == ENOTSUP ||
		    errno == EOPNOTSUPP) {
			log_info("no batch map operations: deleting stacks "
			    "one by one");
			s->stacks_no_batch = 1;
			break;
		}
		/*
		 * ENOENT: an id BPF no longer holds stopped the batch after
		 * count deletes.  Skip it and go on.
		 */
		i += count + 1;
		deleted += count;
	}
	for (; i < n; i++) {
		if (bpf_map_delete_elem(fd, &ids[i]) == 0)
			deleted++;
	}
	return deleted;
}

static int
session_stacks_py_next_key(void *arg, const uint64_t *prev, uint64_t *next)
{
	struct session	*s = arg;

	return bpf_map_get_next_key(bpf_map__fd(s->skel->maps.pystacks), prev,
	    next) == 0 ? 0 : -1;
}
