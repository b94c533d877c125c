#ifndef EBPFSPY_METRICS_UNIX_H
#define EBPFSPY_METRICS_UNIX_H

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#define METRICS_UNIX_PREFIX	"unix:"

/*
 * "unix:/absolute/path" into *sun; 0, or -1 with *errstr set.  The
 * caller has seen the prefix.
 */
int	metrics_unix_parse(const char *, struct sockaddr_un *, socklen_t *,
	    const char **);
/*
 * A listening socket at sun's path, mode 0600, its directory made 0700
 * if missing; the stale socket of a dead daemon is replaced, anything
 * else at the path is refused.  The socket's inode in *ino for
 * metrics_unix_unlink.  -1 with errno, the reason logged.
 */
int	metrics_unix_listen(const struct sockaddr_un *, socklen_t, int,
	    dev_t *, ino_t *);
/* Remove the socket at path, if it is still the one we made. */
void	metrics_unix_unlink(const char *, dev_t, ino_t);

#endif
