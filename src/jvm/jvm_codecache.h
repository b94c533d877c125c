#ifndef EBPFSPY_JVM_CODECACHE_H
#define EBPFSPY_JVM_CODECACHE_H

#include <stddef.h>
#include <stdint.h>

struct jvm_layout;
struct jvm_mem;

#define JVM_HEAPS_MAX	8	/* JDK 17 and 25 have 3, -Xint 1 */

/* A code heap: its committed memory and its segment map. */
struct jvm_heap {
	uint64_t	 low, high;	/* committed */
	uint64_t	 reserved;	/* its end when grown to the full */
	uint64_t	 segmap;	/* one byte a segment */
	unsigned int	 shift;		/* log2 of the segment's size */
};

struct jvm_codecache {
	struct jvm_heap	 heaps[JVM_HEAPS_MAX];
	size_t		 nheaps;
	uint64_t	 low, high;	/* every heap's reserved span */
};

enum jvm_blob_kind {
	JVM_BLOB_NMETHOD,	/* compiled Java: C1, C2 */
	JVM_BLOB_NATIVE,	/* a native method's compiled wrapper */
	JVM_BLOB_INTERPRETER,
	JVM_BLOB_STUB,		/* call stub, adapters, runtime stubs... */
};

/* A CodeBlob's header, as the walker and the namer need it. */
struct jvm_blob {
	uint64_t	 addr;
	uint64_t	 code_begin, code_end;
	int32_t		 size;		/* bytes, header included */
	int32_t		 frame_size;	/* words */
	int32_t		 frame_complete;	/* from code_begin */
	int		 kind;		/* enum jvm_blob_kind */
	char		 name[64];
};

/*
 * The code heaps: 0; -1 if the code cache cannot be read, or is not
 * made yet (a JVM starting: try again later).
 */
int	 jvm_codecache_read(struct jvm_mem *, const struct jvm_layout *,
	    struct jvm_codecache *);
/* 1 if an address lies in the code cache. */
int	 jvm_codecache_has(const struct jvm_codecache *, uint64_t);
/* The blob holding a pc, by the segment map: 0, -1 if none. */
int	 jvm_codecache_find(struct jvm_mem *, const struct jvm_layout *,
	    const struct jvm_codecache *, uint64_t, struct jvm_blob *);
/* A blob's header read: 0, -1 if it is not one. */
int	 jvm_codecache_blob(struct jvm_mem *, const struct jvm_layout *,
	    uint64_t, struct jvm_blob *);
/* Every blob in use, in address order, to the callback. */
size_t	 jvm_codecache_each(struct jvm_mem *, const struct jvm_layout *,
	    const struct jvm_codecache *,
	    void (*)(const struct jvm_blob *, void *), void *);

#endif
