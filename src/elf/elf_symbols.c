/*
 * The function symbols of an ELF file's .symtab and .dynsym, into a
 * table builder (symtab.c).  The tables and their strings are untrusted:
 * every index and offset is checked, a name must end inside its string
 * table, and a table over the builder's bounds is refused from its
 * section header, before it is read.
 */
#include <sys/types.h>

#include <stdint.h>
#include <string.h>

#include "elf.h"
#include <gelf.h>

#include "elf_int.h"
#include "util/log.h"
#include "symtab.h"

/* Names copied at most: about twice a string table, and this. */
#define ELF_SYMBOLS_NAMES_SLACK	(64 * 1024)

/* Symbol i of a raw symbol table, as a GElf_Sym. */
static void
elf_symbols_sym(const struct elf_file *ef, const uint8_t *p, size_t i,
    GElf_Sym *sym)
{
	Elf64_Sym	 s64;
	Elf32_Sym	 s32;

	if (ef->is64) {
		memcpy(&s64, p + i * sizeof(s64), sizeof(s64));
		sym->st_name = s64.st_name;
		sym->st_info = s64.st_info;
		sym->st_shndx = s64.st_shndx;
		sym->st_value = s64.st_value;
		sym->st_size = s64.st_size;
	} else {
		memcpy(&s32, p + i * sizeof(s32), sizeof(s32));
		sym->st_name = s32.st_name;
		sym->st_info = s32.st_info;
		sym->st_shndx = s32.st_shndx;
		sym->st_value = s32.st_value;
		sym->st_size = s32.st_size;
	}
}

/*
 * The function symbols of one symbol table section.  The table and its
 * strings are read raw (native byte order and class: elf_file_check saw
 * to it) and the names borrowed from them until elf_file_close.
 */
static void
elf_symbols_table(struct elf_file *ef, Elf_Scn *scn, const GElf_Shdr *sh,
    struct symtab_builder *b, int skip_known)
{
	const struct elf_file_section	*sec;
	Elf_Scn				*strscn;
	GElf_Shdr			 strsh;
	GElf_Sym			 sym;
	const uint8_t			*syms;
	const char			*strs, *name;
	uint64_t			 limit, budget, strsize;
	size_t				 i, n, len;
	int				 type, bind, prio;

	if (sh->sh_entsize != (ef->is64 ? sizeof(Elf64_Sym) :
	    sizeof(Elf32_Sym)) || sh->sh_type == SHT_NOBITS)
		return;
	if (sh->sh_link == 0 || sh->sh_link >= ef->shnum ||
	    (strscn = elf_getscn(ef->e, sh->sh_link)) == NULL ||
	    gelf_getshdr(strscn, &strsh) == NULL ||
	    strsh.sh_type != SHT_STRTAB)
		return;
	/* Over the table's bounds: refused before anything is read. */
	if (!symtab_builder_fits(b, sh->sh_size / sh->sh_entsize,
	    strsh.sh_size))
		return;
	if ((syms = elf_file_raw(ef, sh->sh_offset, sh->sh_size)) == NULL ||
	    !elf_file_range_ok(ef, strsh.sh_offset, strsh.sh_size))
		return;
	/* Read when a name is wanted: .dynsym after .symtab may add none. */
	strs = NULL;
	strsize = strsh.sh_size;
	budget = 2 * strsize + ELF_SYMBOLS_NAMES_SLACK;
	n = sh->sh_size / sh->sh_entsize;
	if (!skip_known)
		symtab_builder_reserve(b, n);
	for (i = 1; i < n; i++) {
		elf_symbols_sym(ef, syms, i, &sym);
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		if (sym.st_name == 0 || sym.st_name >= strsize)
			continue;
		if (skip_known && symtab_builder_has(b, sym.st_value))
			continue;
		if (strs == NULL && (strs = (const char *)elf_file_raw(ef,
		    strsh.sh_offset, strsize)) == NULL)
			return;
		name = strs + sym.st_name;
		len = strnlen(name, strsize - sym.st_name);
		if (len == 0 || len == strsize - sym.st_name)
			continue;	/* not terminated in the table */
		/*
		 * Symbols may share a name, but a crafted file could point
		 * millions at one long string: copy at most about what the
		 * string table holds.
		 */
		if (len + 1 > budget) {
			log_debug("symbol names over budget: rest skipped");
			break;
		}
		budget -= len + 1;

		/* A symbol of unknown size ends with its section. */
		limit = sym.st_value;
		if (sym.st_shndx < ef->shnum && ef->sections != NULL) {
			sec = &ef->sections[sym.st_shndx];
			if (sym.st_value >= sec->addr &&
			    sym.st_value - sec->addr < sec->size)
				limit = sec->addr + sec->size;
		}
		bind = GELF_ST_BIND(sym.st_info);
		prio = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
		if (symtab_builder_add(b, sym.st_value, sym.st_size, limit,
		    name, len, prio) == -1)
			break;
	}
}

/*
 * Add the function symbols of .symtab and .dynsym (those of which asks
 * for) to b.  .dynsym holds the exported subset of .symtab, so when b
 * already has symbols (of .symtab, or of a debug file's) only the
 * addresses it lacks are taken from .dynsym: half the names to read,
 * copy and sort.
 */
int
elf_symbols_read(struct elf_file *ef, struct symtab_builder *b, int which)
{
	Elf_Scn		*scn = NULL, *symscn = NULL, *dynscn = NULL;
	GElf_Shdr	 sh, symsh, dynsh;

	while ((scn = elf_nextscn(ef->e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_SYMTAB && symscn == NULL) {
			symscn = scn;
			symsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && dynscn == NULL) {
			dynscn = scn;
			dynsh = sh;
		}
	}
	if (symscn != NULL && (which & ELF_SYMBOLS_SYMTAB))
		elf_symbols_table(ef, symscn, &symsh, b, 0);
	if (dynscn != NULL && (which & ELF_SYMBOLS_DYNSYM)) {
		if (symtab_builder_count(b) > 0)
			symtab_builder_index(b);
		elf_symbols_table(ef, dynscn, &dynsh, b,
		    symtab_builder_count(b) > 0);
	}
	return 0;
}
