#ifndef EBPFSPY_WATCH_H
#define EBPFSPY_WATCH_H

struct ebpfspyd;
struct watch;

/*
 * Watch the configuration file for changes through inotify on it and
 * its directory, and schedule a reload when a new version is in place.
 * NULL (logged) when the directory cannot be watched.
 */
struct watch	*watch_open(struct ebpfspyd *);
void		 watch_close(struct watch *);

#endif
