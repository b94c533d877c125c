#ifndef EBPFSPY_PYTHON_FILE_H
#define EBPFSPY_PYTHON_FILE_H

#include <sys/types.h>
#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "bpf/profile.h"

struct procmaps_entry;
struct python_version;

#define PYTHON_FILES_MAX	256	/* files known to be Python or not */

/* What one ELF file is, looked at once per (dev, inode). */
struct python_file {
	dev_t		 dev;
	ino_t		 ino;
	struct timespec	 mtime;
	int		 interp;	/* defines _PyRuntime */
	int		 needs_lib;	/* DT_NEEDED libpython */
	int		 minor;		/* 3.minor; -1 unknown */
	int		 refusal;	/* enum python_refusal, or -1 */
	uint64_t	 runtime;	/* vaddrs */
	uint64_t	 code_type;
	int		 tss_key;	/* decoded; -1 not found */
	uint64_t	 seg_off[8], seg_vaddr[8], seg_len[8];
	size_t		 nseg;
};

/* The files examined, by (dev, inode, mtime). */
struct python_files {
	struct python_file	 v[PYTHON_FILES_MAX];
	size_t			 n;
};

/*
 * The file of a mapping of pid (through /proc/PID/map_files), examined
 * once: NULL when it cannot be opened or is no regular file.
 */
struct python_file *python_file_get(struct python_files *, pid_t,
		    const struct procmaps_entry *);
/* Where the process loaded the file, from the mapping; -1: not known. */
int		 python_file_bias(const struct python_file *,
		    const struct procmaps_entry *, uint64_t *);
/* A mapping worth looking at: the executable (its stat), or a Python. */
int		 python_file_is_candidate(const struct procmaps_entry *,
		    const struct stat *);
/* What BPF's walker needs of an interpreter loaded at bias. */
void		 python_file_info(const struct python_version *,
		    const struct python_file *, uint64_t,
		    struct profile_py_info *);

#endif
