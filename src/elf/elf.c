/*
 * src/elf/ reads binary files for the folders above it: sym/, unwind/
 * and the runtimes.  Two readers, because their callers ask different
 * things: this one (libelf) serves symbolization -- sorted function
 * symbols, sections, build ids -- and elf_lookup.c (pread) answers
 * bounded lookups by name in untrusted files without mapping them.
 * debuginfo.c finds a file's debug file (build id, .gnu_debuglink,
 * MiniDebugInfo); symtab.c is the sorted table symbols are read into.
 *
 * What symbolization needs from an ELF file, read with libelf: opening
 * it, the build id, and the PT_LOAD segments.  Its symbol tables are
 * elf_symbols.c's, its sections by name or address (for the readers of
 * MiniDebugInfo, Go's pclntab and .gnu_debuglink) elf_section.c's.
 *
 * The file is untrusted.  libelf reading a file descriptor (ELF_C_READ)
 * trusts the header's counts, so elf_file_open checks the header, the
 * section and program header tables against the real size of the file
 * first, and every section is checked again before its data is read:
 * nothing is allocated for more than the file holds.  ELF_C_READ reads
 * with pread rather than mmap, so a file truncated under us gives a short
 * read, not a SIGBUS.
 */
#include <sys/types.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf.h"
#include <gelf.h>

#include "elf_int.h"

#include "util/log.h"
#include "util/xmalloc.h"

/* Note sections are small; do not read a big one for a build id. */
#define ELF_FILE_NOTE_MAX	(64 * 1024)
#define ELF_FILE_SEGMENTS_MAX	256

static int
elf_file_init(void)
{
	static int	 done;

	if (done)
		return 0;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		log_warnx("libelf: %s", elf_errmsg(-1));
		return -1;
	}
	done = 1;
	return 0;
}

int
elf_file_pread(struct elf_file *ef, void *buf, size_t len, uint64_t off)
{
	ssize_t	 n;

	if (off > ef->size || len > ef->size - off)
		return -1;
	if (ef->mem != NULL) {
		memcpy(buf, ef->mem + off, len);
		return 0;
	}
	do
		n = pread(ef->fd, buf, len, off);
	while (n == -1 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

int
elf_file_range_ok(const struct elf_file *ef, uint64_t off, uint64_t len)
{
	return off <= ef->size && len <= ef->size - off;
}

/*
 * Check the header and the extents of both header tables before libelf
 * sees the file.  Only native byte order: a profiled process runs native
 * code.
 */
static int
elf_file_check(struct elf_file *ef)
{
	union {
		Elf32_Ehdr	 h32;
		Elf64_Ehdr	 h64;
	}		 h;
	Elf32_Shdr	 s32;
	Elf64_Shdr	 s64;
	uint64_t	 shoff, phoff, shnum, phnum, shentsize, phentsize;
	int		 is64;

	if (ef->size < sizeof(h.h32) ||
	    elf_file_pread(ef, &h, sizeof(h.h32), 0) == -1)
		return -1;
	if (memcmp(h.h32.e_ident, ELFMAG, SELFMAG) != 0)
		return -1;
	if (h.h32.e_ident[EI_CLASS] != ELFCLASS32 &&
	    h.h32.e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (h.h32.e_ident[EI_DATA] != ELFDATA2LSB)
		return -1;
#else
	if (h.h32.e_ident[EI_DATA] != ELFDATA2MSB)
		return -1;
#endif
	is64 = h.h32.e_ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		if (elf_file_pread(ef, &h, sizeof(h.h64), 0) == -1)
			return -1;
		if (h.h64.e_type != ET_EXEC && h.h64.e_type != ET_DYN &&
		    (!ef->rel_ok || h.h64.e_type != ET_REL))
			return -1;
		shoff = h.h64.e_shoff;
		shnum = h.h64.e_shnum;
		shentsize = h.h64.e_shentsize;
		phoff = h.h64.e_phoff;
		phnum = h.h64.e_phnum;
		phentsize = h.h64.e_phentsize;
	} else {
		if (h.h32.e_type != ET_EXEC && h.h32.e_type != ET_DYN &&
		    (!ef->rel_ok || h.h32.e_type != ET_REL))
			return -1;
		shoff = h.h32.e_shoff;
		shnum = h.h32.e_shnum;
		shentsize = h.h32.e_shentsize;
		phoff = h.h32.e_phoff;
		phnum = h.h32.e_phnum;
		phentsize = h.h32.e_phentsize;
	}

	/* Over 0xff00 sections, or PN_XNUM segments: counts in section 0. */
	if (shoff != 0 && (shnum == 0 || phnum == PN_XNUM)) {
		if (is64) {
			if (elf_file_pread(ef, &s64, sizeof(s64), shoff) == -1)
				return -1;
			if (shnum == 0)
				shnum = s64.sh_size;
			if (phnum == PN_XNUM)
				phnum = s64.sh_info;
		} else {
			if (elf_file_pread(ef, &s32, sizeof(s32), shoff) == -1)
				return -1;
			if (shnum == 0)
				shnum = s32.sh_size;
			if (phnum == PN_XNUM)
				phnum = s32.sh_info;
		}
	}
	if (shoff == 0)
		shnum = 0;
	if (shnum > 0) {
		if (shentsize != (is64 ? sizeof(Elf64_Shdr) :
		    sizeof(Elf32_Shdr)))
			return -1;
		if (shnum > ef->size / shentsize ||
		    !elf_file_range_ok(ef, shoff, shnum * shentsize))
			return -1;
	}
	if (phoff == 0)
		phnum = 0;
	if (phnum > 0) {
		if (phentsize != (is64 ? sizeof(Elf64_Phdr) :
		    sizeof(Elf32_Phdr)))
			return -1;
		if (phnum > ef->size / phentsize ||
		    !elf_file_range_ok(ef, phoff, phnum * phentsize))
			return -1;
	}
	ef->shnum = shnum;
	ef->phnum = phnum;
	ef->is64 = is64;
	return 0;
}

/* Section headers, for the symbols' limits; sections out of the file
 * are left zeroed. */
static void
elf_file_load_sections(struct elf_file *ef)
{
	Elf_Scn		*scn;
	GElf_Shdr	 sh;
	size_t		 i;

	if (ef->shnum == 0)
		return;
	ef->sections = xcalloc(ef->shnum, sizeof(*ef->sections));
	for (i = 1; i < ef->shnum; i++) {
		if ((scn = elf_getscn(ef->e, i)) == NULL ||
		    gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		ef->sections[i].addr = sh.sh_addr;
		ef->sections[i].size = sh.sh_size;
		ef->sections[i].flags = sh.sh_flags;
	}
}

static struct elf_file *
elf_file_begin(struct elf_file *ef)
{
	if (elf_file_init() == -1 || elf_file_check(ef) == -1)
		goto fail;
	if (ef->mem != NULL)
		ef->e = elf_memory((char *)ef->mem, ef->size);
	else
		ef->e = elf_begin(ef->fd, ELF_C_READ, NULL);
	if (ef->e == NULL)
		goto fail;
	if (elf_kind(ef->e) != ELF_K_ELF)
		goto fail;
	elf_file_load_sections(ef);
	return ef;
fail:
	elf_file_close(ef);
	return NULL;
}

/*
 * Open the ELF file on fd (a regular file: the caller checked), which
 * must stay open until elf_file_close.  NULL if it is not an ELF
 * executable or shared object we can read.
 */
struct elf_file *
elf_file_open(int fd)
{
	return elf_file_open_rel(fd, 0);
}

/*
 * The same, and with rel_ok a relocatable file too: dwz's supplementary
 * file is one (ET_REL, debug sections only).
 */
struct elf_file *
elf_file_open_rel(int fd, int rel_ok)
{
	struct elf_file	*ef;
	off_t		 size;

	if ((size = lseek(fd, 0, SEEK_END)) == -1 || size == 0)
		return NULL;
	ef = xcalloc(1, sizeof(*ef));
	ef->fd = fd;
	ef->size = size;
	ef->rel_ok = rel_ok;
	return elf_file_begin(ef);
}

/* An ELF image in memory (the vDSO), kept by the caller. */
struct elf_file *
elf_file_open_mem(const void *mem, size_t size)
{
	return elf_file_open_mem_rel(mem, size, 0);
}

struct elf_file *
elf_file_open_mem_rel(const void *mem, size_t size, int rel_ok)
{
	struct elf_file	*ef;

	if (mem == NULL || size == 0)
		return NULL;
	ef = xcalloc(1, sizeof(*ef));
	ef->fd = -1;
	ef->mem = mem;
	ef->size = size;
	ef->rel_ok = rel_ok;
	return elf_file_begin(ef);
}

void
elf_file_close(struct elf_file *ef)
{
	struct elf_file_buf	*b, *next;

	if (ef == NULL)
		return;
	if (ef->e != NULL)
		elf_end(ef->e);
	for (b = ef->bufs; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	free(ef->sections);
	free(ef);
}

/*
 * The raw bytes [off, off + len) of the file, which stay until
 * elf_file_close: the image itself when it is in memory, else read
 * once (with pread, not through libelf, which would copy them again).
 */
const uint8_t *
elf_file_raw(struct elf_file *ef, uint64_t off, uint64_t len)
{
	struct elf_file_buf	*b;

	if (len == 0 || !elf_file_range_ok(ef, off, len))
		return NULL;
	if (ef->mem != NULL)
		return ef->mem + off;
	b = xmalloc(sizeof(*b) + len);
	if (elf_file_pread(ef, b->data, len, off) == -1) {
		free(b);
		return NULL;
	}
	b->next = ef->bufs;
	ef->bufs = b;
	return b->data;
}

/* The data of a section, after checking that it lies in the file. */
static Elf_Data *
elf_file_data(struct elf_file *ef, Elf_Scn *scn, const GElf_Shdr *sh,
    uint64_t max)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0 ||
	    sh->sh_size > max || !elf_file_range_ok(ef, sh->sh_offset,
	    sh->sh_size))
		return NULL;
	return elf_getdata(scn, NULL);
}

static int
elf_file_note_build_id(Elf_Data *d, uint8_t *buf, size_t len, size_t *outlen)
{
	GElf_Nhdr	 nh;
	size_t		 off = 0, next, name_off, desc_off;

	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0) {
			if (nh.n_descsz == 0 || nh.n_descsz > len)
				return -1;
			memcpy(buf, (char *)d->d_buf + desc_off, nh.n_descsz);
			*outlen = nh.n_descsz;
			return 0;
		}
		if (next <= off)
			break;
		off = next;
	}
	return -1;
}

/* The NT_GNU_BUILD_ID note, from the note sections or else PT_NOTE. */
int
elf_file_build_id(struct elf_file *ef, uint8_t *buf, size_t len,
    size_t *outlen)
{
	Elf_Scn		*scn = NULL;
	Elf_Data	*d;
	GElf_Shdr	 sh;
	GElf_Phdr	 ph;
	size_t		 i;

	while ((scn = elf_nextscn(ef->e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
			continue;
		if ((d = elf_file_data(ef, scn, &sh, ELF_FILE_NOTE_MAX)) ==
		    NULL)
			continue;
		if (elf_file_note_build_id(d, buf, len, outlen) == 0)
			return 0;
	}
	if (ef->shnum > 0)
		return -1;
	for (i = 0; i < ef->phnum; i++) {
		if (gelf_getphdr(ef->e, i, &ph) == NULL ||
		    ph.p_type != PT_NOTE || ph.p_filesz == 0 ||
		    ph.p_filesz > ELF_FILE_NOTE_MAX ||
		    !elf_file_range_ok(ef, ph.p_offset, ph.p_filesz))
			continue;
		if ((d = elf_getdata_rawchunk(ef->e, ph.p_offset, ph.p_filesz,
		    ELF_T_NHDR)) == NULL)
			continue;
		if (elf_file_note_build_id(d, buf, len, outlen) == 0)
			return 0;
	}
	return -1;
}

/* 1 if the file has a .symtab (it is not stripped). */
int
elf_file_has_symtab(struct elf_file *ef)
{
	Elf_Scn		*scn = NULL;
	GElf_Shdr	 sh;

	while ((scn = elf_nextscn(ef->e, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL &&
		    sh.sh_type == SHT_SYMTAB && sh.sh_size > 0)
			return 1;
	return 0;
}

/* The PT_LOAD segments, in file order; NULL when there is none. */
struct elf_file_segment *
elf_file_segments(struct elf_file *ef, size_t *np)
{
	struct elf_file_segment	*v = NULL;
	GElf_Phdr		 ph;
	size_t			 i, n = 0;

	for (i = 0; i < ef->phnum && n < ELF_FILE_SEGMENTS_MAX; i++) {
		if (gelf_getphdr(ef->e, i, &ph) == NULL ||
		    ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		if (ph.p_offset + ph.p_filesz < ph.p_offset ||
		    ph.p_vaddr + ph.p_filesz < ph.p_vaddr)
			continue;
		v = xreallocarray(v, n + 1, sizeof(*v));
		v[n].offset = ph.p_offset;
		v[n].vaddr = ph.p_vaddr;
		v[n].filesz = ph.p_filesz;
		v[n].memsz = ph.p_memsz;
		v[n].flags = ph.p_flags;
		n++;
	}
	*np = n;
	return v;
}

/*
 * File offset to virtual address: the segment holding the offset maps
 * it.  Executable segments first, in case a crafted file overlaps them.
 */
int
elf_file_offset_to_vaddr(const struct elf_file_segment *v, size_t n,
    uint64_t off, uint64_t *vaddr)
{
	size_t	 i;
	int	 pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			if ((pass == 0) != ((v[i].flags & PF_X) != 0))
				continue;
			if (off >= v[i].offset &&
			    off - v[i].offset < v[i].filesz) {
				*vaddr = off - v[i].offset + v[i].vaddr;
				return 0;
			}
		}
	return -1;
}

int
elf_file_vaddr_to_offset(const struct elf_file_segment *v, size_t n,
    uint64_t vaddr, uint64_t *off)
{
	size_t	 i;
	int	 pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			if ((pass == 0) != ((v[i].flags & PF_X) != 0))
				continue;
			if (vaddr >= v[i].vaddr &&
			    vaddr - v[i].vaddr < v[i].filesz) {
				*off = vaddr - v[i].vaddr + v[i].offset;
				return 0;
			}
		}
	return -1;
}

uint64_t
elf_file_size(const struct elf_file *ef)
{
	return ef->size;
}

/*
 * The file's e_machine (EM_X86_64, EM_AARCH64...), or -1: the unwind
 * tables read the registers of the file's architecture, not the host's.
 */
int
elf_file_machine(struct elf_file *ef)
{
	GElf_Ehdr	 eh;

	if (gelf_getehdr(ef->e, &eh) == NULL)
		return -1;
	return eh.e_machine;
}

/* len bytes at off, all inside the file, or -1. */
int
elf_file_read(struct elf_file *ef, void *buf, size_t len, uint64_t off)
{
	return elf_file_pread(ef, buf, len, off);
}

/*
 * libelf's handle of the file, checked by elf_file_open, for libdw
 * (src/dwarf/): valid until elf_file_close.
 */
struct Elf *
elf_file_libelf(struct elf_file *ef)
{
	return ef->e;
}

/*
 * What the file's DWARF sections take in memory once read: their
 * sizes, and a compressed one's size decompressed (its header's, as
 * libdw will allocate it) besides.  0: none.
 */
uint64_t
elf_file_debug_bytes(struct elf_file *ef)
{
	Elf_Scn		*scn = NULL;
	GElf_Shdr	 sh;
	Elf64_Chdr	 c64;
	Elf32_Chdr	 c32;
	const char	*name;
	size_t		 shstrndx;
	uint64_t	 sum = 0;

	if (elf_getshdrstrndx(ef->e, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(ef->e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS ||
		    (name = elf_strptr(ef->e, shstrndx, sh.sh_name)) == NULL ||
		    (strncmp(name, ".debug_", 7) != 0 &&
		    strncmp(name, ".zdebug_", 8) != 0))
			continue;
		sum += sh.sh_size;
		/* The header alone: libelf's would read the whole section. */
		if (!(sh.sh_flags & SHF_COMPRESSED)) {
			if (name[1] == 'z')
				sum += 4 * sh.sh_size;	/* no header: a guess */
		} else if (ef->is64 && elf_file_pread(ef, &c64, sizeof(c64),
		    sh.sh_offset) == 0)
			sum += c64.ch_size;
		else if (!ef->is64 && elf_file_pread(ef, &c32, sizeof(c32),
		    sh.sh_offset) == 0)
			sum += c32.ch_size;
	}
	return sum;
}
