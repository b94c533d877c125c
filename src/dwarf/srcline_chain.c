/*
 * An address's inline chain in its compilation unit, innermost first,
 * as addr2line -i prints it: the functions holding the address
 * (srcline_scope.c: DW_TAG_inlined_subroutine inside others, down from
 * the DW_TAG_subprogram the code is in; not dwarf_getscopes, which
 * walks the unit at each lookup and, past an inlined function, gives
 * its abstract origin's scopes); the innermost function's file
 * and line from the unit's line table (.debug_line), each outer one's
 * from the inlined call inside it (DW_AT_call_file, DW_AT_call_line).
 * Names come through DW_AT_abstract_origin and DW_AT_specification
 * (dwarf_attr_integrate, which gives up on a chain of them longer than
 * libdw's bound, so a loop of origins ends), from a dwz supplementary
 * file too (DW_FORM_GNU_ref_alt, DW_FORM_ref_sup).
 *
 * The strings returned are libdw's: valid while the file's Dwarf is.
 */
#include <stdint.h>
#include <stdlib.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "srcline_int.h"

/* A line table row as libdw holds it, about (struct Dwarf_Line_s). */
#define SRCLINE_CHAIN_ROW_BYTES	48
#define SRCLINE_CHAIN_FILE_BYTES 32

static const char *
srcline_chain_name(Dwarf_Die *die)
{
	static const unsigned int	 names[] = { DW_AT_linkage_name,
	    DW_AT_MIPS_linkage_name, DW_AT_name };
	Dwarf_Attribute			 a;
	const char			*s;
	size_t				 i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (dwarf_attr_integrate(die, names[i], &a) != NULL &&
		    (s = dwarf_formstring(&a)) != NULL && *s != '\0')
			return s;
	return NULL;
}

/* Where the call inlined at die was: its file and line, or none. */
static void
srcline_chain_call(Dwarf_Die *cudie, Dwarf_Die *die, Dwarf_Files **files,
    size_t *nfiles, const char **file, int32_t *line)
{
	Dwarf_Attribute	 a;
	Dwarf_Word	 v;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_file, &a) != NULL &&
	    dwarf_formudata(&a, &v) == 0) {
		if (*files == NULL && dwarf_getsrcfiles(cudie, files,
		    nfiles) != 0)
			*files = NULL;
		if (*files != NULL && v < *nfiles)
			*file = dwarf_filesrc(*files, v, NULL, NULL);
	}
	if (dwarf_attr(die, DW_AT_call_line, &a) != NULL &&
	    dwarf_formudata(&a, &v) == 0 && v <= INT32_MAX)
		*line = (int32_t)v;
}

/*
 * The chain at addr in the unit of cudie into out, innermost first; how
 * many (0: no line and no function there).  A function without a name
 * has func NULL; an address with a line and no function DIE is one
 * frame of func NULL.
 */
int
srcline_chain(Dwarf *dbg, Dwarf_Die *cudie, const struct srcline_unit *u,
    uint64_t addr, struct srcline_frame *out, size_t max)
{
	Dwarf_Off	 offs[SRCLINE_DEPTH_MAX];
	Dwarf_Die	 die;
	Dwarf_Line	*ln;
	Dwarf_Files	*files = NULL;
	size_t		 nfiles = 0, n = 0, nf, i;
	const char	*file = NULL;
	int32_t		 line = 0;
	int		 tag, l;

	if (max == 0)
		return 0;
	if ((ln = dwarf_getsrc_die(cudie, addr)) != NULL) {
		file = dwarf_linesrc(ln, NULL, NULL);
		if (dwarf_lineno(ln, &l) == 0 && l > 0)
			line = l;
	}
	nf = srcline_scope_find(u, addr, offs, SRCLINE_DEPTH_MAX);
	for (i = 0; i < nf && n < max; i++) {
		if (dwarf_offdie(dbg, offs[i], &die) == NULL)
			break;
		tag = dwarf_tag(&die);
		out[n].func = srcline_chain_name(&die);
		out[n].file = file;
		out[n].line = line;
		n++;
		if (tag != DW_TAG_inlined_subroutine)
			break;
		srcline_chain_call(cudie, &die, &files, &nfiles, &file, &line);
	}
	if (n == 0 && file != NULL) {
		out[0].func = NULL;
		out[0].file = file;
		out[0].line = line;
		n = 1;
	}
	return (int)n;
}

/* What the unit's line table costs libdw once read, about. */
size_t
srcline_chain_line_bytes(Dwarf_Die *cudie)
{
	Dwarf_Lines	*lines;
	Dwarf_Files	*files;
	size_t		 nlines = 0, nfiles = 0;

	if (dwarf_getsrclines(cudie, &lines, &nlines) != 0)
		nlines = 0;
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0)
		nfiles = 0;
	return nlines * SRCLINE_CHAIN_ROW_BYTES +
	    nfiles * SRCLINE_CHAIN_FILE_BYTES;
}
