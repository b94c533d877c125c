/*
 * An ELF file's sections: found by name, by suffix, by address or in
 * turn, and their contents copied out after checking they lie in the
 * file; and .gnu_debuglink, the debug file's name and CRC.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf.h"
#include <gelf.h>

#include "elf_int.h"
#include "util/xmalloc.h"

static int
elf_section_get(struct elf_file *ef, Elf_Scn *scn, struct elf_file_scn *out)
{
	GElf_Shdr	 sh;

	if (gelf_getshdr(scn, &sh) == NULL)
		return -1;
	out->addr = sh.sh_addr;
	out->offset = sh.sh_offset;
	out->size = sh.sh_size;
	out->flags = sh.sh_flags;
	out->type = sh.sh_type;
	return 0;
}

static const char *
elf_section_name(struct elf_file *ef, Elf_Scn *scn)
{
	GElf_Shdr	 sh;
	size_t		 shstrndx;

	if (elf_getshdrstrndx(ef->e, &shstrndx) != 0 ||
	    gelf_getshdr(scn, &sh) == NULL)
		return NULL;
	/* elf_strptr checks the offset and the termination. */
	return elf_strptr(ef->e, shstrndx, sh.sh_name);
}

/* The section called name; -1 if there is none. */
int
elf_section_find(struct elf_file *ef, const char *name,
    struct elf_file_scn *out)
{
	Elf_Scn		*scn = NULL;
	const char	*n;

	while ((scn = elf_nextscn(ef->e, scn)) != NULL)
		if ((n = elf_section_name(ef, scn)) != NULL &&
		    strcmp(n, name) == 0)
			return elf_section_get(ef, scn, out);
	return -1;
}

/* The first section whose name ends in suffix (".gopclntab"). */
int
elf_section_find_suffix(struct elf_file *ef, const char *suffix,
    struct elf_file_scn *out)
{
	Elf_Scn		*scn = NULL;
	const char	*n;
	size_t		 len, slen = strlen(suffix);

	while ((scn = elf_nextscn(ef->e, scn)) != NULL) {
		if ((n = elf_section_name(ef, scn)) == NULL)
			continue;
		len = strlen(n);
		if (len >= slen && strcmp(n + len - slen, suffix) == 0)
			return elf_section_get(ef, scn, out);
	}
	return -1;
}

/* Every section in turn: *idx starts at 0; -1 after the last. */
int
elf_section_next(struct elf_file *ef, size_t *idx,
    struct elf_file_scn *out)
{
	Elf_Scn		*scn;

	while (++*idx < ef->shnum) {
		if ((scn = elf_getscn(ef->e, *idx)) != NULL &&
		    elf_section_get(ef, scn, out) == 0)
			return 0;
	}
	return -1;
}

/* The allocated section, with contents in the file, holding vaddr. */
int
elf_section_at(struct elf_file *ef, uint64_t vaddr,
    struct elf_file_scn *out)
{
	size_t	 i = 0;

	while (elf_section_next(ef, &i, out) == 0)
		if ((out->flags & SHF_ALLOC) && out->type != SHT_NOBITS &&
		    vaddr >= out->addr && vaddr - out->addr < out->size &&
		    elf_file_range_ok(ef, out->offset, out->size))
			return 0;
	return -1;
}

/*
 * A copy of a section's contents, NULL when it has none in the file or
 * is larger than max.  The size is checked against the file's real
 * size first, so a header cannot make us allocate more than the file.
 */
void *
elf_section_data(struct elf_file *ef, const struct elf_file_scn *sc,
    size_t max)
{
	void	*buf;

	if (sc->type == SHT_NOBITS || sc->size == 0 || sc->size > max ||
	    (sc->flags & SHF_COMPRESSED) ||
	    !elf_file_range_ok(ef, sc->offset, sc->size))
		return NULL;
	buf = xmalloc(sc->size);
	if (elf_file_pread(ef, buf, sc->size, sc->offset) == -1) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * .gnu_debuglink: a file name, NUL, padding to 4 bytes, and the CRC-32
 * of the debug file.  Only a plain file name is accepted: the name is
 * looked up in directories of our choosing, never as a path.
 */
int
elf_section_debuglink(struct elf_file *ef, char *name, size_t len,
    uint32_t *crc)
{
	struct elf_file_scn	 sc;
	char			 buf[ELF_FILE_DEBUGLINK_MAX + 8];
	size_t			 n, off;

	if (elf_section_find(ef, ".gnu_debuglink", &sc) == -1 ||
	    sc.type == SHT_NOBITS || sc.size < 8 || sc.size > sizeof(buf) ||
	    elf_file_pread(ef, buf, sc.size, sc.offset) == -1)
		return -1;
	n = strnlen(buf, sc.size);
	if (n == 0 || n >= len || n == sc.size)
		return -1;
	off = (n + 4) & ~(size_t)3;
	if (off + 4 > sc.size)
		return -1;
	if (memchr(buf, '/', n) != NULL || strcmp(buf, ".") == 0 ||
	    strcmp(buf, "..") == 0)
		return -1;
	memcpy(name, buf, n + 1);
	memcpy(crc, buf + off, 4);
	return 0;
}
