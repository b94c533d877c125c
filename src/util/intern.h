#ifndef EBPFSPY_INTERN_H
#define EBPFSPY_INTERN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Interned strings: each distinct string is stored once and named by a
 * 32-bit id, 0, 1, 2 ... in the order the strings were first added.  An
 * id stays valid, and its string in place, until intern_clear() or
 * intern_free().  The profile keeps its names in one, and so do the
 * names of stacks kept across rounds.
 */
struct intern;

struct intern	*intern_create(void);
void		 intern_free(struct intern *);
/* Forget every string: ids start again from 0. */
void		 intern_clear(struct intern *);

/* The id of s, added if it is new.  The string is copied. */
uint32_t	 intern_add(struct intern *, const char *);
/* The id of s if it was added: 0, else -1. */
int		 intern_find(const struct intern *, const char *, uint32_t *);
/* The string of an id; NULL for an id not given out. */
const char	*intern_name(const struct intern *, uint32_t);
size_t		 intern_count(const struct intern *);
/* Memory held: the strings, their table and index. */
size_t		 intern_bytes(const struct intern *);

#endif
