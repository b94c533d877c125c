/*
 * This header shares its name with the system's <elf.h>: a file of
 * src/elf/ that includes "elf.h" gets this one, and its callers use
 * the system's types (Elf64_*, PT_*, SHT_*).  Pass it on to the system
 * header first.
 */
#include_next <elf.h>

#ifndef EBPFSPY_ELF_H
#define EBPFSPY_ELF_H

#include <stddef.h>
#include <stdint.h>

struct Elf;
struct elf_file;
struct symtab_builder;

#define ELF_FILE_BUILD_ID_MAX	64

/* A PT_LOAD segment: where file bytes land in the virtual address space. */
struct elf_file_segment {
	uint64_t	offset;
	uint64_t	vaddr;
	uint64_t	filesz;
	uint64_t	memsz;
	uint32_t	flags;		/* PF_X, PF_W, PF_R */
};

/* A section header, as far as the callers need it. */
struct elf_file_scn {
	uint64_t	addr;
	uint64_t	offset;
	uint64_t	size;
	uint64_t	flags;		/* SHF_* */
	uint32_t	type;		/* SHT_* */
};

/* Which symbol tables elf_symbols_read reads. */
#define ELF_SYMBOLS_SYMTAB	0x1
#define ELF_SYMBOLS_DYNSYM	0x2

#define ELF_FILE_DEBUGLINK_MAX	256

struct elf_file	*elf_file_open(int);
struct elf_file	*elf_file_open_mem(const void *, size_t);
struct elf_file	*elf_file_open_rel(int, int);
struct elf_file	*elf_file_open_mem_rel(const void *, size_t, int);
void		 elf_file_close(struct elf_file *);
int		 elf_file_build_id(struct elf_file *, uint8_t *, size_t,
		    size_t *);
int		 elf_file_has_symtab(struct elf_file *);
struct elf_file_segment *elf_file_segments(struct elf_file *, size_t *);
uint64_t	 elf_file_size(const struct elf_file *);
int		 elf_file_machine(struct elf_file *);
int		 elf_file_read(struct elf_file *, void *, size_t, uint64_t);
int		 elf_file_offset_to_vaddr(const struct elf_file_segment *,
		    size_t, uint64_t, uint64_t *);
int		 elf_file_vaddr_to_offset(const struct elf_file_segment *,
		    size_t, uint64_t, uint64_t *);
struct Elf	*elf_file_libelf(struct elf_file *);
uint64_t	 elf_file_debug_bytes(struct elf_file *);


/* elf_symbols.c */
int		 elf_symbols_read(struct elf_file *, struct symtab_builder *,
		    int);

/* elf_section.c */
int		 elf_section_find(struct elf_file *, const char *,
		    struct elf_file_scn *);
int		 elf_section_find_suffix(struct elf_file *, const char *,
		    struct elf_file_scn *);
int		 elf_section_next(struct elf_file *, size_t *,
		    struct elf_file_scn *);
int		 elf_section_at(struct elf_file *, uint64_t,
		    struct elf_file_scn *);
void		*elf_section_data(struct elf_file *,
		    const struct elf_file_scn *, size_t);
int		 elf_section_debuglink(struct elf_file *, char *, size_t,
		    uint32_t *);

/* elf_fde.c: function ranges from .eh_frame_hdr, sorted by start. */
struct elf_fde_range {
	uint64_t	start;		/* vaddr */
	uint64_t	end;		/* vaddr, exclusive */
};
size_t		 elf_fde_ranges(struct elf_file *, struct elf_fde_range **,
		    size_t);
const struct elf_fde_range *elf_fde_find(const struct elf_fde_range *,
		    size_t, uint64_t);

#endif
