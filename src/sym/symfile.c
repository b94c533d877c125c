/*
 * The symbols of one ELF file, from every place they can be: the file's
 * .symtab and .dynsym; for a stripped file, a debug file found by build
 * id or .gnu_debuglink (following at most DEBUGINFO_DEPTH_MAX links),
 * else its MiniDebugInfo, merged with its .dynsym; and for a Go binary,
 * its .gopclntab beside them; and an ELF image in memory (a vDSO).
 *
 * The symbol names of the files read are borrowed by the table builder
 * until it copies them into one block, so every file stays open until
 * then, and is closed before symfile_load returns: a table holds no
 * file descriptor.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/srcline.h"
#include "elf/debuginfo.h"
#include "elf/elf.h"
#include "gopclntab.h"
#include "util/log.h"
#include "symfile.h"
#include "elf/symtab.h"
#include "util/xmalloc.h"

/* What identifies the file's contents: its build id, and its .symtab. */
void
symfile_identify(struct symfile *sf, struct elf_file *ef)
{
	if (elf_file_build_id(ef, sf->build_id, sizeof(sf->build_id),
	    &sf->build_id_len) == -1)
		sf->build_id_len = 0;
	sf->has_symtab = elf_file_has_symtab(ef);
}

/*
 * The debug file of a stripped file that has a .symtab, as the process
 * of ctx sees it: by build id or .gnu_debuglink, following at most
 * DEBUGINFO_DEPTH_MAX links.  What it found stays open in d (d->ef
 * NULL: none) until symfile_debug_close.
 */
void
symfile_debug_find(struct symfile_debug *d, const struct symfile *sf,
    struct elf_file *ef, const struct symfile_ctx *ctx)
{
	struct debuginfo_ctx	 dctx;
	struct debuginfo_seen	 seen;
	struct elf_file		*cur = ef;

	memset(d, 0, sizeof(*d));
	memset(&dctx, 0, sizeof(dctx));
	dctx.pid = ctx->pid;
	dctx.path = ctx->path;
	dctx.dirs = ctx->debug_dirs;
	memset(&seen, 0, sizeof(seen));
	debuginfo_seen_add(&seen, ctx->dev, ctx->ino);
	while (d->ndf < DEBUGINFO_DEPTH_MAX && debuginfo_find(&d->df[d->ndf],
	    cur, sf->build_id, sf->build_id_len, &dctx, &seen) == 0) {
		cur = d->df[d->ndf++].ef;
		if (elf_file_has_symtab(cur) &&
		    fstat(d->df[d->ndf - 1].fd, &d->sb) == 0) {
			d->ef = cur;
			d->source = strcmp(d->df[d->ndf - 1].how,
			    "build-id") == 0 ? SYMFILE_BUILD_ID :
			    SYMFILE_DEBUGLINK;
			return;
		}
	}
}

void
symfile_debug_close(struct symfile_debug *d)
{
	size_t	 i;

	for (i = 0; i < d->ndf; i++)
		debuginfo_close(&d->df[i]);
	d->ndf = 0;
	d->ef = NULL;
}

/* Counted for the whole daemon: a file refused is one event. */
static struct symfile_stats symfile_refused;

/* Say and count what a file's bounds refused: SYMTAB_REFUSED_*, mini. */
static void
symfile_refuse(const char *name, unsigned int why, int mini,
    const struct symfile_limits *lim)
{
	if (why & SYMTAB_REFUSED_SYMBOLS) {
		symfile_refused.refused_symbols++;
		log_warnx("%s: more than max_symbols_per_file (%zu) "
		    "symbols: refused", name, lim->max_symbols);
	}
	if (why & SYMTAB_REFUSED_NAMES) {
		symfile_refused.refused_names++;
		log_warnx("%s: more than max_symbol_bytes_per_file (%zu) "
		    "bytes of names: refused", name, lim->max_names);
	}
	if (mini) {
		symfile_refused.refused_debugdata++;
		log_warnx("%s: .gnu_debugdata over max_debugdata_bytes "
		    "(%zu): refused", name, lim->max_debugdata);
	}
}

/*
 * Read the symbols of an open ELF file, identified already, into sf:
 * for a stripped one, those of its debug file d found (NULL or none:
 * of its MiniDebugInfo) and its .dynsym.  What is over the bounds lim
 * is not read: a symbol table, MiniDebugInfo or Go table over them
 * gives no names, the others still do.
 */
void
symfile_load(struct symfile *sf, struct elf_file *ef,
    const struct symfile_debug *d, const struct symfile_limits *lim,
    const char *name)
{
	static const struct symfile_limits none;
	struct symtab_builder	*b;
	struct elf_file		*mef = NULL;
	void			*mini = NULL;
	size_t			 n, len;
	unsigned int		 go_over = 0;
	int			 mini_over = 0;

	if (lim == NULL)
		lim = &none;
	if (name == NULL)
		name = "?";
	if ((sf->segs = elf_file_segments(ef, &sf->nsegs)) == NULL)
		return;
	b = symtab_builder_create();
	symtab_builder_limit(b, lim->max_symbols, lim->max_names);
	if (sf->has_symtab) {
		elf_symbols_read(ef, b, ELF_SYMBOLS_SYMTAB |
		    ELF_SYMBOLS_DYNSYM);
		sf->sources |= SYMFILE_SYMTAB;
	} else {
		if (d != NULL && d->ef != NULL) {
			elf_symbols_read(d->ef, b, ELF_SYMBOLS_SYMTAB);
			sf->sources |= d->source;
		} else if ((errno = 0, mini = debuginfo_mini(ef,
		    lim->max_debugdata, &len)) != NULL) {
			if ((mef = elf_file_open_mem(mini, len)) != NULL) {
				elf_symbols_read(mef, b, ELF_SYMBOLS_SYMTAB);
				sf->sources |= SYMFILE_MINIDEBUG;
			} else
				log_debug("%s: .gnu_debugdata is not an ELF "
				    "file", name);
		} else
			mini_over = errno == EFBIG;
		n = symtab_builder_count(b);
		elf_symbols_read(ef, b, ELF_SYMBOLS_DYNSYM);
		if (symtab_builder_count(b) > n)
			sf->sources |= SYMFILE_DYNSYM;
	}
	errno = 0;
	if ((sf->go = gopclntab_read(ef, lim->max_symbols,
	    lim->max_names)) != NULL)
		sf->sources |= SYMFILE_GO;
	else if (errno == EFBIG)
		go_over = SYMTAB_REFUSED_SYMBOLS;
	else if (errno == EOVERFLOW)
		go_over = SYMTAB_REFUSED_NAMES;
	if (symtab_builder_refused(b) != 0 || mini_over || go_over)
		symfile_refuse(name, symtab_builder_refused(b) | go_over,
		    mini_over, lim);
	sf->symtab = symtab_builder_finish(b);
	/*
	 * Stripped: where no symbol names a frame, the range of the
	 * function it is in groups its addresses under one name.
	 */
	if (!sf->has_symtab)
		sf->nfde = elf_fde_ranges(ef, &sf->fde, lim->max_symbols != 0 ?
		    lim->max_symbols : SIZE_MAX);
	elf_file_close(mef);
	free(mini);
}

void
symfile_stats(struct symfile_stats *st)
{
	*st = symfile_refused;
}

void
symfile_log_state(void)
{
	log_info("symbols: tables refused over their bounds: %llu over "
	    "max_symbols_per_file, %llu over max_symbol_bytes_per_file, "
	    "%llu over max_debugdata_bytes",
	    (unsigned long long)symfile_refused.refused_symbols,
	    (unsigned long long)symfile_refused.refused_names,
	    (unsigned long long)symfile_refused.refused_debugdata);
}

/* An ELF image in memory: the vDSO. */
int
symfile_load_mem(struct symfile *sf, const void *mem, size_t len)
{
	struct symtab_builder	*b;
	struct elf_file		*ef;

	if ((ef = elf_file_open_mem(mem, len)) == NULL)
		return -1;
	symfile_identify(sf, ef);
	if ((sf->segs = elf_file_segments(ef, &sf->nsegs)) != NULL) {
		b = symtab_builder_create();
		elf_symbols_read(ef, b, ELF_SYMBOLS_SYMTAB |
		    ELF_SYMBOLS_DYNSYM);
		sf->symtab = symtab_builder_finish(b);
		sf->sources |= SYMFILE_DYNSYM;
	}
	elf_file_close(ef);
	return 0;
}

void
symfile_release(struct symfile *sf)
{
	symtab_free(sf->symtab);
	sf->symtab = NULL;
	gopclntab_free(sf->go);
	sf->go = NULL;
	srcline_free(sf->dwarf);
	sf->dwarf = NULL;
	free(sf->segs);
	sf->segs = NULL;
	sf->nsegs = 0;
	free(sf->fde);
	sf->fde = NULL;
	sf->nfde = 0;
}

size_t
symfile_count(const struct symfile *sf)
{
	return symtab_count(sf->symtab) + gopclntab_count(sf->go);
}

size_t
symfile_bytes(const struct symfile *sf)
{
	return symtab_bytes(sf->symtab) + gopclntab_bytes(sf->go) +
	    sf->nsegs * sizeof(*sf->segs) + sf->nfde * sizeof(*sf->fde);
}
