/*
 * Lock files: one ebpfspyd a pidfile, an output directory, a spool.  A
 * lock is a flock() on a file of its own, held while the file stays
 * open, so it goes with the process however that ends.  flock() needs
 * no more than read access: a lock file that another user can open is
 * one that user can hold for ever, and then no daemon starts.  So the
 * file is made 0600 and one that is not ours alone is refused, never
 * used.  A daemon that exits may unlink its lock file while it holds
 * it; the file locked must therefore still be the one under the name,
 * or it is opened again.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "lockfile.h"

#define LOCKFILE_TRIES	10

int
lockfile_open(int dfd, const char *name)
{
	struct stat	 sb, sbn;
	int		 fd, tries, saved;

	for (tries = 0; tries < LOCKFILE_TRIES; tries++) {
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC | O_NOCTTY, 0600);
		if (fd == -1)
			return -1;
		if (fstat(fd, &sb) == -1)
			goto fail;
		if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid() ||
		    (sb.st_mode & 077) != 0) {
			errno = EPERM;
			goto fail;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) == -1)
			goto fail;
		if (fstatat(dfd, name, &sbn, AT_SYMLINK_NOFOLLOW) == 0 &&
		    sb.st_dev == sbn.st_dev && sb.st_ino == sbn.st_ino)
			return fd;
		close(fd);
	}
	errno = EAGAIN;
	return -1;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
lockfile_is(int fd, int dfd, const char *name)
{
	struct stat	 sb, sbn;

	if (fd == -1 || fstat(fd, &sb) == -1 ||
	    fstatat(dfd, name, &sbn, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	return sb.st_dev == sbn.st_dev && sb.st_ino == sbn.st_ino;
}
