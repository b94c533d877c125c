#ifndef EBPFSPY_V8_H
#define EBPFSPY_V8_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/runtime.h"
#include "v8_dbg.h"
#include "v8_sym.h"

struct v8;

struct v8_stats {
	size_t		procs;			/* processes walked now */
	uint64_t	found;			/* V8 processes found */
	uint64_t	refused[V8_REFUSE_MAX];
	uint64_t	named;			/* frames named */
	uint64_t	unnamed[V8_UNNAMED_MAX];
	uint64_t	stacks;			/* record stacks read */
	uint64_t	lost;			/* stacks gone from the map */
};

void		 v8_stats(struct v8 *, struct v8_stats *);

/* The V8 runtime plug-in (v8_runtime.c, runtime/runtime.h). */
extern const struct runtime_ops v8_runtime;

#endif
