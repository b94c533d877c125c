#ifndef EBPFSPY_EBPFSPYD_H
#define EBPFSPY_EBPFSPYD_H

#include <stdint.h>

struct collect;
struct config;
struct ev_loop;
struct pids;
struct resolve;
struct session;
struct watch;

/* The daemon's state; one of it, owned by ebpfspyd.c. */
struct ebpfspyd {
	struct ev_loop		*loop;
	struct config		*conf;		/* in force */
	char			*conf_path;
	int			 conf_missing_ok; /* default path, no -c */
	char			*opt_outdir;	/* -o overrides [output] dir */
	struct session		*session;
	struct pids		*pids;
	struct resolve		*resolve;
	struct collect		*collect;
	struct watch		*watch;
	uint64_t		 reloads;
	uint64_t		 reload_failures;
};

int	ebpfspyd_main(int, char **);
/* Re-arm the round timer after collect_interval changed. */
void	ebpfspyd_timer_set(struct ebpfspyd *);

#endif
