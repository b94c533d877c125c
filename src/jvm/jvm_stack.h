#ifndef EBPFSPY_JVM_STACK_H
#define EBPFSPY_JVM_STACK_H

/*
 * The stacks of Java frame records the walker stored, named while the
 * JVM lives (jvm_stack.c); rt is jvm_runtime's state, that names them.
 */
#include <stddef.h>
#include <stdint.h>

#include "runtime/runtime.h"

struct jvm_proc;
struct session;

int	 jvm_stack_seen(struct session *, void *, struct jvm_proc *,
	    uint64_t);
int	 jvm_stack_merge(struct session *, void *, struct jvm_proc *,
	    uint64_t, size_t, runtime_native_cb, runtime_frame_cb, void *);
void	 jvm_stacks_free(struct session *, struct jvm_proc *);

#endif
