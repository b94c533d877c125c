#ifndef EBPFSPY_JVM_FILE_H
#define EBPFSPY_JVM_FILE_H

#include <sys/types.h>

#include <stdint.h>

#include "jvm_structs.h"

struct procmaps;
struct procmaps_entry;

/* A process's libjvm.so: where it is mapped and its exported tables. */
struct jvm_file {
	const struct procmaps_entry *map;	/* a mapping of it */
	uint64_t	 bias;		/* load address - link address */
	uint64_t	 lo, hi;	/* its mappings' span */
	uint64_t	 addr[JVM_SYM_MAX];	/* in the process */
};

/* 1 if the maps hold a file named libjvm.so. */
int	 jvm_file_is_mapped(const struct procmaps *);
/*
 * Open the process's libjvm.so (as it sees it) and find its tables'
 * symbols: 0; -1 with *tables 0 if it cannot be read, 1 if it exports
 * no tables.
 */
int	 jvm_file_find(pid_t, const struct procmaps *, struct jvm_file *,
	    int *);

#endif
