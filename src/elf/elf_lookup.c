/*
 * A small ELF reader for telling a runtime by its file: symbols by name,
 * bytes of initialized data, DT_NEEDED and PT_LOAD.  src/elf/elf.c
 * serves symbolization (function symbols, sorted); this one answers the
 * few questions a runtime's detection asks (src/python/python_file.c),
 * with pread() and explicit bounds and without mapping the file, so a
 * planted file can neither crash nor hang the daemon.
 */
#include <sys/types.h>

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_lookup.h"
#include "util/xmalloc.h"

#define ELF_LOOKUP_SECTIONS_MAX	4096
#define ELF_LOOKUP_SEGMENTS_MAX	256
#define ELF_LOOKUP_TABLE_MAX	(64 * 1024 * 1024)
#define ELF_LOOKUP_DYNAMIC_MAX	(1024 * 1024)

struct elf_lookup {
	int		 fd;
	uint64_t	 size;
	Elf64_Ehdr	 eh;
	Elf64_Shdr	*sh;
	size_t		 shnum;
	Elf64_Phdr	*ph;
	size_t		 phnum;
};

static int
elf_lookup_pread(struct elf_lookup *pe, void *buf, uint64_t len,
    uint64_t off)
{
	ssize_t	 n;
	size_t	 done = 0;

	if (off > pe->size || len > pe->size - off)
		return -1;
	while (done < len) {
		n = pread(pe->fd, (char *)buf + done, len - done, off + done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += n;
	}
	return 0;
}

/* A whole table of the file, bounded; NULL if it does not fit. */
static void *
elf_lookup_load(struct elf_lookup *pe, uint64_t off, uint64_t len,
    uint64_t max)
{
	void	*buf;

	if (len == 0 || len > max)
		return NULL;
	buf = xmalloc(len);
	if (elf_lookup_pread(pe, buf, len, off) == -1) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct elf_lookup *
elf_lookup_open(int fd)
{
	struct elf_lookup	*pe;
	off_t			 size;

	if ((size = lseek(fd, 0, SEEK_END)) == -1 ||
	    (uint64_t)size < sizeof(Elf64_Ehdr))
		return NULL;
	pe = xcalloc(1, sizeof(*pe));
	pe->fd = fd;
	pe->size = size;
	if (elf_lookup_pread(pe, &pe->eh, sizeof(pe->eh), 0) == -1 ||
	    memcmp(pe->eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    pe->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	    pe->eh.e_ident[EI_DATA] != ELFDATA2LSB ||
#else
	    pe->eh.e_ident[EI_DATA] != ELFDATA2MSB ||
#endif
	    (pe->eh.e_type != ET_EXEC && pe->eh.e_type != ET_DYN))
		goto fail;
	if (pe->eh.e_shoff != 0 && pe->eh.e_shnum > 0) {
		if (pe->eh.e_shentsize != sizeof(Elf64_Shdr) ||
		    pe->eh.e_shnum > ELF_LOOKUP_SECTIONS_MAX)
			goto fail;
		pe->shnum = pe->eh.e_shnum;
		if ((pe->sh = elf_lookup_load(pe, pe->eh.e_shoff,
		    pe->shnum * sizeof(Elf64_Shdr), UINT64_MAX)) == NULL)
			goto fail;
	}
	if (pe->eh.e_phoff != 0 && pe->eh.e_phnum > 0) {
		if (pe->eh.e_phentsize != sizeof(Elf64_Phdr) ||
		    pe->eh.e_phnum > ELF_LOOKUP_SEGMENTS_MAX)
			goto fail;
		pe->phnum = pe->eh.e_phnum;
		if ((pe->ph = elf_lookup_load(pe, pe->eh.e_phoff,
		    pe->phnum * sizeof(Elf64_Phdr), UINT64_MAX)) == NULL)
			goto fail;
	}
	return pe;

fail:
	elf_lookup_close(pe);
	return NULL;
}

void
elf_lookup_close(struct elf_lookup *pe)
{
	if (pe == NULL)
		return;
	free(pe->sh);
	free(pe->ph);
	free(pe);
}

/* Look the wanted names up in one symbol table; fills what it finds. */
static void
elf_lookup_symtab(struct elf_lookup *pe, const Elf64_Shdr *sh,
    const char *const *names, uint64_t *values, size_t n)
{
	const Elf64_Shdr	*strsh;
	Elf64_Sym		*syms = NULL;
	char			*strs = NULL;
	size_t			 nsyms, i, j, len;
	int			 type;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_link == 0 ||
	    sh->sh_link >= pe->shnum)
		return;
	strsh = &pe->sh[sh->sh_link];
	if (strsh->sh_type != SHT_STRTAB)
		return;
	if ((syms = elf_lookup_load(pe, sh->sh_offset, sh->sh_size,
	    ELF_LOOKUP_TABLE_MAX)) == NULL ||
	    (strs = elf_lookup_load(pe, strsh->sh_offset, strsh->sh_size,
	    ELF_LOOKUP_TABLE_MAX)) == NULL)
		goto done;
	nsyms = sh->sh_size / sizeof(Elf64_Sym);
	for (i = 1; i < nsyms; i++) {
		type = ELF64_ST_TYPE(syms[i].st_info);
		if ((type != STT_OBJECT && type != STT_FUNC) ||
		    syms[i].st_shndx == SHN_UNDEF || syms[i].st_value == 0 ||
		    syms[i].st_name >= strsh->sh_size)
			continue;
		len = strnlen(strs + syms[i].st_name,
		    strsh->sh_size - syms[i].st_name);
		if (len == strsh->sh_size - syms[i].st_name)
			continue;	/* not terminated in the table */
		for (j = 0; j < n; j++) {
			if (values[j] == 0 &&
			    strcmp(strs + syms[i].st_name, names[j]) == 0)
				values[j] = syms[i].st_value;
		}
	}
done:
	free(syms);
	free(strs);
}

/*
 * values[i] gets the address of names[i], 0 if it is not defined.
 * .symtab is searched too if symtab is set.  Returns how many were
 * found.
 */
int
elf_lookup_symbols(struct elf_lookup *pe, const char *const *names,
    uint64_t *values, size_t n, int symtab)
{
	size_t	 i, found;
	int	 pass;

	memset(values, 0, n * sizeof(*values));
	for (pass = 0; pass < (symtab ? 2 : 1); pass++) {
		for (i = 0; i < pe->shnum; i++) {
			if (pe->sh[i].sh_type == (pass == 0 ? SHT_DYNSYM :
			    SHT_SYMTAB))
				elf_lookup_symtab(pe, &pe->sh[i], names,
				    values, n);
		}
		for (i = found = 0; i < n; i++)
			found += values[i] != 0;
		if (found == n)
			break;
	}
	for (i = found = 0; i < n; i++)
		found += values[i] != 0;
	return found;
}

/*
 * Only allocated sections hold what the process has at an address:
 * .debug_* sections have address 0 and would "contain" small ones.
 */
int
elf_lookup_read(struct elf_lookup *pe, uint64_t vaddr, void *buf,
    size_t len)
{
	const Elf64_Shdr	*sh;
	size_t			 i;

	for (i = 0; i < pe->shnum; i++) {
		sh = &pe->sh[i];
		if (!(sh->sh_flags & SHF_ALLOC) || sh->sh_type == SHT_NOBITS ||
		    sh->sh_addr == 0)
			continue;
		if (vaddr < sh->sh_addr || vaddr - sh->sh_addr > sh->sh_size ||
		    len > sh->sh_size - (vaddr - sh->sh_addr))
			continue;
		if (sh->sh_offset > UINT64_MAX - (vaddr - sh->sh_addr))
			return -1;
		return elf_lookup_pread(pe, buf, len,
		    sh->sh_offset + (vaddr - sh->sh_addr));
	}
	return -1;
}

int
elf_lookup_needs(struct elf_lookup *pe, const char *prefix)
{
	const Elf64_Shdr	*sh, *strsh;
	Elf64_Dyn		*dyn = NULL;
	char			*strs = NULL;
	size_t			 i, j, n;
	int			 found = 0;

	for (i = 0; i < pe->shnum && !found; i++) {
		sh = &pe->sh[i];
		if (sh->sh_type != SHT_DYNAMIC || sh->sh_link == 0 ||
		    sh->sh_link >= pe->shnum)
			continue;
		strsh = &pe->sh[sh->sh_link];
		if ((dyn = elf_lookup_load(pe, sh->sh_offset, sh->sh_size,
		    ELF_LOOKUP_DYNAMIC_MAX)) == NULL ||
		    (strs = elf_lookup_load(pe, strsh->sh_offset,
		    strsh->sh_size, ELF_LOOKUP_DYNAMIC_MAX)) == NULL) {
			free(dyn);
			dyn = NULL;
			continue;
		}
		n = sh->sh_size / sizeof(Elf64_Dyn);
		for (j = 0; j < n && dyn[j].d_tag != DT_NULL; j++) {
			if (dyn[j].d_tag != DT_NEEDED ||
			    dyn[j].d_un.d_val >= strsh->sh_size)
				continue;
			if (strnlen(strs + dyn[j].d_un.d_val, strsh->sh_size -
			    dyn[j].d_un.d_val) < strsh->sh_size -
			    dyn[j].d_un.d_val && strncmp(strs +
			    dyn[j].d_un.d_val, prefix, strlen(prefix)) == 0)
				found = 1;
		}
		free(dyn);
		free(strs);
		dyn = NULL;
		strs = NULL;
	}
	return found;
}

/* The PT_LOAD segments with file data: offset, address, length. */
size_t
elf_lookup_loads(struct elf_lookup *pe, uint64_t *off, uint64_t *vaddr,
    uint64_t *len, size_t max)
{
	const Elf64_Phdr	*ph;
	size_t			 i, n = 0;

	for (i = 0; i < pe->phnum && n < max; i++) {
		ph = &pe->ph[i];
		if (ph->p_type != PT_LOAD || ph->p_filesz == 0)
			continue;
		off[n] = ph->p_offset;
		vaddr[n] = ph->p_vaddr;
		len[n] = ph->p_filesz;
		n++;
	}
	return n;
}
