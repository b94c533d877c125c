/*
 * The insides of an open ELF file, shared by elf.c (opening it, build
 * id, segments), elf_symbols.c (its symbol tables) and elf_section.c
 * (its sections).  Nothing else includes it.
 */
#ifndef EBPFSPY_ELF_INT_H
#define EBPFSPY_ELF_INT_H

#include <stdint.h>

#include <gelf.h>

struct elf_file_section {
	uint64_t	addr;
	uint64_t	size;
	uint64_t	flags;
};

/* Section contents we read, kept until elf_file_close. */
struct elf_file_buf {
	struct elf_file_buf	*next;
	uint8_t			 data[];
};

struct elf_file {
	Elf			*e;
	int			 fd;
	const uint8_t		*mem;
	uint64_t		 size;		/* of the file */
	int			 is64;
	int			 rel_ok;	/* ET_REL accepted */
	size_t			 shnum;
	size_t			 phnum;
	struct elf_file_section	*sections;	/* shnum, or NULL */
	struct elf_file_buf	*bufs;
};

int		 elf_file_pread(struct elf_file *, void *, size_t, uint64_t);
int		 elf_file_range_ok(const struct elf_file *, uint64_t,
		    uint64_t);
const uint8_t	*elf_file_raw(struct elf_file *, uint64_t, uint64_t);

#endif
