/*
 * Kernel symbols from /proc/kallsyms: "addr type name" for the core
 * kernel, "addr type name\t[module]" for modules (and [bpf] for BPF
 * programs).  Only text symbols (t, T, w, W) are kept, named "name" or
 * "name [module]", in a symtab.
 *
 * kallsyms gives no sizes: a symbol extends to the next one, and the last
 * one, or one followed by a gap, by at most KALLSYMS_MAX_LEN bytes.
 * When kptr_restrict hides the addresses every one reads 0: the table is
 * then empty and kernel frames stay unknown.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"
#include "util/log.h"
#include "elf/symtab.h"
#include "util/xmalloc.h"

/* Above KSYM_NAME_LEN (512) plus a module name and the address. */
#define KALLSYMS_LINE_MAX	1024
#define KALLSYMS_MAX_LEN	(1024 * 1024)
/* /proc/kallsyms is a few MB; a file claiming more is not kallsyms. */
#define KALLSYMS_FILE_MAX	(256 * 1024 * 1024)
#define KALLSYMS_MAX_SYMS	(1U << 24)

struct kallsyms {
	struct symtab	*st;
	int		 restricted;
};

/*
 * The table is built in place, in the symtab's own arrays: the kernel's
 * 120,000 text symbols in the general builder (symtab.c) took three
 * times the table's memory while it was built, the daemon's peak.  Until
 * kallsyms_finish, a symbol's size field holds its priority (global 1,
 * local 0).
 */
struct kallsyms_builder {
	struct symtab_sym	*v;
	size_t			 n, cap;
	char			*names;
	size_t			 len, names_cap;
};

static void
kallsyms_add(struct kallsyms_builder *b, uint64_t addr, const char *name,
    size_t len, int prio)
{
	if (len == 0 || b->n >= KALLSYMS_MAX_SYMS || len + 1 > UINT32_MAX -
	    b->len)
		return;
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 4096;
		b->v = xreallocarray(b->v, b->cap, sizeof(*b->v));
	}
	while (b->len + len + 1 > b->names_cap) {
		b->names_cap = b->names_cap ? b->names_cap * 2 : 65536;
		b->names = xreallocarray(b->names, b->names_cap, 1);
	}
	b->v[b->n].addr = addr;
	b->v[b->n].size = prio;
	b->v[b->n].name = b->len;
	b->n++;
	memcpy(b->names + b->len, name, len);
	b->names[b->len + len] = '\0';
	b->len += len + 1;
}

static const char	*kallsyms_sort_names;

static size_t
kallsyms_underscores(const char *s)
{
	size_t	 n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * By address; of two names at one address the better first, as symtab.c
 * chooses: global over local, fewer leading underscores, the shorter,
 * the alphabetical first.
 */
static int
kallsyms_cmp(const void *a, const void *b)
{
	const struct symtab_sym	*x = a, *y = b;
	const char		*xn, *yn;
	size_t			 xu, yu, xl, yl;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	xn = kallsyms_sort_names + x->name;
	yn = kallsyms_sort_names + y->name;
	xu = kallsyms_underscores(xn);
	yu = kallsyms_underscores(yn);
	if (xu != yu)
		return xu < yu ? -1 : 1;
	xl = strlen(xn);
	yl = strlen(yn);
	if (xl != yl)
		return xl < yl ? -1 : 1;
	return strcmp(xn, yn);
}

/*
 * Sort, keep the best name at each address, and size each symbol: up to
 * the next one, at most KALLSYMS_MAX_LEN bytes.
 */
static struct symtab *
kallsyms_finish(struct kallsyms_builder *b)
{
	struct symtab	*st;
	uint64_t	 end;
	size_t		 i, n;

	st = xcalloc(1, sizeof(*st));
	if (b->n == 0) {
		free(b->v);
		free(b->names);
		return st;
	}
	kallsyms_sort_names = b->names;
	qsort(b->v, b->n, sizeof(*b->v), kallsyms_cmp);
	kallsyms_sort_names = NULL;
	for (i = 1, n = 1; i < b->n; i++) {
		if (b->v[i].addr != b->v[n - 1].addr)
			b->v[n++] = b->v[i];
	}
	for (i = 0; i < n; i++) {
		end = b->v[i].addr > UINT64_MAX - KALLSYMS_MAX_LEN ?
		    UINT64_MAX : b->v[i].addr + KALLSYMS_MAX_LEN;
		if (i + 1 < n && b->v[i + 1].addr < end)
			end = b->v[i + 1].addr;
		b->v[i].size = end - b->v[i].addr > UINT32_MAX ? UINT32_MAX :
		    end - b->v[i].addr;
	}
	st->v = xreallocarray(b->v, n, sizeof(*st->v));
	st->n = n;
	st->names = xreallocarray(b->names, b->len, 1);
	st->names_len = b->len;
	return st;
}

/*
 * Parse the line [p, end) "addr type name[\t[module]]" and add it to b
 * if it is a text symbol.  -1 if the line is malformed, else 0 with
 * *addr set.  The name, or "name [module]", is copied.
 */
static int
kallsyms_parse_line(char *p, char *end, struct kallsyms_builder *b,
    uint64_t *addr)
{
	char		 name[KALLSYMS_LINE_MAX + 8];
	char		*n, *nend, *mod, *mend;
	uint64_t	 a = 0;
	size_t		 k = 0;
	int		 type, d, len;

	for (; p < end && k < 17; p++, k++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			break;
		a = a << 4 | d;
	}
	if (k == 0 || k > 16 || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return -1;
	type = p[1];
	n = p + 3;
	for (nend = n; nend < end && *nend != '\t'; nend++)
		;
	if (nend == n)
		return -1;
	*addr = a;
	if (a == 0 || (type != 't' && type != 'T' && type != 'w' &&
	    type != 'W'))
		return 0;

	mod = NULL;
	if (end - nend > 2 && nend[1] == '[' && (mend = memchr(nend + 2, ']',
	    end - nend - 2)) != NULL && mend > nend + 2)
		mod = nend + 2;
	if (mod == NULL) {
		kallsyms_add(b, a, n, nend - n, type == 'T' || type == 'W');
		return 0;
	}
	len = snprintf(name, sizeof(name), "%.*s [%.*s]", (int)(nend - n), n,
	    (int)(mend - mod), mod);
	if (len < 0 || (size_t)len >= sizeof(name))
		return -1;
	kallsyms_add(b, a, name, len, type == 'T' || type == 'W');
	return 0;
}

/*
 * Read f line by line: the text symbols' names are copied, and the rest
 * of the file (two thirds of it, and 8 MB of a distribution kernel's)
 * is never held in memory at once, which bounded the daemon's peak RSS.
 */
struct kallsyms *
kallsyms_parse(FILE *f)
{
	struct kallsyms		*ks;
	struct kallsyms_builder	 b;
	char			 line[KALLSYMS_LINE_MAX + 1];
	size_t			 len, total = 0, good = 0, nonzero = 0;
	uint64_t		 addr;
	int			 toolong = 0, c;

	memset(&b, 0, sizeof(b));
	while (fgets(line, sizeof(line), f) != NULL) {
		len = strlen(line);
		if ((total += len) > KALLSYMS_FILE_MAX)
			break;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		else if ((c = getc(f)) != EOF) {
			/* Longer than a line can be: skip the rest of it. */
			ungetc(c, f);
			toolong = 1;
			continue;
		}
		if (toolong) {
			toolong = 0;
			continue;
		}
		if (kallsyms_parse_line(line, line + len, &b, &addr) == 0) {
			good++;
			if (addr != 0)
				nonzero++;
		}
	}
	if (ferror(f)) {
		log_warn("read kallsyms");
		free(b.v);
		free(b.names);
		return NULL;
	}
	ks = xcalloc(1, sizeof(*ks));
	ks->restricted = good > 0 && nonzero == 0;
	ks->st = kallsyms_finish(&b);
	return ks;
}

/* path NULL: /proc/kallsyms. */
struct kallsyms *
kallsyms_read(const char *path)
{
	static int	 warned;
	struct kallsyms	*ks;
	FILE		*f;

	if (path == NULL)
		path = "/proc/kallsyms";
	if ((f = fopen(path, "re")) == NULL) {
		log_warn("open %s", path);
		return NULL;
	}
	ks = kallsyms_parse(f);
	fclose(f);
	if (ks == NULL)
		return NULL;
	if (ks->restricted) {
		if (!warned)
			log_warnx("%s: addresses hidden (kernel.kptr_restrict"
			    " or no CAP_SYSLOG): kernel frames stay unknown",
			    path);
		warned = 1;
	} else
		log_debug("%s: %zu kernel symbols", path,
		    symtab_count(ks->st));
	return ks;
}

void
kallsyms_free(struct kallsyms *ks)
{
	if (ks == NULL)
		return;
	symtab_free(ks->st);
	free(ks);
}

const char *
kallsyms_lookup(const struct kallsyms *ks, uint64_t addr)
{
	if (ks == NULL)
		return NULL;
	return symtab_lookup(ks->st, addr);
}

size_t
kallsyms_count(const struct kallsyms *ks)
{
	return ks == NULL ? 0 : symtab_count(ks->st);
}

size_t
kallsyms_bytes(const struct kallsyms *ks)
{
	return ks == NULL ? 0 : sizeof(*ks) + symtab_bytes(ks->st);
}

int
kallsyms_is_restricted(const struct kallsyms *ks)
{
	return ks != NULL && ks->restricted;
}
