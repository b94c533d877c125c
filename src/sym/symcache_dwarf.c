/*
 * Native frames from DWARF (src/dwarf/): the function an address is in
 * keeps its symbol table name, as every frame had before there was
 * DWARF, and each function inlined there becomes a frame of its own
 * below it, named "NAME (inlined)" -- demangled as configured -- so
 * that a folded stack or a flame graph tells code inlined from a real
 * call.  With [symbols] inlines off, the function alone, at the line of
 * the outermost call inlined there.  Each frame gets its file and line:
 * the innermost the address's, the others the call's inside them.
 *
 * A lookup the round's DWARF time did not allow (SRCLINE_LATER) names
 * the frame from the symbol table alone, counted in dwarf_later: the
 * caller does not keep that name (resolve_unstable) and asks again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "demangle.h"
#include "dwarf/srcline.h"
#include "symcache.h"
#include "symcache_int.h"

static void
symcache_dwarf_inlined(struct symcache *c, char *buf, const char *func)
{
	char	*dm = NULL;

	if (func == NULL)
		func = "[unknown]";
	else if (c->demangle != CONFIG_DEMANGLE_NONE &&
	    demangle_is_mangled(func) &&
	    (dm = demangle_name(func, c->demangle)) != NULL)
		func = dm;
	snprintf(buf, SYMCACHE_DWARF_NAME, "%.*s (inlined)",
	    SYMCACHE_DWARF_NAME - 12, func);
	free(dm);
}

/*
 * The functions at an ELF virtual address from the file's DWARF,
 * outermost first, as symcache_frames gives them; 0 when the DWARF
 * has nothing there (or not this round).
 */
size_t
symcache_dwarf_frames(struct symcache *c, struct symcache_file *f,
    uint64_t vaddr, const char **names, size_t max)
{
	struct symcache_dwarf_memo	*m = &c->dw;
	struct srcline_frame		 fr[SRCLINE_DEPTH_MAX];
	const char			*outer;
	size_t				 n, j, k;
	int				 got;

	m->f = NULL;
	got = srcline_lookup(f->sf.dwarf, vaddr, fr, SRCLINE_DEPTH_MAX);
	if (got == SRCLINE_LATER)
		c->dwarf_later++;
	if (got <= 0)
		return 0;
	n = got;
	if ((outer = symcache_name(c, f, vaddr)) == NULL &&
	    (outer = fr[n - 1].func) == NULL)
		return 0;
	k = c->inlines ? n : 1;
	if (k > max)
		k = max;
	/* Outermost first: names[j] is fr[n - 1 - j]. */
	names[0] = outer;
	for (j = 0; j < k; j++) {
		if (j > 0) {
			symcache_dwarf_inlined(c, m->names[j],
			    fr[n - 1 - j].func);
			names[j] = m->names[j];
		}
		m->files[j] = fr[n - 1 - j].file;
		m->lines[j] = fr[n - 1 - j].line;
	}
	m->f = f;
	m->vaddr = vaddr;
	m->n = k;
	return k;
}

/* The files and lines of the frames symcache_dwarf_frames just gave. */
size_t
symcache_dwarf_lines(struct symcache *c, const struct symcache_file *f,
    uint64_t vaddr, const char **files, int32_t *lines, size_t max)
{
	struct symcache_dwarf_memo	*m = &c->dw;
	size_t				 j;

	if (m->f != f || m->vaddr != vaddr || m->n > max)
		return 0;
	for (j = 0; j < m->n; j++) {
		files[j] = m->files[j];
		lines[j] = m->lines[j];
	}
	return m->n;
}

uint64_t
symcache_dwarf_later(const struct symcache *c)
{
	return c->dwarf_later;
}
