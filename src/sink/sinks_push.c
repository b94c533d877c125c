/*
 * The Pyroscope push as a sink: a round's encodings are queued and
 * sent on the loop (src/push/pyroscope.c), never waiting for the
 * server; it draws nothing.
 */
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "profile/pprof.h"
#include "push/pyroscope.h"
#include "sinks_int.h"

static void *
sinks_push_create(struct ev_loop *loop, const struct config *conf)
{
	return pyroscope_create(loop, conf);
}

static int
sinks_push_configure(void *arg, const struct config *conf)
{
	return pyroscope_configure(arg, conf);
}

static int
sinks_push_wants_pprof(void *arg, const struct config *conf)
{
	return pyroscope_is_enabled(arg);
}

static int
sinks_push_round(void *arg, const struct sinks_batch *b)
{
	if (b->bufs != NULL)
		pyroscope_round(arg, b->conf, b->profiles, b->bufs, b->n,
		    b->start, b->end);
	return 0;
}

static void
sinks_push_flush(void *arg)
{
	pyroscope_flush(arg);
}

static void
sinks_push_log_state(void *arg)
{
	pyroscope_log_state(arg);
}

static void
sinks_push_free(void *arg)
{
	pyroscope_free(arg);
}

const struct sinks_ops sinks_push_ops = {
	.name = "push",
	.create = sinks_push_create,
	.configure = sinks_push_configure,
	.wants_pprof = sinks_push_wants_pprof,
	.round = sinks_push_round,
	.flush = sinks_push_flush,
	.log_state = sinks_push_log_state,
	.free = sinks_push_free,
};
