/*
 * CPython as a runtime plug-in (runtime/runtime.h): a process that maps
 * an interpreter the walker can walk is of BPF type PYTHON while its
 * python_proc is open; its Python stacks are named here for collect.
 * Its state outlives its exit (no forget hook): its last samples are
 * named with its code objects.
 */
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"
#include "python.h"

static void *
python_runtime_create(const struct runtime_env *env)
{
	return python_create(env->session, env->conf);
}

static void
python_runtime_free(void *self)
{
	python_free(self);
}

/* Enabled or disabled: every process is looked at again. */
static int
python_runtime_configure(void *self, const struct config *conf)
{
	int	 was = python_is_enabled(self);

	python_configure(self, conf);
	return was != python_is_enabled(self);
}

static void *
python_runtime_open(void *self, pid_t pid, const struct procmaps *maps,
    int *pending)
{
	return python_proc_open(self, pid, maps, pending);
}

/* Another read of its maps: python_proc_native_above looks in them. */
static void *
python_runtime_again(void *self, void *st, pid_t pid,
    const struct procmaps *maps, enum runtime_again why)
{
	python_proc_maps_update(st, maps);
	return st;
}

static void
python_runtime_close(void *self, void *st)
{
	python_proc_close(self, st);
}

static int
python_runtime_stack_seen(void *self, void *st, uint64_t id, uint64_t ustack)
{
	return python_proc_stack_seen(self, st, id, ustack);
}

static void
python_runtime_round_end(void *self)
{
	python_round_end(self);
}

static void
python_runtime_log_state(void *self)
{
	python_log_state(self);
}

static int
python_runtime_stack_names(void *self, void *st, uint64_t id,
    runtime_frame_cb cb, void *arg)
{
	return python_stack_names(self, st, id, cb, arg);
}

static size_t
python_runtime_native_above(void *self, void *st, const uint64_t *ip,
    size_t n)
{
	return python_proc_native_above(self, st, ip, n);
}

const struct runtime_ops python_runtime = {
	.name = "python",
	.pid_type = PROFILE_PID_PYTHON,
	.create = python_runtime_create,
	.free = python_runtime_free,
	.configure = python_runtime_configure,
	.open = python_runtime_open,
	.again = python_runtime_again,
	.close = python_runtime_close,
	.stack_seen = python_runtime_stack_seen,
	.round_end = python_runtime_round_end,
	.log_state = python_runtime_log_state,
	.stack_names = python_runtime_stack_names,
	.native_above = python_runtime_native_above,
};
