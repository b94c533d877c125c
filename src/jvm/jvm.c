/*
 * HotSpot JVMs: which processes run one, and what naming their Java
 * frames needs of each -- its self-description (jvm_structs.c), the
 * layout taken from it (jvm_layout.c), its code cache
 * (jvm_codecache.c) and the names of its methods (jvm_sym.c).
 *
 * A process is a JVM when it maps libjvm.so (jvm_file.c).  A JVM whose
 * tables cannot be read, that is too old, or that lacks a field we
 * need is refused with the reason: its process is profiled natively
 * as before, never dropped, and nothing is guessed of its layout.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jvm.h"
#include "jvm_file.h"
#include "jvm_structs.h"
#include "jvm_sym.h"
#include "proc/procmaps.h"
#include "util/xmalloc.h"

struct jvm_proc *
jvm_proc_open(pid_t pid, const struct procmaps *maps, int *why,
    const char **missing)
{
	struct jvm_proc	*jp;
	struct jvm_file	 f;
	uint64_t	 stride;
	int		 tables;

	*why = -1;
	*missing = NULL;
	if (!jvm_file_is_mapped(maps))
		return NULL;
	if (jvm_file_find(pid, maps, &f, &tables) == -1) {
		*why = tables ? JVM_REFUSE_TABLES : JVM_REFUSE_FILE;
		return NULL;
	}
#if !defined(__x86_64__)
	*why = JVM_REFUSE_ARCH;
	return NULL;
#endif
	jp = xcalloc(1, sizeof(*jp));
	jp->pid = pid;
	jp->mem.pid = pid;
	jp->lib_lo = f.lo;
	jp->lib_hi = f.hi;
	jp->dev = (uint64_t)f.map->dev_major << 32 | f.map->dev_minor;
	jp->ino = f.map->inode;
	if ((jp->structs = jvm_structs_read(&jp->mem, f.addr)) == NULL) {
		/*
		 * libjvm.so is mapped before its initialisers fill the
		 * strides in: a JVM starting, not one to refuse.
		 */
		*why = jvm_mem_u64(&jp->mem, f.addr[JVM_SYM_S_STRIDE],
		    &stride) == 0 && stride == 0 && jvm_mem_u64(&jp->mem,
		    f.addr[JVM_SYM_T_STRIDE], &stride) == 0 && stride == 0 ?
		    JVM_NOT_YET : JVM_REFUSE_TABLES;
		goto fail;
	}
	if (jvm_layout_make(jp->structs, &jp->mem, &jp->lay, missing) == -1) {
		*why = strcmp(*missing, "version") == 0 ?
		    JVM_REFUSE_VERSION : JVM_REFUSE_FIELD;
		goto fail;
	}
	jp->sym = jvm_sym_create(&jp->mem, &jp->lay);
	jvm_proc_codecache(jp);
	return jp;
fail:
	jvm_proc_close(jp);
	return NULL;
}

void
jvm_proc_close(struct jvm_proc *jp)
{
	if (jp == NULL)
		return;
	jvm_sym_free(jp->sym);
	jvm_structs_free(jp->structs);
	free(jp);
}

/* The heaps are made early in the JVM's start: until then, again. */
int
jvm_proc_codecache(struct jvm_proc *jp)
{
	if (jp->cc_ok)
		return 0;
	if (jvm_codecache_read(&jp->mem, &jp->lay, &jp->cc) == -1)
		return -1;
	jp->cc_ok = 1;
	return 0;
}

const char *
jvm_refusal_name(int why)
{
	static const char *const names[JVM_REFUSE_MAX] = {
		[JVM_REFUSE_FILE] = "file",
		[JVM_REFUSE_TABLES] = "tables",
		[JVM_REFUSE_VERSION] = "version",
		[JVM_REFUSE_FIELD] = "field",
		[JVM_REFUSE_ARCH] = "arch",
	};

	if (why < 0 || why >= JVM_REFUSE_MAX)
		return "?";
	return names[why];
}
