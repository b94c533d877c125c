/*
 * V8 as a runtime plug-in (runtime/runtime.h): a process whose
 * executable or libnode carries v8dbg_ symbols the walker can trust is
 * of BPF type V8 while its v8_proc is open; the native walk records its
 * JavaScript frames, named here among its native frames for collect.
 */
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"
#include "v8_int.h"

static void *
v8_runtime_create(const struct runtime_env *env)
{
	return v8_create(env->session, env->conf);
}

static void
v8_runtime_free(void *self)
{
	v8_free(self);
}

/* Enabled or disabled: every process is looked at again. */
static int
v8_runtime_configure(void *self, const struct config *conf)
{
	struct v8	*v = self;
	int		 was = v->enabled;

	v8_configure(v, conf);
	return was != v->enabled;
}

static void *
v8_runtime_open(void *self, pid_t pid, const struct procmaps *maps,
    int *pending)
{
	*pending = 0;
	return v8_proc_open(self, pid, maps);
}

static void
v8_runtime_close(void *self, void *st)
{
	v8_proc_close(self, st);
}

static int
v8_runtime_stack_seen(void *self, void *st, uint64_t id, uint64_t ustack)
{
	return v8_stack_seen(self, st, id);
}

static void
v8_runtime_log_state(void *self)
{
	v8_log_state(self);
}

static int
v8_runtime_stack_merge(void *self, void *st, uint64_t id, size_t n,
    runtime_native_cb native, runtime_frame_cb cb, void *arg)
{
	return v8_stack_merge(self, st, id, n, native, cb, arg);
}

const struct runtime_ops v8_runtime = {
	.name = "v8",
	.pid_type = PROFILE_PID_V8,
	.create = v8_runtime_create,
	.free = v8_runtime_free,
	.configure = v8_runtime_configure,
	.open = v8_runtime_open,
	.close = v8_runtime_close,
	.stack_seen = v8_runtime_stack_seen,
	.log_state = v8_runtime_log_state,
	.stack_merge = v8_runtime_stack_merge,
};
