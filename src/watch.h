#ifndef EBPFSPY_WATCH_H
#define EBPFSPY_WATCH_H

struct ev_loop;
struct watch;

/*
 * Watch the configuration file path for changes through inotify on it
 * and its directory, and call changed_cb(arg) when a new version is in
 * place.  NULL (logged) when the directory cannot be watched.
 */
struct watch	*watch_open(struct ev_loop *, const char *,
		    void (*)(void *), void *);
void		 watch_close(struct watch *);

#endif
