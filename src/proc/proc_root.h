#ifndef EBPFSPY_PROC_ROOT_H
#define EBPFSPY_PROC_ROOT_H

#include <sys/types.h>
#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>

/* Symbolic links followed in one path, as the kernel's MAXSYMLINKS. */
#define PROC_ROOT_LINKS_MAX	40
/* Directories deep one walk may go. */
#define PROC_ROOT_DEPTH_MAX	64

/*
 * A regular file named by a process, opened for reading as that process
 * sees it (pid 0: as we do), never outside its root; *sb is its stat.
 * -1 with errno: EINVAL when it is not a regular file (which is never
 * opened, only looked at).
 */
int	 proc_root_open(pid_t, const char *, struct stat *);
/*
 * The same, only if it is the inode given (else -1, ESTALE): nothing
 * else is opened for reading.
 */
int	 proc_root_open_ino(pid_t, const char *, uint64_t, struct stat *);
/* The same below a directory taken as the root. */
int	 proc_root_open_at(int, const char *, struct stat *);
/* The file mapped at start-end, by /proc/PID/map_files, the same way. */
int	 proc_root_open_map(pid_t, uint64_t, uint64_t, struct stat *);
/*
 * An O_PATH descriptor of path below the root directory rootfd, one
 * component at a time, symbolic links resolved here, relative to the
 * root, and ".." stopping at it: what openat2(RESOLVE_IN_ROOT) does,
 * for kernels and seccomp filters without it.
 */
int	 proc_root_walk(int, const char *);
/* len bytes of the process's memory at an address: 0, or -1. */
int	 proc_root_read_mem(pid_t, uint64_t, void *, size_t);

#endif
