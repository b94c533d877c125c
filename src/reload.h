#ifndef EBPFSPY_RELOAD_H
#define EBPFSPY_RELOAD_H

struct ev_loop;
struct reload;

/*
 * Requests for a reload, gathered: apply_cb(arg) runs once a burst of
 * them is over.  What a reload does is the caller's (ebpfspyd_reload.c).
 */
struct reload	*reload_create(struct ev_loop *, void (*)(void *), void *);
void		 reload_free(struct reload *);
/*
 * Ask for a reload soon: requests that arrive within a short delay of
 * each other (SIGHUP and inotify, the writes of one save) make one.
 */
void		 reload_schedule(struct reload *);

#endif
