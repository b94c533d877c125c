/*
 * Watch the configuration file through inotify, with two watches:
 *
 *   the directory, for names coming and going (IN_CREATE, IN_MOVED_TO,
 *   IN_DELETE, IN_MOVED_FROM): editors that save by writing a new file
 *   and renaming it over the old one, or by renaming the old one away
 *   and creating the file again, replace the inode a watch on the file
 *   follows;
 *   the file, for writes to it (IN_CLOSE_WRITE), followed again to the
 *   new inode whenever the name gets one.
 *
 * Writes to the directory's other files are not asked for: a watch on
 * the directory for IN_CLOSE_WRITE woke the daemon at every write of any
 * file there (a configuration in /tmp, or beside a log that is written
 * ten times a second, cost more than profiling).  Events are filtered
 * by name and watch.
 *
 * A reload is triggered when a writer closes the file (IN_CLOSE_WRITE)
 * or a file is renamed onto its name (IN_MOVED_TO).  A file created
 * under the name (IN_CREATE) is still empty: the new inode is watched,
 * and then asked whether a writer still has it open (a read lease is
 * refused while one does).  If one does, its close comes through the new
 * watch; if none does, it closed before the watch existed, and the file
 * is whole: reload now.  Where leases are not to be had (a filesystem
 * without them), the reload is asked for anyway: reload.c waits
 * RELOAD_DELAY for the writer, and its close reloads again.  What a
 * change leads to is the caller's: a callback, so this file knows
 * nothing of the daemon.
 */
#include <sys/inotify.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "util/log.h"
#include "watch.h"
#include "util/xmalloc.h"

#define WATCH_DIR_MASK	(IN_CREATE | IN_MOVED_TO | IN_DELETE | \
	IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
#define WATCH_FILE_MASK	(IN_CLOSE_WRITE)

struct watch {
	struct ev_loop	*loop;
	void		(*changed_cb)(void *);
	void		*arg;
	int		 fd;
	int		 wd;		/* the directory */
	int		 fwd;		/* the file, -1 when it has none */
	char		*dir;
	char		*name;
	char		*path;		/* dir/name */
	ev_io		 io;
};

/* Watch the inode the name has now, and only that one. */
static void
watch_file(struct watch *w)
{
	int	 fwd;

	fwd = inotify_add_watch(w->fd, w->path, WATCH_FILE_MASK);
	if (w->fwd != -1 && w->fwd != fwd)
		inotify_rm_watch(w->fd, w->fwd);
	w->fwd = fwd;
	if (fwd == -1 && errno != ENOENT)
		log_warn("%s: cannot watch for writes", w->path);
}

static void
watch_unfile(struct watch *w)
{
	if (w->fwd != -1)
		inotify_rm_watch(w->fd, w->fwd);
	w->fwd = -1;
}

/*
 * Is a writer done with the file?  1 when no one has it open for
 * writing, 0 when someone does, -1 when this cannot be told.
 */
static int
watch_written(struct watch *w)
{
	int	 fd, rc;

	if ((fd = open(w->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return -1;
	if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0) {
		fcntl(fd, F_SETLEASE, F_UNLCK);
		rc = 1;
	} else
		rc = errno == EAGAIN ? 0 : -1;
	close(fd);
	return rc;
}

/* Handle one event; return 1 if it calls for a reload. */
static int
watch_event(struct watch *w, const struct inotify_event *ev)
{
	size_t	 len;

	if (ev->mask & IN_Q_OVERFLOW) {
		/* Events were lost: one of them may have been ours. */
		log_debug("%s: inotify queue overflow", w->dir);
		watch_file(w);
		return 1;
	}
	if (ev->wd == w->fwd && w->fwd != -1) {
		if (ev->mask & IN_IGNORED) {
			/* The inode is gone: its name has another, or none. */
			w->fwd = -1;
			return 0;
		}
		if (ev->mask & IN_CLOSE_WRITE) {
			log_debug("%s: changed (written)", w->path);
			return 1;
		}
		return 0;
	}
	if (ev->wd != w->wd)
		return 0;	/* a file watch given up */
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
		log_warnx("%s: directory removed or moved, no longer watching "
		    "%s (SIGHUP still reloads)", w->dir, w->name);
		ev_io_stop(w->loop, &w->io);
		w->wd = -1;
		return 0;
	}
	if (ev->len == 0)
		return 0;
	/* The name is NUL-padded to ev->len; do not trust it to be ended. */
	len = strnlen(ev->name, ev->len);
	if (len != strlen(w->name) || memcmp(ev->name, w->name, len) != 0)
		return 0;
	if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
		log_debug("%s: removed, waiting for it to come back", w->path);
		watch_unfile(w);
		return 0;
	}
	if (ev->mask & IN_MOVED_TO) {
		log_debug("%s: changed (renamed into place)", w->path);
		watch_file(w);
		return 1;
	}
	if (ev->mask & IN_CREATE) {
		watch_file(w);
		switch (watch_written(w)) {
		case 0:
			log_debug("%s: created, waiting for its writer",
			    w->path);
			return 0;
		case 1:
			log_debug("%s: changed (created)", w->path);
			return 1;
		default:
			log_debug("%s: created, reloading after a delay",
			    w->path);
			return 1;
		}
	}
	return 0;
}

static void
watch_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	struct watch			*w = io->data;
	const struct inotify_event	*ev;
	/* Room for at least one event with the longest name. */
	char				 buf[4096 + sizeof(*ev) + NAME_MAX + 1]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t				 n;
	size_t				 off;
	int				 reload = 0;

	for (;;) {
		if ((n = read(w->fd, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				log_warn("%s: inotify read", w->dir);
			break;
		}
		if (n == 0)
			break;
		/* The kernel returns whole events; check it anyway. */
		for (off = 0; off < (size_t)n; off += sizeof(*ev) + ev->len) {
			if ((size_t)n - off < sizeof(*ev)) {
				log_warnx("%s: short inotify event", w->dir);
				break;
			}
			ev = (const struct inotify_event *)(buf + off);
			if (ev->len > (size_t)n - off - sizeof(*ev)) {
				log_warnx("%s: truncated inotify event",
				    w->dir);
				break;
			}
			reload |= watch_event(w, ev);
		}
	}
	if (reload)
		w->changed_cb(w->arg);
}

struct watch *
watch_open(struct ev_loop *loop, const char *path,
    void (*changed_cb)(void *), void *arg)
{
	struct watch		*w;
	const char		*slash;
	struct sigaction	 sa;

	w = xcalloc(1, sizeof(*w));
	w->loop = loop;
	w->changed_cb = changed_cb;
	w->arg = arg;
	w->wd = -1;
	w->fwd = -1;
	if ((slash = strrchr(path, '/')) == NULL) {
		w->dir = xstrdup(".");
		w->name = xstrdup(path);
	} else {
		w->dir = slash == path ? xstrdup("/") :
		    xstrndup(path, slash - path);
		w->name = xstrdup(slash + 1);
	}
	if (*w->name == '\0') {
		log_warnx("%s: not a file name, not watching it", path);
		goto fail;
	}
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1) {
		log_warn("inotify_init1");
		goto fail;
	}
	/*
	 * A lease is broken by SIGIO to its holder, whose default action
	 * ends the process: a writer that opens the file while
	 * watch_written holds one would kill us.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGIO, &sa, NULL) == -1)
		log_warn("sigaction SIGIO");
	xasprintf(&w->path, "%s/%s", strcmp(w->dir, "/") == 0 ? "" : w->dir,
	    w->name);
	if ((w->wd = inotify_add_watch(w->fd, w->dir, WATCH_DIR_MASK)) == -1) {
		log_warn("%s: cannot watch for changes of %s", w->dir,
		    w->name);
		close(w->fd);
		goto fail;
	}
	watch_file(w);
	ev_io_init(&w->io, watch_cb, w->fd, EV_READ);
	w->io.data = w;
	ev_io_start(loop, &w->io);
	log_debug("watching %s for changes of %s", w->dir, w->name);
	return w;

fail:
	free(w->path);
	free(w->dir);
	free(w->name);
	free(w);
	return NULL;
}

void
watch_close(struct watch *w)
{
	if (w == NULL)
		return;
	ev_io_stop(w->loop, &w->io);
	close(w->fd);
	free(w->path);
	free(w->dir);
	free(w->name);
	free(w);
}
