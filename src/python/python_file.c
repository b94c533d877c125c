/*
 * What an ELF file a process maps is to CPython: an interpreter (it
 * defines _PyRuntime) of which version, at which offsets, or a program
 * that links libpython.  Each file is looked at once per (dev, inode,
 * mtime).  The version is Py_Version (3.11+) or else the file's name;
 * the offsets come from the table of src/python/python_table.c, checked
 * against what the file itself says (the autoTSSkey offset decoded from
 * PyGILState_GetThisThreadState, and 3.13's _Py_DebugOffsets).
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/arch.h"
#include "elf/elf_lookup.h"
#include "proc/proc_root.h"
#include "proc/procmaps.h"
#include "python.h"
#include "python_file.h"
#include "python_table.h"

static int
python_file_is_named(const char *base)
{
	return strncmp(base, "libpython", 9) == 0 ||
	    strncmp(base, "python", 6) == 0;
}

/* "libpython3.12.so.1.0", "python3.9": 3.minor, t for free-threaded. */
static int
python_file_name_version(const char *base, int *free_threaded)
{
	const char	*p;
	char		*end;
	long		 minor;

	*free_threaded = 0;
	if (strncmp(base, "lib", 3) == 0)
		base += 3;
	if (strncmp(base, "python3.", 8) != 0)
		return -1;
	p = base + 8;
	minor = strtol(p, &end, 10);
	if (end == p || minor < 0 || minor > 99)
		return -1;
	if (*end == 't')
		*free_threaded = 1;
	return minor;
}

/*
 * The offset of autoTSSkey in _PyRuntime, from the code of
 * PyGILState_GetThisThreadState: a shared libpython loads &_PyRuntime
 * from the GOT and passes &runtime->autoTSSkey (lea disp32(%rax)); a
 * static executable reads autoTSSkey._key %rip-relative.  -1: no such
 * instruction.
 */
static int
python_file_decode_tss(struct elf_lookup *pe, uint64_t fn, uint64_t runtime)
{
	uint8_t		 code[48];
	int32_t		 disp;
	uint64_t	 addr;
	size_t		 i;

	if (fn == 0 || elf_lookup_read(pe, fn, code, sizeof(code)) == -1)
		return -1;
	for (i = 0; i + 7 <= sizeof(code); i++) {
		if (code[i] == 0x48 && code[i + 1] == 0x8d &&
		    (code[i + 2] == 0xb8 || code[i + 2] == 0x98)) {
			memcpy(&disp, code + i + 3, 4);
			if (disp >= 0 && disp < 0x10000)
				return disp;
		}
		if (code[i] == 0x8b && code[i + 1] == 0x3d) {
			memcpy(&disp, code + i + 2, 4);
			addr = fn + i + 6 + (int64_t)disp;
			if (addr >= runtime + 4 && addr - runtime - 4 < 0x10000)
				return addr - runtime - 4;
		}
	}
	return -1;
}

/* 3.13+: the interpreter describes its own layout; it must agree. */
static int
python_file_debug_offsets_ok(struct elf_lookup *pe,
    const struct python_file *f, const struct python_version *v)
{
	uint64_t	 d[0x238 / 8];
	size_t		 i;

	if (v->ndebug == 0)
		return 1;
	if (elf_lookup_read(pe, f->runtime, d, sizeof(d)) == -1 ||
	    memcmp(d, "xdebugpy", 8) != 0)
		return 0;
	for (i = 0; i < v->ndebug; i++)
		if (v->debug[i].at / 8 >= sizeof(d) / sizeof(d[0]) ||
		    d[v->debug[i].at / 8] != v->debug[i].value)
			return 0;
	return 1;
}

static void
python_file_examine(struct python_file *f, struct elf_lookup *pe,
    const char *base)
{
	static const char *const names[] = { "_PyRuntime", "Py_Version",
	    "PyCode_Type", "PyGILState_GetThisThreadState" };
	const struct python_version	*v;
	uint64_t			 val[4], hex, d[3];
	int				 ft = 0;

	f->minor = -1;
	f->refusal = -1;
	f->tss_key = -1;
	/*
	 * Every CPython exports _PyRuntime: .symtab, often large, is read
	 * only for files named like Python.
	 */
	if (elf_lookup_symbols(pe, names, val, 4, python_file_is_named(base)) ==
	    0 || val[0] == 0) {
		f->needs_lib = elf_lookup_needs(pe, "libpython");
		return;
	}
	f->interp = 1;
	f->runtime = val[0];
	f->code_type = val[2];
	if (val[1] != 0 && elf_lookup_read(pe, val[1], &hex,
	    sizeof(hex)) == 0 && (hex >> 24) == 3)
		f->minor = (hex >> 16) & 0xff;
	else
		f->minor = python_file_name_version(base, &ft);
	/* 3.13+: the debug offsets say whether the build is free-threaded. */
	if (elf_lookup_read(pe, f->runtime, d, sizeof(d)) == 0 &&
	    memcmp(d, "xdebugpy", 8) == 0 && d[2] != 0)
		ft = 1;
	/* The PT_LOAD segments place the file in a process. */
	f->nseg = elf_lookup_loads(pe, f->seg_off, f->seg_vaddr, f->seg_len,
	    sizeof(f->seg_off) / sizeof(f->seg_off[0]));
	f->tss_key = python_file_decode_tss(pe, val[3], f->runtime);
	if (f->minor < 0)
		f->refusal = PYTHON_REFUSE_NO_VERSION;
	else if (ft)
		f->refusal = PYTHON_REFUSE_FREE_THREADED;
	else if ((v = python_table_find(f->minor)) == NULL)
		f->refusal = PYTHON_REFUSE_VERSION;
	else if (f->code_type == 0 || !python_file_debug_offsets_ok(pe, f, v))
		f->refusal = PYTHON_REFUSE_LAYOUT;
}

/* The file of a mapping, examined once. */
struct python_file *
python_file_get(struct python_files *fs, pid_t pid,
    const struct procmaps_entry *e)
{
	struct python_file	*f;
	struct elf_lookup	*pe;
	struct stat		 sb;
	size_t			 i;
	int			 fd;

	/* The mapped inode, a regular file only, opened without blocking. */
	if ((fd = proc_root_open_map(pid, e->start, e->end, &sb)) == -1)
		return NULL;
	for (i = 0; i < fs->n; i++) {
		f = &fs->v[i];
		if (f->dev == sb.st_dev && f->ino == sb.st_ino &&
		    f->mtime.tv_sec == sb.st_mtim.tv_sec &&
		    f->mtime.tv_nsec == sb.st_mtim.tv_nsec) {
			close(fd);
			return f;
		}
	}
	if (fs->n == PYTHON_FILES_MAX)
		fs->n = 0;		/* forget them all: rare */
	f = &fs->v[fs->n++];
	memset(f, 0, sizeof(*f));
	f->dev = sb.st_dev;
	f->ino = sb.st_ino;
	f->mtime = sb.st_mtim;
	f->minor = -1;
	f->refusal = -1;
	if ((pe = elf_lookup_open(fd)) != NULL) {
		python_file_examine(f, pe, procmaps_basename(e));
		elf_lookup_close(pe);
	}
	close(fd);
	return f;
}

/*
 * Where a process loaded the file: its mapping's start less the virtual
 * address of the mapping's file offset.
 */
int
python_file_bias(const struct python_file *f, const struct procmaps_entry *e,
    uint64_t *bias)
{
	size_t	 i;

	for (i = 0; i < f->nseg; i++) {
		if (e->offset < f->seg_off[i] ||
		    e->offset - f->seg_off[i] >= f->seg_len[i])
			continue;
		*bias = e->start - (f->seg_vaddr[i] + (e->offset -
		    f->seg_off[i]));
		return 0;
	}
	return -1;
}

/* A mapping worth looking at: the executable, or named like Python. */
int
python_file_is_candidate(const struct procmaps_entry *e,
    const struct stat *exe)
{
	if (e->kind != PROCMAPS_FILE)
		return 0;
	if (exe != NULL && e->inode == exe->st_ino &&
	    makedev(e->dev_major, e->dev_minor) == exe->st_dev)
		return 1;
	return python_file_is_named(procmaps_basename(e));
}

void
python_file_info(const struct python_version *v, const struct python_file *f,
    uint64_t bias, struct profile_py_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->runtime = f->runtime + bias;
	pi->code_type = f->code_type + bias;
	pi->kind = v->kind;
	pi->has_cframe = v->has_cframe;
	pi->has_owner = v->has_owner;
	pi->self_type = v->lay.co_qualname == 0;
	pi->tss_key = f->tss_key >= 0 ? f->tss_key : v->tss_key;
	pi->ts_frame = v->ts_frame;
	pi->cframe_frame = v->cframe_frame;
	pi->f_code = v->f_code;
	pi->f_back = v->f_back;
	pi->f_instr = v->f_instr;
	pi->f_owner = v->f_owner;
	pi->f_localsplus = v->f_localsplus;
	pi->co_argcount = v->lay.co_argcount;
	pi->co_firstlineno = v->lay.co_firstlineno;
	pi->co_filename = v->lay.co_filename;
	pi->co_name = v->lay.co_name;
	pi->co_code = v->co_code;
	/* glibc's struct pthread: specific_1stblock, specific. */
	pi->tsd_first = ARCH_PY_TSD_FIRST;
	pi->tsd_second = ARCH_PY_TSD_SECOND;
}
