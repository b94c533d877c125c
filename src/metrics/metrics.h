#ifndef EBPFSPY_METRICS_H
#define EBPFSPY_METRICS_H

#include <sys/socket.h>
#include <stddef.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"

struct collect;
struct ev_loop;
struct metrics;
struct pids;
struct resolve;
struct session;
struct unwind_maps;

/*
 * What the pages show of the daemon, filled in by the daemon's callback
 * (metrics_create) when a request comes: metrics reads the daemon's
 * parts without knowing the daemon's own structure, so nothing below
 * the top of src/ includes ebpfspyd.h.  NULL parts are not started yet.
 */
struct debuginfod;

struct metrics_view {
	struct config		*conf;
	const char		*conf_path;
	int64_t			 started;	/* CLOCK_MONOTONIC, ns */
	uint64_t		 round_failures;
	uint64_t		 reloads;
	uint64_t		 reload_failures;
	struct session		*session;
	struct pids		*pids;
	struct resolve		*resolve;
	struct collect		*collect;
	struct unwind_maps	*unwind;
	struct v8		*v8;
	void			*jvm;		/* jvm_runtime's own */
	struct debuginfod	*debuginfod;
};
typedef void	(*metrics_view_cb)(struct metrics_view *, void *);

/*
 * The Pyroscope push counters, filled on each scrape by whoever owns the
 * push (see metrics_set_push).  requests: one entry per outcome, e.g.
 * { "ok", 12 }, { "http_error", 1 }, { "network_error", 3 }.
 */
#define METRICS_PUSH_OUTCOMES	8
struct metrics_push {
	struct {
		const char	*outcome;	/* a label value */
		uint64_t	 n;
	}		 requests[METRICS_PUSH_OUTCOMES];
	size_t		 nrequests;
	uint64_t	 retries;
	uint64_t	 spool_bytes;		/* on disk now */
	uint64_t	 spool_dropped;		/* profiles the spool lost */
	uint64_t	 expired;		/* older than max_age */
	uint64_t	 trimmed;		/* profiles cut to size */
	uint64_t	 trimmed_samples;	/* merged into [other] */
};
typedef void	(*metrics_push_cb)(struct metrics_push *, void *);

/*
 * The HTTP listener of [metrics] listen: GET /metrics (Prometheus text
 * format 0.0.4) and GET /debug/state (JSON), served by libmicrohttpd
 * on the daemon's loop, without threads.  The pages read the daemon's
 * state through the view cb fills when a request comes.  Never NULL:
 * a listener that cannot be bound is logged and tried again on reload.
 */
struct metrics	*metrics_create(struct ev_loop *, const struct config *,
		    metrics_view_cb, void *);
/* Reload: a changed listen re-binds; -1 keeps the old listener. */
int		 metrics_configure(struct metrics *, const struct config *);
void		 metrics_free(struct metrics *);
/* Where the push counters come from; NULL: no push metrics. */
void		 metrics_set_push(struct metrics *, metrics_push_cb, void *);

/*
 * "host:port" (IPv4 address or localhost), "[IPv6 address]:port" or
 * "unix:/path" (metrics_unix.c);
 * 0, or -1 with *errstr set.
 */
int		 metrics_listen_parse(const char *, struct sockaddr_storage *,
		    socklen_t *, const char **);
/* For the config table: NULL if the value is good (or empty: off). */
const char	*metrics_listen_check(const char *);
/* The keys of [metrics], with their checks, for config_keys.c. */
extern const struct config_key metrics_keys[];

/*
 * The pages, written to a stream: /metrics (metrics_prom.c), with the
 * push counters if mp is not NULL and the listener's request count;
 * /debug/state (metrics_state.c), with the address listened on.
 */
void		 metrics_prom_write(FILE *, const struct metrics_view *,
		    const struct metrics_push *, uint64_t);
/* The daemon's resident memory, bytes (0 if /proc does not say). */
double		 metrics_prom_rss(void);
void		 metrics_state_write(FILE *, const struct metrics_view *,
		    const char *);

#endif
