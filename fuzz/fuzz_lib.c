/*
 * Helpers of the fuzz harnesses: quiet logging, a private directory,
 * in-memory files, and made-up ELF files that carry a fuzzed section.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "util/log.h"

static char	 fuzz_dir[PATH_MAX];
static pid_t	 fuzz_dir_owner;

static void
fuzz_quiet(void)
{
	const char	*v;
	FILE		*f;

	if ((v = getenv("FUZZ_VERBOSE")) != NULL) {
		/* 1: the log as the daemon writes it; 2, 3: -v, -vv. */
		log_setverbose(atoi(v) - 1);
		return;
	}
	/*
	 * The daemon logs to the stderr stream; libFuzzer and the
	 * sanitizers write to descriptor 2 (libFuzzer through the stream it
	 * took at start), so their reports still show.
	 */
	if ((f = fopen("/dev/null", "w")) != NULL)
		stderr = f;
}

/* libFuzzer calls it once, before the first input; so does replay.c. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static int	 done;

	if (done++)
		return 0;
	fuzz_quiet();
	if (fuzz_setup != NULL)
		fuzz_setup();
	return 0;
}

static int
fuzz_rm_cb(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	if (ftw->level > 0)
		remove(path);
	return 0;
}

void
fuzz_empty_dir(const char *dir)
{
	nftw(dir, fuzz_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void
fuzz_tmpdir_cleanup(void)
{
	if (fuzz_dir[0] == '\0' || getpid() != fuzz_dir_owner)
		return;
	fuzz_empty_dir(fuzz_dir);
	rmdir(fuzz_dir);
}

const char *
fuzz_tmpdir(void)
{
	const char	*t;

	if (fuzz_dir[0] != '\0')
		return fuzz_dir;
	if ((t = getenv("TMPDIR")) == NULL || *t == '\0')
		t = "/tmp";
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/ebpfspy-fuzz.XXXXXX", t);
	if (mkdtemp(fuzz_dir) == NULL) {
		perror(fuzz_dir);
		abort();
	}
	fuzz_dir_owner = getpid();
	atexit(fuzz_tmpdir_cleanup);
	return fuzz_dir;
}

int
fuzz_memfd(const void *data, size_t len)
{
	const char	*p = data;
	ssize_t		 n;
	int		 fd;

	if ((fd = memfd_create("fuzz", MFD_CLOEXEC)) == -1)
		return -1;
	while (len > 0) {
		if ((n = write(fd, p, len)) <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		len -= n;
	}
	if (lseek(fd, 0, SEEK_SET) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

int
fuzz_write_file(const char *path, const void *data, size_t len)
{
	FILE	*f;
	int	 rc = 0;

	if ((f = fopen(path, "w")) == NULL)
		return -1;
	if (len > 0 && fwrite(data, 1, len, f) != len)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

uint8_t *
fuzz_elf_make(const struct fuzz_elf_scn *scn, size_t n, size_t *lenp)
{
	Elf64_Ehdr	*eh;
	Elf64_Phdr	*ph;
	Elf64_Shdr	*sh;
	uint8_t		*img;
	size_t		 i, len, off, strsz, stroff, shoff;
	char		*strtab;

	/* Names: "", the sections', ".shstrtab". */
	strsz = 1 + sizeof(".shstrtab");
	for (i = 0; i < n; i++)
		strsz += strlen(scn[i].name) + 1;
	off = sizeof(*eh) + sizeof(*ph);
	for (i = 0; i < n; i++)
		off = ((off + 7) & ~(size_t)7) + scn[i].size;
	stroff = off;
	shoff = (stroff + strsz + 7) & ~(size_t)7;
	len = shoff + (n + 2) * sizeof(*sh);
	if ((img = calloc(1, len)) == NULL)
		abort();

	eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = n + 2;
	eh->e_shstrndx = n + 1;

	ph = (Elf64_Phdr *)(img + sizeof(*eh));
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_filesz = ph->p_memsz = len;
	ph->p_align = 4096;

	strtab = (char *)img + stroff;
	sh = (Elf64_Shdr *)(img + shoff);
	off = sizeof(*eh) + sizeof(*ph);
	strsz = 1;
	for (i = 0; i < n; i++) {
		off = (off + 7) & ~(size_t)7;
		if (scn[i].size > 0)
			memcpy(img + off, scn[i].data, scn[i].size);
		sh[i + 1].sh_name = strsz;
		strcpy(strtab + strsz, scn[i].name);
		strsz += strlen(scn[i].name) + 1;
		sh[i + 1].sh_type = scn[i].type;
		sh[i + 1].sh_flags = scn[i].flags;
		sh[i + 1].sh_addr = scn[i].addr;
		sh[i + 1].sh_offset = off;
		sh[i + 1].sh_size = scn[i].size;
		sh[i + 1].sh_link = scn[i].link;
		sh[i + 1].sh_addralign = 8;
		sh[i + 1].sh_entsize = scn[i].entsize;
		off += scn[i].size;
	}
	sh[n + 1].sh_name = strsz;
	strcpy(strtab + strsz, ".shstrtab");
	sh[n + 1].sh_type = SHT_STRTAB;
	sh[n + 1].sh_offset = stroff;
	sh[n + 1].sh_size = strsz + sizeof(".shstrtab");
	sh[n + 1].sh_addralign = 1;
	*lenp = len;
	return img;
}
