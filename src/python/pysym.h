#ifndef EBPFSPY_PYSYM_H
#define EBPFSPY_PYSYM_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

/* How line numbers are kept, by version. */
enum pysym_lines {
	PYSYM_LNOTAB,		/* 3.8, 3.9: co_lnotab, byte offsets */
	PYSYM_LINETABLE,	/* 3.10: co_linetable, byte offsets */
	PYSYM_LOCATIONS,	/* 3.11+: co_linetable, the location table */
};

/* Where a version keeps what naming a frame reads; bytes. */
struct pysym_layout {
	int		lines;		/* enum pysym_lines */
	uint16_t	co_argcount;
	uint16_t	co_firstlineno;
	uint16_t	co_varnames;	/* 3.8-3.10: names of the locals */
	uint16_t	co_filename;
	uint16_t	co_name;
	uint16_t	co_qualname;	/* 0: none (3.8-3.10) */
	uint16_t	co_linetable;	/* co_lnotab / co_linetable */
	uint16_t	unicode_ascii;	/* sizeof(PyASCIIObject) */
	uint16_t	unicode_compact; /* sizeof(PyCompactUnicodeObject) */
};

/* A code object read from the process. */
struct pysym_code {
	uint64_t	 addr;
	uint32_t	 check;		/* profile_py_check() of it */
	int		 firstlineno;
	int		 self_arg;	/* 3.8-3.10: 1st local "self" */
	char		*name;		/* co_qualname or co_name */
	char		*filename;
	uint8_t		*table;		/* the line table */
	size_t		 table_len;
	uint64_t	 used;		/* round */
};

struct pysym_stats {
	uint64_t	reads;		/* code objects read */
	uint64_t	read_failed;	/* could not be read */
	uint64_t	stale;		/* an address now holds another */
	uint64_t	hits;
	uint64_t	over;		/* not kept: past the bounds */
	size_t		codes;		/* cached now */
	size_t		bytes;		/* their memory */
};

struct pysym;

/*
 * The code objects of one process, read with process_vm_readv() and
 * kept by address.  An entry is used only while the walker's check
 * matches it, so an address reused by another code object is read
 * again, not misnamed.
 */
struct pysym	*pysym_create(pid_t, const struct pysym_layout *);
void		 pysym_free(struct pysym *);
/* The code object at addr whose check the walker saw; NULL: unreadable. */
const struct pysym_code *pysym_code(struct pysym *, uint64_t, uint32_t);
/* The name of a type (tp_name), cached; NULL: unreadable. */
const char	*pysym_type_name(struct pysym *, uint64_t);
/* The line of a raw instruction offset of the walker; -1: none. */
int		 pysym_code_line(const struct pysym *,
		    const struct pysym_code *, int32_t);
/* Forget what was not used for this many rounds. */
void		 pysym_round_end(struct pysym *, unsigned int);
void		 pysym_stats(const struct pysym *, struct pysym_stats *);

/*
 * Line table decoders, exposed for the tests.  addr is in bytes
 * (3.8-3.10) or code units (3.11+), as each version's own
 * PyCode_Addr2Line() counts; -1 when the table gives no line.
 */
int		 pysym_line_lnotab(const uint8_t *, size_t, int, int);
int		 pysym_line_linetable(const uint8_t *, size_t, int, int);
int		 pysym_line_locations(const uint8_t *, size_t, int, int);

#endif
