/*
 * Files a process names, opened the way that process sees them, and
 * its memory.
 *
 * The daemon runs as root and a container controls every path inside
 * it: any directory on the way may be swapped for a symbolic link to a
 * directory of the host at any time, so a path is never handed to
 * open() as "/proc/PID/root" + path.  It is resolved below the process's
 * root directory by openat2(RESOLVE_IN_ROOT), where absolute links and
 * ".." stay inside that root; when openat2 is missing (kernels before
 * 5.6) or refused (a seccomp filter says EPERM), by proc_root_walk(),
 * which does the same one component at a time with O_NOFOLLOW.
 *
 * Both give an O_PATH descriptor, which opens nothing: only a regular
 * file is then opened for reading, through /proc/self/fd, so a device
 * node or a FIFO planted at the path is never opened at all (a device's
 * open can have side effects, a FIFO's can block).
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "proc_root.h"

#define PROC_ROOT_READ_FLAGS	(O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

static void
proc_root_close_all(int *dirs, int n)
{
	int	 saved = errno;

	while (n-- > 0)
		close(dirs[n]);
	errno = saved;
}

/*
 * Make link the target of a symbolic link, followed by rest, the new
 * remaining path in rem: -1 (ENAMETOOLONG) if it does not fit.
 */
static int
proc_root_splice(char *rem, size_t size, const char *link, const char *rest)
{
	char	 buf[PATH_MAX];
	int	 n;

	n = snprintf(buf, sizeof(buf), "%s%s%s", link,
	    *rest != '\0' ? "/" : "", rest);
	if (n < 0 || (size_t)n >= sizeof(buf) || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(rem, buf, n + 1);
	return 0;
}

int
proc_root_walk(int rootfd, const char *path)
{
	struct stat	 sb;
	char		 rem[PATH_MAX], name[NAME_MAX + 1], link[PATH_MAX];
	const char	*p, *end;
	size_t		 len;
	ssize_t		 n;
	int		 dirs[PROC_ROOT_DEPTH_MAX], depth = 0, links = 0, fd;

	if (strlen(path) >= sizeof(rem)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(rem, path);
	if ((dirs[depth++] = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return -1;
	p = rem;
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		if ((end = strchr(p, '/')) == NULL)
			end = p + strlen(p);
		len = end - p;
		if (len > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p = end;
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			/* Above the root is the root. */
			if (depth > 1)
				close(dirs[--depth]);
			continue;
		}
		fd = openat(dirs[depth - 1], name,
		    O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 || fstat(fd, &sb) == -1)
			goto fail_fd;
		if (S_ISLNK(sb.st_mode)) {
			/* The link this descriptor holds, not a new one. */
			if (++links > PROC_ROOT_LINKS_MAX) {
				errno = ELOOP;
				goto fail_fd;
			}
			n = readlinkat(fd, "", link, sizeof(link));
			close(fd);
			if (n == -1)
				goto fail;
			if ((size_t)n >= sizeof(link) || n == 0) {
				errno = n == 0 ? ENOENT : ENAMETOOLONG;
				goto fail;
			}
			link[n] = '\0';
			if (link[0] == '/') {
				/* Absolute: from the process's root. */
				proc_root_close_all(dirs + 1, depth - 1);
				depth = 1;
			}
			if (proc_root_splice(rem, sizeof(rem), link, p) == -1)
				goto fail;
			p = rem;
			continue;
		}
		while (*p == '/')
			p++;
		if (*p == '\0') {
			/* The last component. */
			proc_root_close_all(dirs, depth);
			return fd;
		}
		if (!S_ISDIR(sb.st_mode)) {
			errno = ENOTDIR;
			goto fail_fd;
		}
		if (depth == PROC_ROOT_DEPTH_MAX) {
			errno = ENAMETOOLONG;
			goto fail_fd;
		}
		dirs[depth++] = fd;
	}
	/* A directory: the root, or a path that ends in "..". */
	fd = dirs[--depth];
	proc_root_close_all(dirs, depth);
	return fd;

fail_fd:
	if (fd != -1)
		proc_root_close_all(&fd, 1);
fail:
	proc_root_close_all(dirs, depth);
	return -1;
}

/* An O_PATH descriptor of path below rootfd: openat2, else the walk. */
static int
proc_root_path(int rootfd, const char *path)
{
	static int	 no_openat2;
	struct open_how	 how;
	int		 fd;

	if (!no_openat2) {
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_CLOEXEC;
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
		if (fd != -1 || (errno != ENOSYS && errno != EPERM))
			return fd;
		log_debug("openat2: %s: resolving paths one component at "
		    "a time", strerror(errno));
		no_openat2 = 1;
	}
	return proc_root_walk(rootfd, path);
}

/*
 * The regular file an O_PATH descriptor holds, opened for reading; pfd
 * is closed.  Unless ino is 0, only if it is that inode: a caller that
 * knows what it wants opens nothing else, not even to look (a path a
 * user replaced by a link to a file only root may read).
 */
static int
proc_root_reopen(int pfd, uint64_t ino, struct stat *sb)
{
	char	 self[64];
	int	 fd, saved;

	if (pfd == -1)
		return -1;
	if (fstat(pfd, sb) == -1) {
		fd = -1;
		goto out;
	}
	if (!S_ISREG(sb->st_mode)) {
		errno = EINVAL;
		fd = -1;
		goto out;
	}
	if (ino != 0 && (uint64_t)sb->st_ino != ino) {
		errno = ESTALE;
		fd = -1;
		goto out;
	}
	/* The inode found, whatever the path names by now. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, PROC_ROOT_READ_FLAGS);
out:
	saved = errno;
	close(pfd);
	errno = saved;
	return fd;
}

int
proc_root_open_at(int rootfd, const char *path, struct stat *sb)
{
	return proc_root_reopen(proc_root_path(rootfd, path), 0, sb);
}

/*
 * The file a process maps at start-end, through /proc/PID/map_files:
 * the mapped inode itself, whatever its path names now (needs
 * CAP_SYS_ADMIN).
 */
int
proc_root_open_map(pid_t pid, uint64_t start, uint64_t end, struct stat *sb)
{
	char	 path[96];

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx",
	    (int)pid, (unsigned long long)start, (unsigned long long)end);
	return proc_root_reopen(open(path, O_PATH | O_CLOEXEC), 0, sb);
}

int
proc_root_open(pid_t pid, const char *path, struct stat *sb)
{
	return proc_root_open_ino(pid, path, 0, sb);
}

int
proc_root_open_ino(pid_t pid, const char *path, uint64_t ino, struct stat *sb)
{
	char	 buf[64];
	int	 rootfd, fd, saved;

	/* Ours: our paths, relative ones from our working directory. */
	if (pid <= 0)
		return proc_root_reopen(open(path, O_PATH | O_CLOEXEC), ino,
		    sb);
	snprintf(buf, sizeof(buf), "/proc/%d/root", (int)pid);
	if ((rootfd = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	fd = proc_root_reopen(proc_root_path(rootfd, path), ino, sb);
	saved = errno;
	close(rootfd);
	errno = saved;
	return fd;
}

/*
 * len bytes of pid's memory at addr (its vDSO): one process_vm_readv(2),
 * which needs no path walk, else through /proc/PID/mem.
 */
int
proc_root_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec	 local, remote;
	char		 path[64];
	ssize_t		 n;
	int		 fd;

	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = len;
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	do
		n = pread(fd, buf, len, (off_t)addr);
	while (n == -1 && errno == EINTR);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}
