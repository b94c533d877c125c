/*
 * A full disk under the output directory failed each of a round's
 * writes (every profile's .pb.gz and .folded, every flame graph) with
 * its own warning: some fifteen lines a round, every second, for as
 * long as the disk stayed full, until the log's own disk filled.  The
 * cause is one, so one line says it began, naming the first write that
 * failed, and one that it ended, with the count; in between, failures
 * are counted (ebpfspy_disk_full_writes_total) and logged at debug
 * level only.  A disk on the edge, where small files fit and large ones
 * do not, would flip between the two lines each round: the end waits
 * for DISKFULL_CALM seconds without a failure.  Other errors are
 * logged as before: each names its object and may have a cause of its
 * own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "diskfull.h"
#include "log.h"

static time_t
diskfull_now(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1000000000;
}

void
diskfull_warn(struct diskfull *df, const char *fmt, ...)
{
	char	 what[512];
	va_list	 ap;
	int	 saved_errno = errno;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (saved_errno != ENOSPC && saved_errno != EDQUOT) {
		log_warnx("%s: %s", what, strerror(saved_errno));
		errno = saved_errno;
		return;
	}
	df->failed++;
	df->last_failed = diskfull_now();
	if (!df->full) {
		df->full = 1;
		df->skipped = 0;
		log_warnx("%s: disk full: %s: %s; until a write succeeds, "
		    "failures for want of space are only counted", df->name,
		    what, strerror(saved_errno));
	} else {
		df->skipped++;
		log_debug("%s: disk full: %s: %s", df->name, what,
		    strerror(saved_errno));
	}
	errno = saved_errno;
}

void
diskfull_ok(struct diskfull *df)
{
	if (!df->full || diskfull_now() - df->last_failed < DISKFULL_CALM)
		return;
	df->full = 0;
	log_warnx("%s: disk no longer full: writes succeed; %llu more "
	    "failed for want of space meanwhile", df->name,
	    (unsigned long long)df->skipped);
}
