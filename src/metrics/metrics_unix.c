/*
 * The metrics listener on a unix socket ([metrics] listen =
 * unix:/path): the pages name every service profiled and its samples,
 * which a TCP port on the loopback shows to any local user, whatever
 * hidepid hides.  A socket of mode 0600 lets only root connect.
 *
 * The path is in a directory root owns (/run/ebpfspyd by default).  A
 * daemon that crashed left its socket there: at start, a socket nobody
 * accepts on is removed and bound again.  Anything else at the path --
 * a file, a directory, a live socket of another daemon -- is never
 * removed: the listener is refused with the reason.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "metrics_unix.h"

int
metrics_unix_parse(const char *s, struct sockaddr_un *sun, socklen_t *len,
    const char **errstr)
{
	const char	*path = s + strlen(METRICS_UNIX_PREFIX);
	size_t		 n = strlen(path);

	memset(sun, 0, sizeof(*sun));
	if (*path != '/') {
		*errstr = "expected unix:/absolute/path";
		return -1;
	}
	if (n >= sizeof(sun->sun_path)) {
		*errstr = "socket path too long";
		return -1;
	}
	if (path[n - 1] == '/') {
		*errstr = "expected unix:/absolute/path of a socket";
		return -1;
	}
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, n + 1);
	*len = sizeof(*sun);
	return 0;
}

/* The socket's directory: made 0700 if missing, else a directory. */
static int
metrics_unix_dir(const char *path)
{
	char		 buf[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat	 sb;
	const char	*dir;

	snprintf(buf, sizeof(buf), "%s", path);
	dir = dirname(buf);
	if (mkdir(dir, 0700) == 0) {
		log_debug("metrics: made %s", dir);
		return 0;
	}
	if (errno != EEXIST) {
		log_warn("metrics: mkdir %s", dir);
		return -1;
	}
	if (stat(dir, &sb) == -1) {
		log_warn("metrics: %s", dir);
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		log_warnx("metrics: %s: not a directory", dir);
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/*
 * What is at the path may go: nothing there, or a socket nobody
 * accepts on (its daemon is dead), removed here.  -1 otherwise.
 */
static int
metrics_unix_clear(const struct sockaddr_un *sun, socklen_t len)
{
	struct stat	 sb;
	int		 fd, live;

	if (lstat(sun->sun_path, &sb) == -1) {
		if (errno == ENOENT)
			return 0;
		log_warn("metrics: %s", sun->sun_path);
		return -1;
	}
	if (!S_ISSOCK(sb.st_mode)) {
		log_warnx("metrics: %s exists and is not a socket: "
		    "not removed", sun->sun_path);
		errno = EEXIST;
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	live = connect(fd, (const struct sockaddr *)sun, len) == 0 ||
	    (errno != ECONNREFUSED && errno != ENOENT);
	close(fd);
	if (live) {
		log_warnx("metrics: %s: another process listens on it",
		    sun->sun_path);
		errno = EADDRINUSE;
		return -1;
	}
	if (unlink(sun->sun_path) == -1 && errno != ENOENT) {
		log_warn("metrics: remove the stale socket %s",
		    sun->sun_path);
		return -1;
	}
	log_info("metrics: removed the stale socket %s", sun->sun_path);
	return 0;
}

int
metrics_unix_listen(const struct sockaddr_un *sun, socklen_t len,
    int backlog, dev_t *dev, ino_t *ino)
{
	struct stat	 sb;
	mode_t		 mask;
	int		 fd, ret, saved;

	if (metrics_unix_dir(sun->sun_path) == -1 ||
	    metrics_unix_clear(sun, len) == -1)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1)
		return -1;
	/*
	 * Made 0600 from the start: with the mode set after bind, a user
	 * could connect in between.  The loop has no other thread that
	 * the umask could surprise.
	 */
	mask = umask(0177);
	ret = bind(fd, (const struct sockaddr *)sun, len);
	umask(mask);
	if (ret == -1 || lstat(sun->sun_path, &sb) == -1 ||
	    listen(fd, backlog) == -1) {
		saved = errno;
		if (ret == 0)
			unlink(sun->sun_path);
		close(fd);
		errno = saved;
		return -1;
	}
	*dev = sb.st_dev;
	*ino = sb.st_ino;
	return fd;
}

void
metrics_unix_unlink(const char *path, dev_t dev, ino_t ino)
{
	struct stat	 sb;

	/* A later daemon may have replaced it: leave that one alone. */
	if (lstat(path, &sb) == -1 || sb.st_dev != dev || sb.st_ino != ino)
		return;
	if (unlink(path) == -1)
		log_warn("metrics: remove %s", path);
}
