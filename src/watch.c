/*
 * Watch the configuration file through inotify on its directory, not on
 * the file: editors that save by writing a new file and renaming it over
 * the old one, and a file deleted and created again, replace the inode a
 * watch on the file would follow.  Events are filtered by name.
 *
 * A reload is triggered when a writer closes the file (IN_CLOSE_WRITE)
 * or a file is renamed onto its name (IN_MOVED_TO).  IN_CREATE is not
 * enough: a file that was just created is still empty.
 */
#include <sys/inotify.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "ebpfspyd.h"
#include "log.h"
#include "reload.h"
#include "watch.h"
#include "xmalloc.h"

#define WATCH_MASK	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | \
	IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

struct watch {
	struct ebpfspyd	*d;
	int		 fd;
	int		 wd;
	char		*dir;
	char		*name;
	ev_io		 io;
};

/* Handle one event; return 1 if it calls for a reload. */
static int
watch_event(struct watch *w, const struct inotify_event *ev)
{
	size_t	 len;

	if (ev->mask & IN_Q_OVERFLOW) {
		/* Events were lost: one of them may have been ours. */
		log_debug("%s: inotify queue overflow", w->dir);
		return 1;
	}
	if (ev->wd != w->wd)
		return 0;
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
		log_warnx("%s: directory removed or moved, no longer watching "
		    "%s (SIGHUP still reloads)", w->dir, w->name);
		ev_io_stop(w->d->loop, &w->io);
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
		log_debug("%s/%s: removed, waiting for it to come back",
		    w->dir, w->name);
		return 0;
	}
	if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) {
		log_debug("%s/%s: changed (%s)", w->dir, w->name,
		    (ev->mask & IN_MOVED_TO) ? "renamed into place" :
		    "written");
		return 1;
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
		reload_schedule(w->d);
}

struct watch *
watch_open(struct ebpfspyd *d)
{
	struct watch	*w;
	const char	*slash;

	w = xcalloc(1, sizeof(*w));
	w->d = d;
	w->wd = -1;
	if ((slash = strrchr(d->conf_path, '/')) == NULL) {
		w->dir = xstrdup(".");
		w->name = xstrdup(d->conf_path);
	} else {
		w->dir = slash == d->conf_path ? xstrdup("/") :
		    xstrndup(d->conf_path, slash - d->conf_path);
		w->name = xstrdup(slash + 1);
	}
	if (*w->name == '\0') {
		log_warnx("%s: not a file name, not watching it",
		    d->conf_path);
		goto fail;
	}
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1) {
		log_warn("inotify_init1");
		goto fail;
	}
	if ((w->wd = inotify_add_watch(w->fd, w->dir, WATCH_MASK)) == -1) {
		log_warn("%s: cannot watch for changes of %s", w->dir,
		    w->name);
		close(w->fd);
		goto fail;
	}
	ev_io_init(&w->io, watch_cb, w->fd, EV_READ);
	w->io.data = w;
	ev_io_start(d->loop, &w->io);
	log_debug("watching %s for changes of %s", w->dir, w->name);
	return w;

fail:
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
	ev_io_stop(w->d->loop, &w->io);
	close(w->fd);
	free(w->dir);
	free(w->name);
	free(w);
}
