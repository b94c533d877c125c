/*
 * Symbol tables: a flat array sorted by address and one string block,
 * so that loading is a sort and a copy, and a lookup is a binary search
 * that allocates nothing.
 *
 * A builder collects candidates (from ELF symbol tables, whose names it
 * borrows, or from kallsyms, whose names it copies), then finish sorts
 * them, keeps one symbol per address (the best name, see
 * symtab_cand_cmp), gives each size-0 symbol the room up to the next
 * symbol or its limit, and copies the surviving names into a block of
 * exactly the right size.  Sorting part way (symtab_builder_index) lets
 * the caller skip symbols already there (.dynsym after .symtab).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symtab.h"
#include "util/xmalloc.h"

/* Bounds that keep name offsets in 31 bits and memory sane. */
#define SYMTAB_MAX_SYMS		(1U << 24)
#define SYMTAB_MAX_NAMES	(SYMTAB_NAME_VERSIONED - 1)
#define SYMTAB_CHUNK		(64 * 1024)

/* Candidates read ahead of the one copied, in symtab_builder_finish. */
#define SYMTAB_PREFETCH		8

/* Buckets of symtab_builder_has: the addresses' top 16 bits. */
#define SYMTAB_BUCKETS		(1U << 16)

/* Radix sort: keys of 64 bits, 11 at a time. */
#define SYMTAB_RADIX_BITS	11
#define SYMTAB_RADIX		(1U << SYMTAB_RADIX_BITS)

struct symtab_cand {
	uint64_t	 addr;
	uint64_t	 size;
	uint64_t	 limit;		/* a size-0 symbol ends here at most */
	const char	*name;		/* NUL-terminated, len bytes */
	uint32_t	 len;
	uint32_t	 plain;		/* of the name without its version */
	int		 prio;
};

struct symtab_key {
	uint64_t	addr;
	size_t		idx;
};

/* Names copied by symtab_builder_add_copy, in chunks that never move. */
struct symtab_chunk {
	struct symtab_chunk	*next;
	size_t			 used, size;
	char			 buf[];
};

struct symtab_builder {
	struct symtab_cand	*v;
	size_t			 n, cap;
	struct symtab_key	*order;		/* v by address, once sorted */
	size_t			 sorted;	/* how many order covers */
	uint32_t		*bucket;	/* order by the address's top */
	uint64_t		 bmin;
	unsigned int		 bshift;
	size_t			 names_len;	/* every name, NULs included */
	struct symtab_chunk	*chunks;
	size_t			 max_syms;	/* bounds of this table */
	size_t			 max_names;
	unsigned int		 refused;	/* SYMTAB_REFUSED_* */
};

struct symtab_builder *
symtab_builder_create(void)
{
	struct symtab_builder	*b;

	b = xcalloc(1, sizeof(*b));
	b->max_syms = SYMTAB_MAX_SYMS;
	b->max_names = SYMTAB_MAX_NAMES;
	return b;
}

/* Bound the table: at most max_syms symbols, max_names bytes of names. */
void
symtab_builder_limit(struct symtab_builder *b, size_t max_syms,
    size_t max_names)
{
	if (max_syms > 0 && max_syms < SYMTAB_MAX_SYMS)
		b->max_syms = max_syms;
	if (max_names > 0 && max_names < SYMTAB_MAX_NAMES)
		b->max_names = max_names;
}

/*
 * May a symbol table of nsyms entries and names bytes of strings be
 * read into b?  Asked before it is read, so that a file over the bounds
 * costs nothing; 0 says no, and why goes into symtab_builder_refused.
 */
int
symtab_builder_fits(struct symtab_builder *b, uint64_t nsyms, uint64_t names)
{
	if (nsyms > b->max_syms - b->n)
		b->refused |= SYMTAB_REFUSED_SYMBOLS;
	else if (names > b->max_names - b->names_len)
		b->refused |= SYMTAB_REFUSED_NAMES;
	else
		return 1;
	return 0;
}

unsigned int
symtab_builder_refused(const struct symtab_builder *b)
{
	return b->refused;
}

void
symtab_builder_free(struct symtab_builder *b)
{
	struct symtab_chunk	*ch, *next;

	if (b == NULL)
		return;
	for (ch = b->chunks; ch != NULL; ch = next) {
		next = ch->next;
		free(ch);
	}
	free(b->v);
	free(b->order);
	free(b->bucket);
	free(b);
}

size_t
symtab_builder_count(const struct symtab_builder *b)
{
	return b->n;
}

/*
 * Make room for n more symbols at once: a symbol table says how many it
 * has, and growing by doubling would copy and fault in the array over
 * and over.
 */
void
symtab_builder_reserve(struct symtab_builder *b, size_t n)
{
	if (n > b->max_syms - b->n)
		n = b->max_syms - b->n;
	if (b->n + n <= b->cap)
		return;
	b->cap = b->n + n;
	b->v = xreallocarray(b->v, b->cap, sizeof(*b->v));
}

/*
 * The length of a name without its symbol version ("memcpy@@GLIBC_2.14",
 * as the assembler's .symver puts it in a .symtab: glibc's debug file),
 * or len when it has none.  A name is "@" and the version, or "@@" for
 * the default one; a name that starts with '@' is not versioned.
 */
static size_t
symtab_version(const char *name, size_t len)
{
	const char	*at;

	if (len < 3 || (at = memchr(name + 1, '@', len - 1)) == NULL)
		return len;
	if (at[1] == '@' ? at + 2 < name + len : at + 1 < name + len)
		return at - name;
	return len;
}

/*
 * Add a symbol [addr, addr + size); a size of 0 means unknown: it then
 * extends to the next symbol but not past limit.  prio breaks ties between
 * names at one address (higher wins).  The name, len bytes followed by a
 * NUL, is not copied: it must stay until symtab_builder_finish.  -1 when
 * the table is full.
 */
int
symtab_builder_add(struct symtab_builder *b, uint64_t addr, uint64_t size,
    uint64_t limit, const char *name, size_t len, int prio)
{
	struct symtab_cand	*c;
	size_t			 plain, all;

	if (len == 0)
		return -1;
	if (b->n >= b->max_syms) {
		b->refused |= SYMTAB_REFUSED_SYMBOLS;
		return -1;
	}
	/* A versioned name is kept twice: without its version, then with. */
	plain = symtab_version(name, len);
	all = len + 1 + (plain < len ? plain + 1 : 0);
	if (len >= b->max_names || b->names_len + all > b->max_names) {
		b->refused |= SYMTAB_REFUSED_NAMES;
		return -1;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->v = xreallocarray(b->v, b->cap, sizeof(*b->v));
	}
	c = &b->v[b->n++];
	c->addr = addr;
	c->size = size;
	c->limit = limit;
	c->name = name;
	c->len = len;
	c->plain = plain;
	c->prio = prio;
	b->names_len += all;
	return 0;
}

/* The same, for a name that does not live long enough: copy it. */
int
symtab_builder_add_copy(struct symtab_builder *b, uint64_t addr,
    uint64_t size, uint64_t limit, const char *name, size_t len, int prio)
{
	struct symtab_chunk	*ch = b->chunks;
	char			*p;
	size_t			 size0;

	if (len == 0 || len >= SYMTAB_MAX_NAMES)
		return -1;
	if (ch == NULL || ch->size - ch->used < len + 1) {
		size0 = len + 1 > SYMTAB_CHUNK ? len + 1 : SYMTAB_CHUNK;
		ch = xmalloc(sizeof(*ch) + size0);
		ch->size = size0;
		ch->used = 0;
		ch->next = b->chunks;
		b->chunks = ch;
	}
	p = ch->buf + ch->used;
	memcpy(p, name, len);
	p[len] = '\0';
	ch->used += len + 1;
	return symtab_builder_add(b, addr, size, limit, p, len, prio);
}

static size_t
symtab_underscores(const char *s)
{
	size_t	 n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Of two symbols at one address, the better name first: a symbol with a
 * size over one without, then the higher prio (global over weak over
 * local), then fewer leading underscores (malloc over __libc_malloc),
 * then the shorter, then the alphabetical first, so that the choice
 * never depends on the order of the input.
 */
static int
symtab_cand_cmp(const struct symtab_cand *x, const struct symtab_cand *y)
{
	size_t	 xu, yu;

	if ((x->size != 0) != (y->size != 0))
		return x->size != 0 ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	xu = symtab_underscores(x->name);
	yu = symtab_underscores(y->name);
	if (xu != yu)
		return xu < yu ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Order the candidates by address, stably, in b->order: an LSD radix
 * sort over the bits in which the addresses differ (two or three passes
 * for a file or the kernel), far cheaper than comparison sorting.
 */
static void
symtab_builder_sort(struct symtab_builder *b)
{
	struct symtab_key	*k, *tmp, *swap;
	uint64_t		 min, max;
	size_t			 i, d, sum, c, count[SYMTAB_RADIX];
	unsigned int		 shift;

	if (b->sorted == b->n && b->order != NULL)
		return;
	free(b->order);
	b->order = NULL;
	b->sorted = 0;
	if (b->n == 0)
		return;
	min = max = b->v[0].addr;
	for (i = 1; i < b->n; i++) {
		if (b->v[i].addr < min)
			min = b->v[i].addr;
		if (b->v[i].addr > max)
			max = b->v[i].addr;
	}
	k = xreallocarray(NULL, b->n, sizeof(*k));
	tmp = xreallocarray(NULL, b->n, sizeof(*tmp));
	for (i = 0; i < b->n; i++) {
		k[i].addr = b->v[i].addr - min;
		k[i].idx = i;
	}
	for (shift = 0; shift < 64 && ((max - min) >> shift) != 0;
	    shift += SYMTAB_RADIX_BITS) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < b->n; i++)
			count[(k[i].addr >> shift) & (SYMTAB_RADIX - 1)]++;
		for (d = 0, sum = 0; d < SYMTAB_RADIX; d++) {
			c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (i = 0; i < b->n; i++)
			tmp[count[(k[i].addr >> shift) &
			    (SYMTAB_RADIX - 1)]++] = k[i];
		swap = k;
		k = tmp;
		tmp = swap;
	}
	for (i = 0; i < b->n; i++)
		k[i].addr += min;
	free(tmp);
	b->order = k;
	b->sorted = b->n;
}

/*
 * Sort what was added so far, so that symtab_builder_has can tell
 * whether a later symbol is already there; and bucket the sorted
 * addresses by their top bits, so that it looks at one or two of them
 * rather than searching the whole array (.dynsym after .symtab asks for
 * every one of its symbols).
 */
void
symtab_builder_index(struct symtab_builder *b)
{
	uint64_t	 span;
	size_t		 i, k, nb;

	symtab_builder_sort(b);
	free(b->bucket);
	b->bucket = NULL;
	if (b->sorted == 0)
		return;
	b->bmin = b->order[0].addr;
	span = b->order[b->sorted - 1].addr - b->bmin;
	for (b->bshift = 0; b->bshift < 64 &&
	    (span >> b->bshift) >= SYMTAB_BUCKETS; b->bshift++)
		;
	nb = (span >> b->bshift) + 2;
	b->bucket = xreallocarray(NULL, nb, sizeof(*b->bucket));
	for (i = 0, k = 0; k < nb; k++) {
		while (i < b->sorted &&
		    (b->order[i].addr - b->bmin) >> b->bshift < k)
			i++;
		b->bucket[k] = i;
	}
}

/* 1 if a symbol indexed by symtab_builder_index starts at addr. */
int
symtab_builder_has(const struct symtab_builder *b, uint64_t addr)
{
	size_t	 k, i, end;

	if (b->bucket == NULL || addr < b->bmin ||
	    addr > b->order[b->sorted - 1].addr)
		return 0;
	k = (addr - b->bmin) >> b->bshift;
	for (i = b->bucket[k], end = b->bucket[k + 1]; i < end; i++)
		if (b->order[i].addr >= addr)
			return b->order[i].addr == addr;
	return 0;
}

/* The table; the builder is freed.  Never NULL: maybe empty. */
struct symtab *
symtab_builder_finish(struct symtab_builder *b)
{
	struct symtab		*st;
	struct symtab_key	*o;
	const struct symtab_cand *c, *best;
	struct symtab_sym	*s;
	uint64_t		 end, size;
	size_t			 i, n, len;

	st = xcalloc(1, sizeof(*st));
	symtab_builder_sort(b);
	if (b->n == 0) {
		symtab_builder_free(b);
		return st;
	}

	/* One per address, the best of those at it: o[0..n) by index. */
	o = b->order;
	for (i = 1, n = 1; i < b->n; i++) {
		if (o[i].addr != o[n - 1].addr)
			o[n++] = o[i];
		else {
			c = &b->v[o[i].idx];
			best = &b->v[o[n - 1].idx];
			if (symtab_cand_cmp(c, best) < 0)
				o[n - 1] = o[i];
		}
	}

	/*
	 * The names of every candidate bound those kept: one pass over the
	 * candidates, in address order, whose reads go all over memory; the
	 * block shrinks to its size after.  Prefetching a few ahead hides
	 * part of those reads.
	 */
	st->v = xreallocarray(NULL, n, sizeof(*st->v));
	st->names = xmalloc(b->names_len);
	st->n = n;

	len = 0;
	for (i = 0; i < n; i++) {
		if (i + SYMTAB_PREFETCH < n)
			__builtin_prefetch(&b->v[o[i + SYMTAB_PREFETCH].idx]);
		c = &b->v[o[i].idx];
		s = &st->v[i];
		if (c->size != 0)
			size = c->size;
		else {
			end = c->limit;
			if (i + 1 < n && o[i + 1].addr < end)
				end = o[i + 1].addr;
			size = end > c->addr ? end - c->addr : 0;
		}
		/* Also keeps addr + size from wrapping. */
		if (size > UINT64_MAX - c->addr)
			size = UINT64_MAX - c->addr;
		s->addr = c->addr;
		s->size = size > UINT32_MAX ? UINT32_MAX : size;
		s->name = len;
		if (c->plain < c->len) {
			memcpy(st->names + len, c->name, c->plain);
			st->names[len + c->plain] = '\0';
			len += c->plain + 1;
			s->name |= SYMTAB_NAME_VERSIONED;
		}
		memcpy(st->names + len, c->name, c->len);
		st->names[len + c->len] = '\0';
		len += c->len + 1;
	}
	st->names = xreallocarray(st->names, len, 1);
	st->names_len = len;
	symtab_builder_free(b);
	return st;
}

void
symtab_free(struct symtab *st)
{
	if (st == NULL)
		return;
	free(st->v);
	free(st->names);
	free(st);
}

/*
 * The symbol covering addr, or NULL.  The search has no data-dependent
 * branch (the compiler makes the step a conditional move): a profile
 * asks for the same few addresses over and over, and then mispredicted
 * branches, not memory, are what a binary search costs.
 */
const struct symtab_sym *
symtab_find(const struct symtab *st, uint64_t addr)
{
	const struct symtab_sym	*base;
	size_t			 n, half;

	if (st == NULL || st->n == 0 || addr < st->v[0].addr)
		return NULL;
	base = st->v;
	n = st->n;
	while (n > 1) {
		half = n / 2;
		base = base[half].addr <= addr ? base + half : base;
		n -= half;
	}
	if (addr - base->addr >= base->size)
		return NULL;
	return base;
}

const char *
symtab_lookup(const struct symtab *st, uint64_t addr)
{
	const struct symtab_sym	*s;

	if ((s = symtab_find(st, addr)) == NULL)
		return NULL;
	return symtab_name(st, s);
}

size_t
symtab_count(const struct symtab *st)
{
	return st == NULL ? 0 : st->n;
}

size_t
symtab_bytes(const struct symtab *st)
{
	if (st == NULL)
		return 0;
	return sizeof(*st) + st->n * sizeof(*st->v) + st->names_len;
}
