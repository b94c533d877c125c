#ifndef EBPFSPY_SYMTAB_H
#define EBPFSPY_SYMTAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * One symbol: 16 bytes, its name an offset in the table's string block.
 * A name that had a symbol version is kept without it, and then, after
 * its NUL, with it (the name as the file spells it).
 */
struct symtab_sym {
	uint64_t	addr;
	uint32_t	size;
	uint32_t	name;		/* and SYMTAB_NAME_VERSIONED */
};
#define SYMTAB_NAME_VERSIONED	(1U << 31)

/* Sorted by address, one symbol per address, names in one block. */
struct symtab {
	struct symtab_sym	*v;
	size_t			 n;
	char			*names;
	size_t			 names_len;
};

struct symtab_builder;

/* Why a builder refused symbols (symtab_builder_refused). */
#define SYMTAB_REFUSED_SYMBOLS	0x01
#define SYMTAB_REFUSED_NAMES	0x02

struct symtab_builder *symtab_builder_create(void);
void		 symtab_builder_free(struct symtab_builder *);
void		 symtab_builder_limit(struct symtab_builder *, size_t,
		    size_t);
int		 symtab_builder_fits(struct symtab_builder *, uint64_t,
		    uint64_t);
unsigned int	 symtab_builder_refused(const struct symtab_builder *);
int		 symtab_builder_add(struct symtab_builder *, uint64_t,
		    uint64_t, uint64_t, const char *, size_t, int);
int		 symtab_builder_add_copy(struct symtab_builder *, uint64_t,
		    uint64_t, uint64_t, const char *, size_t, int);
size_t		 symtab_builder_count(const struct symtab_builder *);
void		 symtab_builder_reserve(struct symtab_builder *, size_t);
void		 symtab_builder_index(struct symtab_builder *);
int		 symtab_builder_has(const struct symtab_builder *, uint64_t);
struct symtab	*symtab_builder_finish(struct symtab_builder *);

void		 symtab_free(struct symtab *);
const struct symtab_sym *symtab_find(const struct symtab *, uint64_t);
const char	*symtab_lookup(const struct symtab *, uint64_t);
size_t		 symtab_count(const struct symtab *);
size_t		 symtab_bytes(const struct symtab *);

/* The name without a version: memcpy, of memcpy@@GLIBC_2.14. */
static inline const char *
symtab_name(const struct symtab *st, const struct symtab_sym *s)
{
	return st->names + (s->name & ~SYMTAB_NAME_VERSIONED);
}

/* The name as the file has it, version and all. */
static inline const char *
symtab_system_name(const struct symtab *st, const struct symtab_sym *s)
{
	const char	*name = symtab_name(st, s);

	return s->name & SYMTAB_NAME_VERSIONED ? name + strlen(name) + 1 :
	    name;
}

#endif
