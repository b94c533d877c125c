/*
 * The unwind tables as a runtime plug-in (runtime/runtime.h): every
 * profiled process has its mappings in BPF while its state is open;
 * each read of its maps updates them.  At its exit they go at once
 * (forget): nothing names a sample with them.
 */
#include <sys/types.h>

#include <stddef.h>

#include "session/session.h"
#include "unwind_maps.h"

static void *
unwind_runtime_create(const struct runtime_env *env)
{
	return unwind_maps_create(env->loop, session_unwind(env->session),
	    env->conf);
}

static void
unwind_runtime_free(void *self)
{
	unwind_maps_free(self);
}

/* Mode and debug dirs: for the tables built from now on. */
static int
unwind_runtime_configure(void *self, const struct config *conf)
{
	unwind_maps_configure(self, conf);
	return 0;
}

static void *
unwind_runtime_open(void *self, pid_t pid, const struct procmaps *maps,
    int *pending)
{
	*pending = 0;
	return unwind_maps_proc(self, NULL, pid, maps);
}

static void *
unwind_runtime_again(void *self, void *st, pid_t pid,
    const struct procmaps *maps, enum runtime_again why)
{
	/* The walker asked: unwind_maps_proc answers it. */
	if (why == RUNTIME_AGAIN_WALKER)
		unwind_maps_proc_asked(st);
	return unwind_maps_proc(self, st, pid, maps);
}

static void
unwind_runtime_close(void *self, void *st)
{
	unwind_maps_proc_close(self, st);
}

static void *
unwind_runtime_forget(void *self, void *st)
{
	unwind_maps_proc_close(self, st);
	return NULL;
}

static void
unwind_runtime_log_state(void *self)
{
	unwind_maps_log_state(self);
}

const struct runtime_ops unwind_runtime = {
	.name = "unwind",
	.create = unwind_runtime_create,
	.free = unwind_runtime_free,
	.configure = unwind_runtime_configure,
	.open = unwind_runtime_open,
	.again = unwind_runtime_again,
	.forget = unwind_runtime_forget,
	.close = unwind_runtime_close,
	.log_state = unwind_runtime_log_state,
};
