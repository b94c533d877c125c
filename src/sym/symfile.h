#ifndef EBPFSPY_SYMFILE_H
#define EBPFSPY_SYMFILE_H

#include <sys/types.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdint.h>

#include "elf/debuginfo.h"
#include "elf/elf.h"

struct gopclntab;
struct srcline;
struct symtab;

/* Where the names of a file came from (symfile.sources). */
#define SYMFILE_SYMTAB		0x01	/* its .symtab */
#define SYMFILE_DYNSYM		0x02	/* its .dynsym */
#define SYMFILE_BUILD_ID	0x04	/* a debug file found by build id */
#define SYMFILE_DEBUGLINK	0x08	/* one by .gnu_debuglink */
#define SYMFILE_MINIDEBUG	0x10	/* MiniDebugInfo, .gnu_debugdata */
#define SYMFILE_GO		0x20	/* Go's .gopclntab */

/* The symbols of one ELF file, from wherever they could be found. */
struct symfile {
	struct symtab		*symtab;	/* ELF symbols, or NULL */
	struct gopclntab	*go;		/* Go functions, or NULL */
	struct srcline		*dwarf;		/* lines, inlines; or NULL */
	struct elf_file_segment	*segs;
	size_t			 nsegs;
	/* A file without .symtab: its functions' ranges, for unknowns. */
	struct elf_fde_range	*fde;
	size_t			 nfde;
	uint8_t			 build_id[ELF_FILE_BUILD_ID_MAX];
	size_t			 build_id_len;
	int			 has_symtab;
	unsigned int		 sources;
};

/*
 * Bounds of one file's table build ([symbols] max_symbols_per_file,
 * max_symbol_bytes_per_file, max_debugdata_bytes); 0: none.
 */
struct symfile_limits {
	size_t		 max_symbols;	/* a symbol table's entries */
	size_t		 max_names;	/* bytes of a table's names */
	size_t		 max_debugdata;	/* .gnu_debugdata, decompressed */
	size_t		 max_dwarf;	/* DWARF's memory; 0: none read */
};

/* Tables refused over those bounds since start, by bound. */
struct symfile_stats {
	uint64_t	 refused_symbols;
	uint64_t	 refused_names;
	uint64_t	 refused_debugdata;
};

/* The file being loaded, for finding its debug files. */
struct symfile_ctx {
	pid_t		 pid;		/* 0: a file of the host */
	const char	*path;		/* as the process names it */
	const char	*debug_dirs;
	dev_t		 dev;
	ino_t		 ino;
};

/* The debug file a stripped file's names come from, found and open. */
struct symfile_debug {
	struct debuginfo_file	 df[DEBUGINFO_DEPTH_MAX];
	size_t			 ndf;
	struct elf_file		*ef;	/* the one with a .symtab, or NULL */
	unsigned int		 source;	/* SYMFILE_BUILD_ID... */
	struct stat		 sb;	/* ef's file */
};

void		 symfile_identify(struct symfile *, struct elf_file *);
void		 symfile_debug_find(struct symfile_debug *,
		    const struct symfile *, struct elf_file *,
		    const struct symfile_ctx *);
void		 symfile_debug_close(struct symfile_debug *);
void		 symfile_load(struct symfile *, struct elf_file *,
		    const struct symfile_debug *, const struct symfile_limits *,
		    const char *);
void		 symfile_stats(struct symfile_stats *);
void		 symfile_log_state(void);
int		 symfile_load_mem(struct symfile *, const void *, size_t);
void		 symfile_release(struct symfile *);

/* symfile_dwarf.c */
void		 symfile_dwarf(struct symfile *, int, struct elf_file *,
		    const struct symfile_debug *, const struct symfile_ctx *,
		    const struct symfile_limits *, const char *);
size_t		 symfile_count(const struct symfile *);
size_t		 symfile_bytes(const struct symfile *);

#endif
