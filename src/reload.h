#ifndef EBPFSPY_RELOAD_H
#define EBPFSPY_RELOAD_H

struct ebpfspyd;
struct reload;

struct reload	*reload_create(struct ebpfspyd *);
void		 reload_free(struct reload *);
/*
 * Ask for a reload soon: requests that arrive within a short delay of
 * each other (SIGHUP and inotify, the writes of one save) make one.
 */
void		 reload_schedule(struct ebpfspyd *);
/* Reload now; 0, or -1 with the previous configuration still in force. */
int		 reload_now(struct ebpfspyd *);

#endif
