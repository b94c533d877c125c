/*
 * The insides of the Go pclntab reader, shared by gopclntab.c (header,
 * function table, lookups), gopclntab_image.c (the binary by virtual
 * address) and gopclntab_inline.c (inline trees).  Nothing else
 * includes it.
 */
#ifndef EBPFSPY_GOPCLNTAB_INT_H
#define EBPFSPY_GOPCLNTAB_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/arch.h"

struct elf_file;
struct symtab;

/* No section of a real binary is bigger; bigger claims are not read. */
#define GOPCLNTAB_SECTION_MAX	(1ULL << 30)
#define GOPCLNTAB_PCDATA_INLTREE	2
#define GOPCLNTAB_FUNCDATA_INLTREE	3
#define GOPCLNTAB_NONE		UINT32_MAX
#define GOPCLNTAB_FUNC_NODES_MAX	(1 << 16)
/* moduledata, in words: funcnametab's pointer, text, gofunc. */
#define GOPCLNTAB_MD_FUNCNAMETAB	1
#define GOPCLNTAB_MD_TEXT	22
#define GOPCLNTAB_MD_GOFUNC_118	38
#define GOPCLNTAB_MD_GOFUNC_120	40

#define GOPCLNTAB_R_RELATIVE	ARCH_R_RELATIVE	/* the host's */

struct gopclntab_inl {
	uint64_t	addr;
	uint32_t	size;
	uint32_t	node;
};

struct gopclntab_node {
	uint32_t	name;		/* in the names, or NONE */
	uint32_t	parent;		/* a node, or GOPCLNTAB_NONE */
	uint32_t	call;		/* call site, from the entry, or NONE */
};

/* A function's line tables: offsets into pctab, its files in cutab. */
struct gopclntab_fn {
	uint32_t	pcfile;
	uint32_t	pcln;
	uint32_t	cu;
};

/* The line tables, copied: kept only within the bound on names. */
struct gopclntab_lines {
	struct gopclntab_fn	*fn;	/* per function of funcs */
	uint8_t			*pctab;
	size_t			 pctab_len;
	uint8_t			*cutab;
	size_t			 cutab_len;
	char			*files;	/* NUL-terminated at its end */
	size_t			 files_len;
	uint32_t		 quantum;
	/* The work of lookups: steps this second, and which second. */
	uint64_t		 spent;
	int64_t			 second;
	int			 refused;	/* over the budget: no lines */
};

struct gopclntab {
	struct symtab		*funcs;	/* names: the name table */
	struct gopclntab_inl	*inl;	/* sorted, no overlap */
	size_t			 ninl;
	struct gopclntab_node	*nodes;
	size_t			 nnodes;
	struct gopclntab_lines	*lines;	/* NULL: over the bound */
	int			 version;
};

/* What the header says, checked against the section. */
struct gopclntab_hdr {
	int		 version;	/* 116, 118 or 120 */
	uint32_t	 quantum;
	unsigned int	 ptrsize;
	uint64_t	 vaddr;		/* of the table */
	uint64_t	 nfunc;
	uint64_t	 text;
	uint64_t	 names_off;
	const uint8_t	*names;
	size_t		 names_len;
	const uint8_t	*cutab;
	size_t		 cutab_len;
	const uint8_t	*files;
	size_t		 files_len;
	const uint8_t	*pctab;
	size_t		 pctab_len;
	const uint8_t	*pcln;		/* functab and _funcs */
	size_t		 pcln_len;
	uint64_t	 pcln_vaddr;
};

struct gopclntab_rel {
	uint64_t	off;
	uint64_t	val;
};

/* The file, read by virtual address. */
struct gopclntab_img {
	struct elf_file		*ef;
	unsigned int		 ptrsize;
	struct gopclntab_rel	*rel;	/* RELATIVE relocs, sorted */
	size_t			 nrel;
	int			 rel_read;
	uint8_t			*sec;	/* the last section read */
	uint64_t		 sec_addr, sec_size;
};

/* What the functions' inline trees add up to, while reading. */
struct gopclntab_build {
	struct gopclntab_inl	*inl;
	size_t			 ninl, inl_cap, inl_max;
	struct gopclntab_node	*nodes;
	size_t			 nnodes, nodes_cap, nodes_max;
	struct gopclntab_range	*fr;	/* one function's ranges */
	size_t			 nfr, fr_cap;
};

struct gopclntab_range {
	uint64_t	start, end;
	int32_t		val;
};

/* Walking a pc-value table. */
struct gopclntab_pcv {
	const uint8_t	*p, *end;
	uint64_t	 pc;
	int32_t		 val;
	int		 first;
	uint32_t	 quantum;
};

/* gopclntab_image.c */
uint64_t	 gopclntab_image_uword(const uint8_t *, unsigned int);
uint32_t	 gopclntab_image_u32(const uint8_t *);
uint64_t	 gopclntab_image_reloc(struct gopclntab_img *, uint64_t,
		    uint64_t);
const uint8_t	*gopclntab_image_at(struct gopclntab_img *, uint64_t,
		    size_t);
int		 gopclntab_image_gofunc(struct gopclntab_img *,
		    const struct gopclntab_hdr *, uint64_t *);

/* gopclntab.c */
const struct gopclntab_inl *gopclntab_inl_find(const struct gopclntab *,
		    uint64_t);

/* gopclntab_line.c */
int		 gopclntab_line_start(struct gopclntab_pcv *,
		    const uint8_t *, size_t, uint32_t, uint64_t, uint32_t);
int		 gopclntab_line_next(struct gopclntab_pcv *, uint64_t *,
		    uint64_t *, int32_t *);
int		 gopclntab_line_func(const struct gopclntab_hdr *, uint64_t,
		    struct gopclntab_fn *);
struct gopclntab_lines *gopclntab_line_keep(const struct gopclntab_hdr *,
		    struct gopclntab_fn *, size_t, size_t);
void		 gopclntab_line_free(struct gopclntab_lines *);
size_t		 gopclntab_line_bytes(const struct gopclntab_lines *,
		    size_t);

/* gopclntab_inline.c */
void		 gopclntab_inline_func(struct gopclntab_build *,
		    const struct gopclntab_hdr *, struct gopclntab_img *,
		    uint64_t, uint64_t, uint64_t, uint64_t);

#endif
