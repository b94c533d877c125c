#ifndef EBPFSPY_JVM_LINES_H
#define EBPFSPY_JVM_LINES_H

#include <stddef.h>
#include <stdint.h>

/*
 * HotSpot's compressed debug information, decoded from bytes copied
 * out of the process: each length is the copy's, never trusted.
 */

/*
 * One UNSIGNED5 number at *pos (x: 1 if each byte is stored +1, JDK 20
 * and later), *pos moved past it: 0, -1 when it does not fit or holds
 * a byte no encoder writes.
 */
int	 jvm_lines_unsigned5(const uint8_t *, size_t, size_t *, int,
	    uint32_t *);
/* The same, zigzag-signed. */
int	 jvm_lines_signed5(const uint8_t *, size_t, size_t *, int,
	    int32_t *);
/* The length of a line table up to and with its end byte; 0: no end. */
size_t	 jvm_lines_table_len(const uint8_t *, size_t, int);
/* The line of a bytecode index by a line table; -1 if it has none. */
int	 jvm_lines_line(const uint8_t *, size_t, int, int);

/* A PcDesc: a pc offset from the code's start, its scope's offset. */
struct jvm_pcdesc {
	int32_t		 pc;
	int32_t		 scope;
};

/*
 * The PcDesc of a pc offset: a return address's exactly, else the
 * first at or after it; a leaf pc's (leaf set) the first after it, as
 * HotSpot's AsyncGetCallTrace takes it, since the PcDescs mark the end
 * of the code they describe.  The index, -1 if none.
 */
int	 jvm_lines_pcdesc(const struct jvm_pcdesc *, size_t, int32_t, int);

/* One scope: the next (caller's) scope, the Method's index, the bci. */
struct jvm_scope {
	uint32_t	 next;		/* 0: the outermost */
	uint32_t	 method;	/* into the metadata, from 1 */
	int		 bci;		/* -1: the method's entry */
};

int	 jvm_lines_scope(const uint8_t *, size_t, uint32_t, int,
	    struct jvm_scope *);

#endif
