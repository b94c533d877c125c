#ifndef EBPFSPY_LOCKFILE_H
#define EBPFSPY_LOCKFILE_H

/*
 * Open name (relative to the directory dfd, or AT_FDCWD), creating it
 * 0600, and flock() it, not waiting: the fd, whose lock lasts until it
 * is closed, or -1 with errno set: EWOULDBLOCK when another process
 * holds it, EPERM when the file is not a regular file of our own that
 * no other user may open.  The file may be unlinked while locked, just
 * before the fd is closed.
 */
int	lockfile_open(int, const char *);
/* Whether name (relative to dfd) is the file fd has open: 1 or 0. */
int	lockfile_is(int, int, const char *);

#endif
