#ifndef EBPFSPY_PYTHON_ELF_H
#define EBPFSPY_PYTHON_ELF_H

#include <stddef.h>
#include <stdint.h>

struct python_elf;

/*
 * What detecting an interpreter needs of an ELF file: a few symbols, a
 * few bytes of initialized data, the DT_NEEDED names and the PT_LOAD
 * segments.  64-bit native byte order only.  The file is untrusted:
 * every table is checked against the file's size before it is read.
 */
struct python_elf *python_elf_open(int);
void		 python_elf_close(struct python_elf *);
/* Look names up in .dynsym, then .symtab; defined objects/functions. */
int		 python_elf_symbols(struct python_elf *, const char *const *,
		    uint64_t *, size_t, int);
/* Bytes at a virtual address of an allocated section with file data. */
int		 python_elf_read(struct python_elf *, uint64_t, void *,
		    size_t);
/* 1 if a DT_NEEDED name starts with prefix. */
int		 python_elf_needs(struct python_elf *, const char *);
/* The PT_LOAD segments with file data: offsets, addresses, lengths. */
size_t		 python_elf_loads(struct python_elf *, uint64_t *,
		    uint64_t *, uint64_t *, size_t);

#endif
