#ifndef EBPFSPY_RETENTION_H
#define EBPFSPY_RETENTION_H

#include <time.h>

struct config;

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

#endif
