#ifndef EBPFSPY_KALLSYMS_H
#define EBPFSPY_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kallsyms;

struct kallsyms	*kallsyms_parse(FILE *);
struct kallsyms	*kallsyms_read(const char *);
void		 kallsyms_free(struct kallsyms *);
const char	*kallsyms_lookup(const struct kallsyms *, uint64_t);
size_t		 kallsyms_count(const struct kallsyms *);
size_t		 kallsyms_bytes(const struct kallsyms *);
int		 kallsyms_is_restricted(const struct kallsyms *);

#endif
