#ifndef EBPFSPY_JVM_RUNTIME_H
#define EBPFSPY_JVM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "jvm.h"
#include "jvm_sym.h"
#include "runtime/runtime.h"

/*
 * A Java frame as the BPF walker is to record it (issue #26, notes
 * section 8): what userspace names it by.
 */
enum jvm_record_kind {
	JVM_RECORD_COMPILED,	/* ptr: nmethod*; off: pc - nmethod* */
	JVM_RECORD_INTERPRETED,	/* ptr: Method*; off: the bci */
};

struct jvm_record {
	uint64_t	 ptr;
	uint64_t	 check;	/* compile id; the Method's ConstMethod* */
	uint32_t	 off;
	uint8_t		 kind;	/* enum jvm_record_kind */
	uint8_t		 leaf;	/* the sampled pc, not a return address */
};

struct jvm_runtime_stats {
	size_t			 procs;
	uint64_t		 found;
	uint64_t		 refused[JVM_REFUSE_MAX];
	uint64_t		 frames;	/* named */
	uint64_t		 unnamed;	/* records not named */
	uint64_t		 walked;	/* JVMs told to the walker */
	uint64_t		 lost;		/* stacks of records gone */
	struct jvm_sym_stats	 sym;		/* of closed processes */
};

/*
 * A record's frames, outermost first, to cb ("pkg.Class.method
 * (File.java:line)", and its runtime_where for pprof); self is what
 * jvm_runtime's create made, st a process's state.  -1 (after one
 * "[unknown java]") if it cannot be named.
 */
int	 jvm_runtime_name(void *, void *, const struct jvm_record *,
	    runtime_frame_cb, void *);
void	 jvm_runtime_stats(void *, struct jvm_runtime_stats *);

#endif
