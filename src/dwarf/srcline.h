#ifndef EBPFSPY_SRCLINE_H
#define EBPFSPY_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

struct srcline;

/* Functions inlined at one address, at most (the caller's own too). */
#define SRCLINE_DEPTH_MAX	32

/*
 * One function of an address's inline chain: its name as DWARF spells
 * it (the linkage name where there is one, else DW_AT_name; NULL: the
 * DWARF has none), and where in it the address is (the innermost's)
 * or the call of the one inside it was (the others').
 */
struct srcline_frame {
	const char	*func;
	const char	*file;		/* NULL: unknown */
	int32_t		 line;		/* 0: unknown */
};

/* srcline_lookup's answers besides a count. */
#define SRCLINE_NONE		0	/* no DWARF covers the address */
#define SRCLINE_LATER		-1	/* over the round's time budget */

struct srcline_stats {
	uint64_t	 opened;	/* files whose DWARF was read */
	uint64_t	 lookups;	/* addresses looked up */
	uint64_t	 deferred;	/* lookups put off: time budget */
	uint64_t	 refused_bytes;	/* files over dwarf_bytes */
	uint64_t	 refused_bad;	/* files libdw could not read */
	uint64_t	 dropped;	/* DWARF dropped, grown over its bound */
	uint64_t	 bytes;		/* held by open files now */
	uint64_t	 nfiles;	/* open files now */
};

struct srcline	*srcline_create(int, int, size_t, const char *);
struct srcline	*srcline_create_mem(const void *, size_t, const void *,
		    size_t, size_t);
void		 srcline_free(struct srcline *);
int		 srcline_lookup(struct srcline *, uint64_t,
		    struct srcline_frame *, size_t);
size_t		 srcline_bytes(const struct srcline *);

void		 srcline_budget(uint64_t);
void		 srcline_round_begin(void);
void		 srcline_stats(struct srcline_stats *);
void		 srcline_log_state(void);

#endif
