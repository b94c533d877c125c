#ifndef EBPFSPY_FAKEJVM_ENTRIES_H
#define EBPFSPY_FAKEJVM_ENTRIES_H

#include <stdint.h>

/*
 * HotSpot's vmStructs entries, as JDK 17 and 25 lay them out on x86_64:
 * the tables a fake libjvm.so (fakejvm.c) exports and t-jvm_structs
 * reads, built alike.
 */
struct fstruct {
	const char	*type, *field, *tstr;
	int32_t		 is_static;
	uint64_t	 offset;
	void		*address;
};

struct ftype {
	const char	*name, *super;
	int32_t		 oop, integer, uns;
	uint64_t	 size;
};

struct fconst {
	const char	*name;
	int64_t		 value;
};

#endif
