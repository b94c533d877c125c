#ifndef EBPFSPY_RETENTION_H
#define EBPFSPY_RETENTION_H

#include <sys/stat.h>

#include <time.h>

struct config;
struct retention_cache;

/* What a name in a <dir>/<type>/<service> directory is. */
enum retention_kind {
	RETENTION_FOREIGN = 0,	/* not ours: never touched */
	RETENTION_PROFILE,	/* <UTC time>[-N].pb.gz or .folded */
	RETENTION_SVG,		/* latest.svg, last-hour.svg */
	RETENTION_TEMP,		/* .<one of those>.XXXXXX */
};

/*
 * The kind of a file name; for a profile *when is the time its name
 * carries, or -1 when that is not a valid time.
 */
enum retention_kind retention_classify(const char *, time_t *);

/*
 * Sweep the output directory once: delete profiles older than
 * retention_hours (and a service's whole directory when nothing in it
 * is newer), temporary files a crash left behind, then the oldest
 * profiles while the directory holds more than max_bytes.  Errors are
 * logged.
 */
void		 retention_run(const struct config *, time_t);
/*
 * The same, with what earlier sweeps learnt of the profiles kept in c
 * (retention_cache.c), so that a profile is not stat'ed every round.
 */
void		 retention_sweep(struct retention_cache *,
		    const struct config *, time_t);

struct retention_cache *retention_cache_create(void);
void		 retention_cache_free(struct retention_cache *);
/* For retention.c: a sweep's start and end, and a profile's stat. */
void		 retention_cache_begin(struct retention_cache *, time_t);
void		 retention_cache_end(struct retention_cache *);
int		 retention_cache_stat(struct retention_cache *, int, dev_t,
		    ino_t, const char *, struct stat *);

#endif
