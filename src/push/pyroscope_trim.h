#ifndef EBPFSPY_PYROSCOPE_TRIM_H
#define EBPFSPY_PYROSCOPE_TRIM_H

#include <stddef.h>

/*
 * Profiles above the size limits of the Pyroscope server (its
 * validation.max-profile-size-bytes, uncompressed, and
 * validation.max-profile-stacktrace-samples) would be rejected whole,
 * and a rejected profile is not retried: such a profile is trimmed
 * instead.  Its largest samples are kept as they are; the smallest are
 * merged into one sample of one frame, "[other]", so the total stays.
 * Internal to the Pyroscope sink; the unit tests use it too.
 */

struct pprof_buf;
struct profile;

#define PYROSCOPE_TRIM_OTHER	"[other]"

struct pyroscope_trim_result {
	size_t		 samples;	/* of the profile */
	size_t		 bytes;		/* its pprof, uncompressed */
	size_t		 merged;	/* samples merged into "[other]" */
	size_t		 new_bytes;	/* the trimmed pprof, uncompressed */
};

/*
 * The uncompressed size of a gzipped pprof (its gzip trailer's ISIZE),
 * or 0 if buf is not gzip.
 */
size_t	 pyroscope_trim_size(const struct pprof_buf *);
/*
 * Does the profile, encoded as buf, fit max_bytes (uncompressed) and
 * max_samples (0: no limit)?  Then 0.  Else 1, with out the encoding of
 * the trimmed profile (the caller's to free) and what was done in res.
 * -1 (logged) if it cannot be trimmed.
 */
int	 pyroscope_trim(const struct profile *, const struct pprof_buf *,
	    size_t, size_t, struct pprof_buf *,
	    struct pyroscope_trim_result *);

#endif
