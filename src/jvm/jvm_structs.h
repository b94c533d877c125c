#ifndef EBPFSPY_JVM_STRUCTS_H
#define EBPFSPY_JVM_STRUCTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jvm_mem;

/*
 * The layout HotSpot exports about itself (vmStructs.cpp): four tables
 * of fields, types, int and long constants, found through libjvm's
 * .dynsym symbols below, read from the live process.
 */
enum jvm_structs_sym {
	JVM_SYM_STRUCTS,		/* gHotSpotVMStructs: the array's address */
	JVM_SYM_S_TYPE, JVM_SYM_S_FIELD, JVM_SYM_S_TSTR, JVM_SYM_S_STATIC,
	JVM_SYM_S_OFFSET, JVM_SYM_S_ADDRESS, JVM_SYM_S_STRIDE,
	JVM_SYM_TYPES,
	JVM_SYM_T_NAME, JVM_SYM_T_SIZE, JVM_SYM_T_STRIDE,
	JVM_SYM_INTS,
	JVM_SYM_I_NAME, JVM_SYM_I_VALUE, JVM_SYM_I_STRIDE,
	JVM_SYM_LONGS,
	JVM_SYM_L_NAME, JVM_SYM_L_VALUE, JVM_SYM_L_STRIDE,
	JVM_SYM_MAX
};

/* Their names, by enum jvm_structs_sym. */
extern const char *const jvm_structs_symbols[JVM_SYM_MAX];

struct jvm_structs;

/*
 * Read the tables; addr[] holds each symbol's address in the process
 * (load bias applied).  NULL if a table cannot be read or is not one.
 */
struct jvm_structs *jvm_structs_read(struct jvm_mem *, const uint64_t *);
void		 jvm_structs_free(struct jvm_structs *);
/* Entries read: fields, types, int and long constants. */
void		 jvm_structs_counts(const struct jvm_structs *, size_t *,
		    size_t *, size_t *, size_t *);

/* An instance field's offset; 0 / -1 (no such field). */
int		 jvm_structs_field(const struct jvm_structs *, const char *,
		    const char *, uint64_t *);
/* A static field's address in the process. */
int		 jvm_structs_static(const struct jvm_structs *, const char *,
		    const char *, uint64_t *);
/* A field's C type as the table writes it ("int", "int16_t"); NULL. */
const char	*jvm_structs_field_type(const struct jvm_structs *,
		    const char *, const char *);
/* sizeof(type). */
int		 jvm_structs_size(const struct jvm_structs *, const char *,
		    uint64_t *);
int		 jvm_structs_int(const struct jvm_structs *, const char *,
		    int64_t *);
int		 jvm_structs_long(const struct jvm_structs *, const char *,
		    int64_t *);
/* Every entry, a line each. */
void		 jvm_structs_dump(const struct jvm_structs *, FILE *);

#endif
