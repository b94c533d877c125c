#ifndef EBPFSPY_COLLECT_H
#define EBPFSPY_COLLECT_H

struct collect;
struct config;
struct pids;
struct resolve;
struct session;

struct collect	*collect_create(struct session *, struct pids *,
		    struct resolve *);
void		 collect_free(struct collect *);
/*
 * One round: drain what BPF counted, name it, build one profile per
 * target and type, hand them to the sinks.  final: the daemon is
 * stopping, so threads still blocked are counted up to now.
 */
int		 collect_round(struct collect *, const struct config *, int);
void		 collect_log_state(struct collect *);

#endif
