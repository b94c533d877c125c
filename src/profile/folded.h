#ifndef EBPFSPY_FOLDED_H
#define EBPFSPY_FOLDED_H

#include <stdio.h>

struct profile;

/*
 * Write a profile as folded stacks, one "root;...;leaf value" line per
 * distinct stack, sorted, as flamegraph.pl and speedscope read them.
 * Values are samples (cpu) or nanoseconds (offcpu).  Returns 0, or -1
 * on a write error with errno set.
 */
int	folded_write(const struct profile *, FILE *);
/*
 * A frame name as folded_write() writes it: an allocated copy, or NULL
 * when the name is written as it is.
 */
char	*folded_clean(const char *);

#endif
