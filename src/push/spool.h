#ifndef EBPFSPY_SPOOL_H
#define EBPFSPY_SPOOL_H

#include <stddef.h>
#include <stdint.h>

/*
 * The on-disk spool of requests that could not be delivered yet: one
 * file per request, named by a sequence number the caller assigns, so
 * that the lexical order of the names is the order of the requests.
 * Each file holds the request's target (what follows the base URL), the
 * number of profiles it carries and its body, with a checksum.  Files
 * are written under a temporary name and renamed into place.  When the
 * spool would exceed its size the oldest files are dropped.
 */

struct spool;

struct spool_stats {
	uint64_t	 files;			/* in the spool now */
	uint64_t	 bytes;			/* their size */
	uint64_t	 dropped_files;		/* to keep within the size */
	uint64_t	 dropped_profiles;	/* in those files */
	uint64_t	 corrupt;		/* unreadable files removed */
};

/*
 * Open (creating it, mode 0700) the spool directory and index the files
 * in it; leftover temporary files and corrupt ones are removed.  A
 * relative path is taken from the current directory, once: the spool
 * keeps the directory open.  NULL after logging when it cannot be used.
 */
struct spool	*spool_open(const char *, uint64_t);
void		 spool_close(struct spool *);
const char	*spool_dir(const struct spool *);
/* Change the size limit, dropping the oldest files beyond it. */
void		 spool_set_max(struct spool *, uint64_t);
/*
 * The largest body spool_read() takes (1 GiB at most, the default): a
 * larger request is removed and counted as dropped, unread.
 */
void		 spool_set_body_max(struct spool *, uint64_t);

/*
 * Store one request under seq (unused so far): its target, body, number
 * of profiles and their time (seconds since the epoch, 0: unknown).
 * Returns 0 when it is in the spool or was dropped to respect the size
 * limit (counted), -1 after logging when it could not be written: the
 * caller keeps it.
 */
int		 spool_put(struct spool *, uint64_t, const char *,
		    const void *, size_t, uint32_t, int64_t);
/* The oldest request's seq: 0, or -1 when the spool is empty. */
int		 spool_oldest(const struct spool *, uint64_t *);
/* The highest seq in the spool, 0 when empty. */
uint64_t	 spool_last_seq(const struct spool *);
/*
 * Read request seq: its target, body, profiles and their time (a file
 * of version 1 has none: its modification time).  On success *target
 * and *body are the caller's to free.  -1 when it is missing, corrupt
 * or too big (then removed and counted).
 */
int		 spool_read(struct spool *, uint64_t, char **,
		    unsigned char **, size_t *, uint32_t *, int64_t *);
/* Remove request seq (delivered, or given up). */
void		 spool_remove(struct spool *, uint64_t);
/* Request seq is being sent: never drop it for space. 0: none. */
void		 spool_hold(struct spool *, uint64_t);
void		 spool_stats(const struct spool *, struct spool_stats *);

#endif
