/*
 * The session's maps, for the rest of the daemon: the counts drained
 * each round, the off-CPU waits in flight, the pid config map that
 * src/round/pids.c answers through, the Python maps of src/python/python.c, the
 * thread names, and the sizes the state dump shows.  Nothing outside
 * the session holds a map's fd.
 */
#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/profile.skel.h"
#include "util/log.h"
#include "session.h"
#include "session_int.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define SESSION_MAPS_BATCH	4096

void
session_maps_close(struct session *s)
{
	free(s->keys);
	free(s->vals);
	s->keys = NULL;
	s->vals = NULL;
	s->cap = s->n = 0;
}

int
session_maps_pid_set(struct session *s, pid_t pid,
    const struct profile_pid_config *cfg)
{
	__u32	 key = pid;

	/*
	 * Only over an entry BPF made (a placeholder, an exec): one that
	 * BPF deleted at the process's exit, before we got here, stays
	 * deleted (ENOENT).
	 */
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.pid_config), &key,
	    cfg, BPF_EXIST) != 0)
		return -1;
	return 0;
}

int
session_maps_pid_delete(struct session *s, pid_t pid)
{
	__u32	 key = pid;

	if (bpf_map_delete_elem(bpf_map__fd(s->skel->maps.pid_config),
	    &key) != 0)
		return -1;
	return 0;
}

int
session_maps_pid_get(struct session *s, pid_t pid,
    struct profile_pid_config *cfg)
{
	__u32	 key = pid;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.pid_config), &key,
	    cfg) != 0)
		return -1;
	return 0;
}

pid_t *
session_maps_pid_keys(struct session *s, size_t *n)
{
	__u32	 key, next;
	void	*prev = NULL;
	pid_t	*v = NULL;
	size_t	 cap = 0;
	int	 fd = bpf_map__fd(s->skel->maps.pid_config);

	*n = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[(*n)++] = next;
		key = next;
		prev = &key;
	}
	return v;
}

static void
session_maps_reserve(struct session *s, size_t more)
{
	if (s->cap == 0)
		s->cap = SESSION_MAPS_BATCH;
	while (s->n + more > s->cap)
		s->cap *= 2;
	s->keys = xreallocarray(s->keys, s->cap, sizeof(*s->keys));
	s->vals = xreallocarray(s->vals, s->cap, sizeof(*s->vals));
}

/* Where the kernel has no batch operations: one entry at a time. */
static void
session_maps_drain_iter(struct session *s, int fd)
{
	struct profile_key	 key, next;
	void			*prev = NULL;
	size_t			 i;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (s->n == s->cap)
			session_maps_reserve(s, 1);
		if (bpf_map_lookup_elem(fd, &next, &s->vals[s->n]) == 0) {
			s->keys[s->n] = next;
			s->n++;
		}
		key = next;
		prev = &key;
	}
	for (i = 0; i < s->n; i++)
		bpf_map_delete_elem(fd, &s->keys[i]);
}

static void
session_maps_drain(struct session *s)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct profile_key	 in, out;
	__u32			 count;
	int			 fd = bpf_map__fd(s->skel->maps.counts), err;
	int			 first = 1;

	s->n = 0;
	if (s->counts_no_batch) {
		session_maps_drain_iter(s, fd);
		return;
	}
	for (;;) {
		if (s->n + SESSION_MAPS_BATCH > s->cap)
			session_maps_reserve(s, SESSION_MAPS_BATCH);
		count = SESSION_MAPS_BATCH;
		err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in,
		    &out, s->keys + s->n, s->vals + s->n, &count, &opts);
		if (err != 0 && errno != ENOENT && errno != ENOSPC) {
			if (first && (errno == EINVAL || errno == ENOTSUP ||
			    errno == EOPNOTSUPP)) {
				log_info("no batch map operations: iterating");
				s->counts_no_batch = 1;
				session_maps_drain_iter(s, fd);
				return;
			}
			log_warn("drain counts map");
			return;
		}
		s->n += count;
		if (err != 0 && errno == ENOENT)
			return;
		if (err != 0 && errno == ENOSPC && count == 0) {
			/* A bucket holds more than a batch: unlikely. */
			log_warnx("drain counts map: bucket over batch size");
			return;
		}
		in = out;
		first = 0;
	}
}

size_t
session_maps_counts_drain(struct session *s, const struct profile_key **keys,
    const uint64_t **vals)
{
	session_maps_drain(s);
	*keys = s->keys;
	*vals = s->vals;
	return s->n;
}

/*
 * Threads still blocked count up to now: their start stays in the
 * kernel map, their time is added to the counts drained.
 */
size_t
session_maps_offcpu_inflight(struct session *s, uint64_t min_ns,
    uint64_t max_ns, const struct profile_key **keys, const uint64_t **vals)
{
	struct profile_offcpu_start	 st;
	__u32				 key, next;
	void				*prev = NULL;
	int64_t				 now;
	int				 fd;
	uint64_t			 delta;

	fd = bpf_map__fd(s->skel->maps.offcpu_start);
	now = clock_ns(CLOCK_MONOTONIC);
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		/* ts 0: the thread is not blocked (bpf/profile.bpf.c). */
		if (bpf_map_lookup_elem(fd, &next, &st) != 0 || st.ts == 0 ||
		    (int64_t)st.ts > now)
			continue;
		delta = now - st.ts;
		if (delta < min_ns || (max_ns != 0 && delta > max_ns))
			continue;
		if (s->n == s->cap)
			session_maps_reserve(s, 1);
		memset(&s->keys[s->n], 0, sizeof(s->keys[s->n]));
		s->keys[s->n].pid = st.pid;
		s->keys[s->n].kstack = st.kstack;
		s->keys[s->n].ustack = st.ustack;
		s->keys[s->n].pystack = st.pystack;
		s->keys[s->n].kind = st.pending ?
		    PROFILE_KIND_OFFCPU_PENDING : PROFILE_KIND_OFFCPU;
		s->vals[s->n] = delta;
		s->n++;
	}
	*keys = s->keys;
	*vals = s->vals;
	return s->n;
}

/*
 * Waits recorded before off-CPU profiling was last switched off: their
 * threads may have run since, unseen, and would be counted from then.
 */
void
session_maps_offcpu_forget(struct session *s)
{
	__u32	 key;
	int	 fd = bpf_map__fd(s->skel->maps.offcpu_start);

	while (bpf_map_get_next_key(fd, NULL, &key) == 0)
		if (bpf_map_delete_elem(fd, &key) != 0)
			break;
}

int
session_maps_thread_comm(struct session *s, pid_t tid, char *buf, size_t len)
{
	char	 comm[PROFILE_COMM_LEN];
	__u32	 key = tid;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.thread_comm), &key,
	    comm) != 0)
		return -1;
	comm[sizeof(comm) - 1] = '\0';
	snprintf(buf, len, "%s", comm);
	return 0;
}

int
session_maps_pyinfo_set(struct session *s, pid_t pid,
    const struct profile_py_info *pi)
{
	__u32	 key = pid;

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.py_info), &key, pi,
	    BPF_ANY) != 0)
		return -1;
	return 0;
}

int
session_maps_pyinfo_get(struct session *s, pid_t pid,
    struct profile_py_info *pi)
{
	__u32	 key = pid;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.py_info), &key,
	    pi) != 0)
		return -1;
	return 0;
}

int
session_maps_pyinfo_delete(struct session *s, pid_t pid)
{
	__u32	 key = pid;

	if (bpf_map_delete_elem(bpf_map__fd(s->skel->maps.py_info),
	    &key) != 0)
		return -1;
	return 0;
}

int
session_maps_pystack_read(struct session *s, uint64_t id,
    struct profile_pystack *st)
{
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.pystacks), &id,
	    st) != 0)
		return -1;
	return 0;
}

/* The pid maps of the runtimes' layouts: one update and delete. */
static int
session_maps_layout_set(int fd, pid_t pid, const void *v)
{
	__u32	 key = pid;

	return bpf_map_update_elem(fd, &key, v, BPF_ANY) != 0 ? -1 : 0;
}

static int
session_maps_layout_delete(int fd, pid_t pid)
{
	__u32	 key = pid;

	return bpf_map_delete_elem(fd, &key) != 0 ? -1 : 0;
}

int
session_maps_v8info_set(struct session *s, pid_t pid,
    const struct profile_v8_info *vi)
{
	return session_maps_layout_set(bpf_map__fd(s->skel->maps.v8_info), pid,
	    vi);
}

int
session_maps_v8info_delete(struct session *s, pid_t pid)
{
	return session_maps_layout_delete(bpf_map__fd(s->skel->maps.v8_info),
	    pid);
}

int
session_maps_jvminfo_set(struct session *s, pid_t pid,
    const struct profile_jvm_info *ji)
{
	return session_maps_layout_set(bpf_map__fd(s->skel->maps.jvm_info), pid,
	    ji);
}

int
session_maps_jvminfo_delete(struct session *s, pid_t pid)
{
	return session_maps_layout_delete(bpf_map__fd(s->skel->maps.jvm_info),
	    pid);
}

int
session_maps_rtstack_read(struct session *s, uint64_t id,
    struct profile_rtstack *st)
{
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.rtstacks), &id,
	    st) != 0)
		return -1;
	return 0;
}

int
session_maps_rtstack_delete(struct session *s, uint64_t id)
{
	if (bpf_map_delete_elem(bpf_map__fd(s->skel->maps.rtstacks),
	    &id) != 0)
		return -1;
	return 0;
}

/*
 * Entries of a hash map, walked key by key.  A walk that races with
 * deletes may see a key twice, so it stops at max.
 */
_Static_assert(sizeof(struct profile_key) <= 64, "a key fits the buffer");

long long
session_maps_entries(struct session *s, enum session_map which, long long max)
{
	uint64_t	 key[8], next[8];	/* any of our key types */
	void		*prev = NULL;
	long long	 n = 0;
	int		 fd;

	switch (which) {
	case SESSION_MAP_PID_CONFIG:
		fd = bpf_map__fd(s->skel->maps.pid_config);
		break;
	case SESSION_MAP_COUNTS:
		fd = bpf_map__fd(s->skel->maps.counts);
		break;
	case SESSION_MAP_OFFCPU_START:
		fd = bpf_map__fd(s->skel->maps.offcpu_start);
		break;
	default:
		return -1;
	}
	if (fd < 0)
		return -1;
	while (n < max && bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, sizeof(key));
		prev = key;
		n++;
	}
	return n;
}

void
session_maps_percpu_sum(int fd, int npossible, uint64_t *sums, uint32_t n)
{
	uint64_t	*v;
	__u32		 i;
	int		 c;

	memset(sums, 0, n * sizeof(*sums));
	v = xcalloc(npossible, sizeof(*v));
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(fd, &i, v) != 0)
			continue;
		for (c = 0; c < npossible; c++)
			sums[i] += v[c];
	}
	free(v);
}
