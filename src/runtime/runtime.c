/*
 * The registry of runtime plug-ins (runtime.h says how one plugs in):
 * the daemon's table of hooks, each with what its create made, in the
 * order the daemon gave.  pids calls the hooks; this file only keeps
 * them, and names a runtime's stacks for collect.
 */
#include <sys/types.h>

#include <stdlib.h>

#include "runtime.h"
#include "util/log.h"
#include "util/xmalloc.h"

struct runtimes {
	const struct runtime_ops	*ops[RUNTIME_MAX];
	void				*self[RUNTIME_MAX];
	size_t				 n;
};

struct runtimes *
runtimes_create(const struct runtime_ops *const *table, size_t n,
    const struct runtime_env *env)
{
	struct runtimes	*rts;
	size_t		 i;

	if (n > RUNTIME_MAX)
		fatalx("%zu runtimes, at most %d", n, RUNTIME_MAX);
	rts = xcalloc(1, sizeof(*rts));
	for (i = 0; i < n; i++) {
		rts->ops[i] = table[i];
		/* NULL is theirs to handle: a runtime that is off. */
		if (table[i]->create != NULL)
			rts->self[i] = table[i]->create(env);
	}
	rts->n = n;
	return rts;
}

void
runtimes_free(struct runtimes *rts)
{
	size_t	 i;

	if (rts == NULL)
		return;
	for (i = rts->n; i-- > 0;) {
		if (rts->ops[i]->free != NULL)
			rts->ops[i]->free(rts->self[i]);
	}
	free(rts);
}

size_t
runtimes_count(const struct runtimes *rts)
{
	return rts == NULL ? 0 : rts->n;
}

const struct runtime_ops *
runtimes_ops(const struct runtimes *rts, size_t i)
{
	return rts->ops[i];
}

void *
runtimes_self(const struct runtimes *rts, size_t i)
{
	return rts->self[i];
}

void *
runtimes_find(const struct runtimes *rts, const struct runtime_ops *ops)
{
	size_t	 i;

	for (i = 0; i < runtimes_count(rts); i++) {
		if (rts->ops[i] == ops)
			return rts->self[i];
	}
	return NULL;
}

int
runtimes_is_pid_type(const struct runtimes *rts, int type)
{
	size_t	 i;

	for (i = 0; i < runtimes_count(rts); i++) {
		if (rts->ops[i]->pid_type != 0 &&
		    rts->ops[i]->pid_type == type)
			return 1;
	}
	return 0;
}

int
runtime_stack_names(const struct runtime_proc *rp, uint64_t id,
    runtime_frame_cb cb, void *arg)
{
	if (rp->ops == NULL || rp->ops->stack_names == NULL)
		return -1;
	return rp->ops->stack_names(rp->self, rp->st, id, cb, arg);
}

/* None without the process's state: its maps tell where the runtime is. */
size_t
runtime_native_above(const struct runtime_proc *rp, const uint64_t *ip,
    size_t n)
{
	if (rp->ops == NULL || rp->ops->native_above == NULL || rp->st == NULL)
		return 0;
	return rp->ops->native_above(rp->self, rp->st, ip, n);
}

int
runtime_stack_merge(const struct runtime_proc *rp, uint64_t id, size_t n,
    runtime_native_cb native, runtime_frame_cb cb, void *arg)
{
	if (rp->ops == NULL || rp->ops->stack_merge == NULL || rp->st == NULL)
		return -1;
	return rp->ops->stack_merge(rp->self, rp->st, id, n, native, cb, arg);
}
