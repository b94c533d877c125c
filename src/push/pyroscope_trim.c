/*
 * Trimming a profile to the Pyroscope server's size limits, the copy
 * made by profile_trim_copy() (src/profile/profile_trim.c).  Splitting
 * it into several profiles of the same series and time would not do:
 * the server keeps one profile per series and timestamp apart, so the
 * parts would show as separate profiles (or, deduplicated, be lost).
 * Keeping the heaviest stacks as they are and merging the light tail
 * into one "[other]" sample keeps the profile's total and everything
 * that weighs in a flame graph.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "pyroscope_trim.h"

#define PYROSCOPE_TRIM_TRIES	16	/* encodings before giving up */

size_t
pyroscope_trim_size(const struct pprof_buf *b)
{
	const unsigned char	*t;

	/* RFC 1952: a member ends with CRC32 and ISIZE, little endian. */
	if (b->buf == NULL || b->len < 18 || b->buf[0] != 0x1f ||
	    b->buf[1] != 0x8b)
		return 0;
	t = b->buf + b->len - 4;
	return (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 |
	    (size_t)t[3] << 24;
}

int
pyroscope_trim(const struct profile *p, const struct pprof_buf *in,
    size_t max_bytes, size_t max_samples, struct pprof_buf *out,
    struct pyroscope_trim_result *res)
{
	struct profile	*q;
	size_t		*order, n = profile_nstacks(p), keep, size;
	int		 tries;

	memset(res, 0, sizeof(*res));
	out->buf = NULL;
	out->len = 0;
	res->samples = n;
	res->bytes = pyroscope_trim_size(in);
	if ((max_samples == 0 || n <= max_samples) &&
	    (max_bytes == 0 || res->bytes <= max_bytes))
		return 0;
	order = profile_heaviest(p);
	/* One sample of the limit is "[other]"'s. */
	keep = max_samples != 0 && n >= max_samples ? max_samples - 1 : n;
	if (keep == n && n > 0)
		keep = n - 1;
	for (tries = 0; tries < PYROSCOPE_TRIM_TRIES; tries++) {
		q = profile_trim_copy(p, order, keep, PYROSCOPE_TRIM_OTHER);
		if (pprof_encode(q, &out->buf, &out->len) == -1) {
			profile_free(q);
			break;
		}
		profile_free(q);
		size = pyroscope_trim_size(out);
		if (max_bytes == 0 || size <= max_bytes) {
			res->merged = n - keep;
			res->new_bytes = size;
			free(order);
			return 1;
		}
		free(out->buf);
		out->buf = NULL;
		if (keep == 0)
			break;
		/* Aim at the limit, with a margin: stacks differ in size. */
		keep = (size_t)((double)keep * max_bytes / size * 0.9);
	}
	free(order);
	log_warnx("pyroscope: a profile of %zu samples cannot be trimmed to "
	    "%zu bytes", n, max_bytes);
	return -1;
}
