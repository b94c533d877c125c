#ifndef EBPFSPY_GOPCLNTAB_H
#define EBPFSPY_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

struct elf_file;
struct gopclntab;

/* Inlined frames reported for one address at most. */
#define GOPCLNTAB_DEPTH_MAX	32

struct gopclntab *gopclntab_read(struct elf_file *, size_t, size_t);
void		 gopclntab_free(struct gopclntab *);
const char	*gopclntab_lookup(const struct gopclntab *, uint64_t);
size_t		 gopclntab_frames(const struct gopclntab *, uint64_t,
		    const char **, size_t);
size_t		 gopclntab_lines(const struct gopclntab *, uint64_t,
		    const char **, int32_t *, size_t);
size_t		 gopclntab_count(const struct gopclntab *);
size_t		 gopclntab_inlined(const struct gopclntab *);
size_t		 gopclntab_bytes(const struct gopclntab *);
int		 gopclntab_version(const struct gopclntab *);

#endif
