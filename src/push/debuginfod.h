#ifndef EBPFSPY_DEBUGINFOD_H
#define EBPFSPY_DEBUGINFOD_H

#include <stdint.h>

struct config;
struct ev_loop;
struct resolve;
struct debuginfod;

/* Why a fetch gave no debug file. */
enum debuginfod_fail {
	DEBUGINFOD_NOT_FOUND,		/* no server has it */
	DEBUGINFOD_TOO_BIG,		/* over debuginfod_max_bytes */
	DEBUGINFOD_TIMEOUT,		/* over debuginfod_timeout */
	DEBUGINFOD_BAD,			/* not the ELF debug file asked for */
	DEBUGINFOD_ERROR,		/* connection, server, other */
	DEBUGINFOD_NFAIL
};

struct debuginfod_stats {
	uint64_t	 fetches;		/* begun */
	uint64_t	 ok;
	uint64_t	 fail[DEBUGINFOD_NFAIL];
	uint64_t	 evicted;		/* files over cache_bytes */
	uint64_t	 running;
	uint64_t	 queued;
};

/* Fetches of missing debug files, on loop: see debuginfod.c. */
struct debuginfod *debuginfod_create(struct ev_loop *, struct resolve *,
		    const struct config *);
void		 debuginfod_configure(struct debuginfod *,
		    const struct config *);
void		 debuginfod_stats(const struct debuginfod *,
		    struct debuginfod_stats *);
void		 debuginfod_free(struct debuginfod *);

#endif
