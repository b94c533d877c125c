#ifndef EBPFSPY_DISKFULL_H
#define EBPFSPY_DISKFULL_H

#include <stdint.h>
#include <time.h>

/*
 * The writes of one area (the output directory, the spool) while its
 * disk is full: one warning when the first fails for want of space,
 * one when a write succeeds again, and the failures in between only
 * counted.  Zero-initialised but for the name, which the log lines
 * start with.
 */
struct diskfull {
	const char	*name;
	int		 full;
	uint64_t	 failed;	/* writes failed for want of space */
	uint64_t	 skipped;	/* of them, not logged: this episode */
	time_t		 last_failed;	/* CLOCK_MONOTONIC seconds */
};

/*
 * log_warn(fmt, ...) unless errno says the disk is full (ENOSPC,
 * EDQUOT): then only the first failure of an episode is logged.  errno
 * is left as it was.
 */
void	diskfull_warn(struct diskfull *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * A write succeeded: the episode ends, with a line, if none failed for
 * want of space for DISKFULL_CALM seconds.
 */
#define DISKFULL_CALM	10
void	diskfull_ok(struct diskfull *);

#endif
