#ifndef EBPFSPY_DEMANGLE_H
#define EBPFSPY_DEMANGLE_H

#include <stddef.h>

struct demangle_cache;

int		 demangle_is_mangled(const char *);
char		*demangle_name(const char *, int);
void		 demangle_simplify(char *);
const char	*demangle_cache_name(struct demangle_cache **, size_t, size_t,
		    const char *, int);
size_t		 demangle_cache_bytes(const struct demangle_cache *);
void		 demangle_cache_free(struct demangle_cache *);

#endif
