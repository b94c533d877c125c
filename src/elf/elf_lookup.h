#ifndef EBPFSPY_ELF_LOOKUP_H
#define EBPFSPY_ELF_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

struct elf_lookup;

/*
 * What detecting a runtime needs of an ELF file: a few symbols, a
 * few bytes of initialized data, the DT_NEEDED names and the PT_LOAD
 * segments.  64-bit native byte order only.  The file is untrusted:
 * every table is checked against the file's size before it is read.
 */
struct elf_lookup *elf_lookup_open(int);
void		 elf_lookup_close(struct elf_lookup *);
/* Look names up in .dynsym, then .symtab; defined objects/functions. */
int		 elf_lookup_symbols(struct elf_lookup *, const char *const *,
		    uint64_t *, size_t, int);
/* Bytes at a virtual address of an allocated section with file data. */
int		 elf_lookup_read(struct elf_lookup *, uint64_t, void *,
		    size_t);
/* 1 if a DT_NEEDED name starts with prefix. */
int		 elf_lookup_needs(struct elf_lookup *, const char *);
/* The PT_LOAD segments with file data: offsets, addresses, lengths. */
size_t		 elf_lookup_loads(struct elf_lookup *, uint64_t *,
		    uint64_t *, uint64_t *, size_t);

#endif
