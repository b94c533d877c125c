#ifndef EBPFSPY_PYROSCOPE_H
#define EBPFSPY_PYROSCOPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"

/*
 * The Pyroscope sink: each round's profiles are pushed to a Pyroscope
 * server (the Push API, or the legacy /ingest), with libcurl's multi
 * interface on the daemon's libev loop.  What cannot be delivered now
 * waits in a spool on disk and is sent, oldest first, once the server
 * answers again.  With [pyroscope] url empty the sink does nothing, but
 * a reload can turn it on.
 */

struct ev_loop;
struct pprof_buf;
struct profile;
struct pyroscope;

/* [pyroscope] api */
enum pyroscope_api {
	PYROSCOPE_API_PUSH,
	PYROSCOPE_API_INGEST,
};

struct pyroscope_stats {
	uint64_t	 requests_ok;		/* acknowledged (2xx) */
	uint64_t	 requests_retry;	/* failed, to be retried */
	uint64_t	 requests_failed;	/* rejected for good (4xx) */
	uint64_t	 retries;		/* attempts after a failure */
	uint64_t	 bytes_sent;		/* bodies acknowledged */
	uint64_t	 profiles_sent;		/* in acknowledged requests */
	uint64_t	 queued;		/* requests waiting in memory */
	uint64_t	 spool_files;
	uint64_t	 spool_bytes;
	uint64_t	 dropped_profiles;	/* rejected, spool full, lost */
	uint64_t	 expired_profiles;	/* older than max_age (apart) */
	uint64_t	 trimmed_profiles;	/* above the size limits */
	uint64_t	 trimmed_samples;	/* merged into "[other]" */
};

struct pyroscope *pyroscope_create(struct ev_loop *, const struct config *);
void		 pyroscope_free(struct pyroscope *);
/* Apply [pyroscope] of a new config; -1 (logged) keeps the old. */
int		 pyroscope_configure(struct pyroscope *,
		    const struct config *);
/* Is there a server to push to? */
int		 pyroscope_is_enabled(const struct pyroscope *);
/*
 * Queue a round's profiles and their pprof encodings (start and end in
 * ns since the epoch) and start sending.  Never blocks: what cannot be
 * sent now waits.
 */
void		 pyroscope_round(struct pyroscope *, const struct config *,
		    struct profile *const *, const struct pprof_buf *, size_t,
		    int64_t, int64_t);
/*
 * Stopping: try to deliver what is pending for at most [pyroscope]
 * flush_timeout seconds, then spool whatever is not acknowledged.
 */
void		 pyroscope_flush(struct pyroscope *);
void		 pyroscope_stats(struct pyroscope *, struct pyroscope_stats *);
void		 pyroscope_log_state(struct pyroscope *);

/* Checks of config values, for the key table: NULL or a message. */
const char	*pyroscope_url_check(const char *);
const char	*pyroscope_headers_check(const char *);
/* The keys of [pyroscope], with their checks (pyroscope_conf.c). */
extern const struct config_key pyroscope_conf_keys[];
/*
 * [pyroscope] label.NAME = VALUE, for the parser (config_keys.c lists
 * it): global labels, freed with the config, dumped with [pyroscope].
 */
extern const struct config_section pyroscope_conf_labels;
/*
 * [pyroscope] header_file.NAME = path: header NAME, its value the first
 * line of the file (pyroscope_secret.c); the file must be readable now.
 */
extern const struct config_section pyroscope_conf_header_files;
const char	*pyroscope_secret_header_add(struct config *, const char *,
		    const char *);
void		 pyroscope_secret_headers_free(struct config *);
void		 pyroscope_secret_headers_dump(const struct config *, FILE *);
/* The key check of a secret's file: NULL, or why it cannot be read. */
const char	*pyroscope_secret_file_check(const char *);

#endif
