#ifndef EBPFSPY_JVM_H
#define EBPFSPY_JVM_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "jvm_codecache.h"
#include "jvm_layout.h"
#include "jvm_mem.h"
#include "runtime/rt_stacks.h"
#include "runtime/runtime.h"

struct jvm_structs;
struct jvm_sym;
struct procmaps;

/* Why a JVM is not read (its process is profiled natively). */
enum jvm_refusal {
	JVM_REFUSE_FILE,	/* its libjvm.so cannot be read */
	JVM_REFUSE_TABLES,	/* no vmStructs, or tables that are not */
	JVM_REFUSE_VERSION,	/* older than JDK 11, or no version */
	JVM_REFUSE_FIELD,	/* a field we need is not exported */
	JVM_REFUSE_ARCH,	/* frames are read for x86_64 only */
	JVM_REFUSE_MAX
};

/* Not a refusal: a JVM still starting, its tables not filled in yet. */
#define JVM_NOT_YET	(-2)

/* A JVM process: its layout, its code cache, its names. */
struct jvm_proc {
	pid_t			 pid;
	struct jvm_mem		 mem;
	struct jvm_structs	*structs;
	struct jvm_layout	 lay;
	struct jvm_codecache	 cc;
	int			 cc_ok;		/* heaps read */
	struct jvm_sym		*sym;
	int			 info_set;	/* jvm_info written */
	struct rt_stacks	 stacks;	/* jvm_stack.c's */
	uint64_t		 lib_lo, lib_hi;	/* libjvm.so */
	uint64_t		 dev, ino;		/* of libjvm.so */
};

/*
 * Open a process's JVM from its maps: NULL with *why -1 when it runs
 * none, JVM_NOT_YET when it starts, else with the reason it is refused
 * (*missing names a missing field).
 */
struct jvm_proc	*jvm_proc_open(pid_t, const struct procmaps *, int *,
		    const char **);
void		 jvm_proc_close(struct jvm_proc *);
/* Read the code heaps if not read yet: 0, -1 while not made. */
int		 jvm_proc_codecache(struct jvm_proc *);
const char	*jvm_refusal_name(int);

/* The HotSpot runtime plug-in (jvm_runtime.c, runtime/runtime.h). */
extern const struct runtime_ops jvm_runtime;

#endif
