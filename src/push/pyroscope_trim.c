/*
 * Trimming a profile to the Pyroscope server's size limits.  Splitting
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
#include "util/xmalloc.h"

#define PYROSCOPE_TRIM_TRIES	16	/* encodings before giving up */

struct pyroscope_trim_ent {
	size_t		 i;
	uint64_t	 value;
};

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

/* Heaviest first; equal ones in their order, so the result is stable. */
static int
pyroscope_trim_cmp(const void *a, const void *b)
{
	const struct pyroscope_trim_ent	*x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* A copy of p with the stacks ents[0 .. keep - 1] and "[other]". */
static struct profile *
pyroscope_trim_copy(const struct profile *p,
    const struct pyroscope_trim_ent *ents, size_t n, size_t keep)
{
	struct profile		 *q;
	const uint32_t		 *ids, *lids;
	const char		**frames = NULL, **labels = NULL,
				 *other = PYROSCOPE_TRIM_OTHER;
	uint64_t		  value, rest = 0;
	size_t			  i, j, nf, nl, cap = 0, lcap = 0;

	q = profile_create(profile_type(p), profile_period(p),
	    profile_time(p), profile_duration(p));
	for (i = 0; i < profile_nlabels(p); i++)
		profile_label_set(q, profile_label_name(p, i),
		    profile_label_value(p, i));
	for (i = 0; i < n; i++) {
		ids = profile_stack(p, ents[i].i, &nf, &value);
		if (i >= keep) {
			rest += value;
			continue;
		}
		lids = profile_stack_labels(p, ents[i].i, &nl);
		if (nf > cap) {
			cap = nf;
			frames = xreallocarray(frames, cap, sizeof(*frames));
		}
		if (2 * nl > lcap) {
			lcap = 2 * nl;
			labels = xreallocarray(labels, lcap, sizeof(*labels));
		}
		for (j = 0; j < nf; j++)
			frames[j] = profile_string(p, ids[j]);
		for (j = 0; j < 2 * nl; j++)
			labels[j] = profile_string(p, lids[j]);
		profile_add_labels(q, frames, nf, value, labels, nl);
	}
	if (n > keep)
		profile_add(q, &other, 1, rest);
	free(frames);
	free(labels);
	return q;
}

int
pyroscope_trim(const struct profile *p, const struct pprof_buf *in,
    size_t max_bytes, size_t max_samples, struct pprof_buf *out,
    struct pyroscope_trim_result *res)
{
	struct pyroscope_trim_ent	*ents;
	struct profile			*q;
	size_t				 n = profile_nstacks(p), i, keep, size;
	int				 tries;

	memset(res, 0, sizeof(*res));
	out->buf = NULL;
	out->len = 0;
	res->samples = n;
	res->bytes = pyroscope_trim_size(in);
	if ((max_samples == 0 || n <= max_samples) &&
	    (max_bytes == 0 || res->bytes <= max_bytes))
		return 0;
	ents = xcalloc(n > 0 ? n : 1, sizeof(*ents));
	for (i = 0; i < n; i++) {
		ents[i].i = i;
		profile_stack(p, i, &(size_t){ 0 }, &ents[i].value);
	}
	qsort(ents, n, sizeof(*ents), pyroscope_trim_cmp);
	/* One sample of the limit is "[other]"'s. */
	keep = max_samples != 0 && n >= max_samples ? max_samples - 1 : n;
	if (keep == n && n > 0)
		keep = n - 1;
	for (tries = 0; tries < PYROSCOPE_TRIM_TRIES; tries++) {
		q = pyroscope_trim_copy(p, ents, n, keep);
		if (pprof_encode(q, &out->buf, &out->len) == -1) {
			profile_free(q);
			break;
		}
		profile_free(q);
		size = pyroscope_trim_size(out);
		if (max_bytes == 0 || size <= max_bytes) {
			res->merged = n - keep;
			res->new_bytes = size;
			free(ents);
			return 1;
		}
		free(out->buf);
		out->buf = NULL;
		if (keep == 0)
			break;
		/* Aim at the limit, with a margin: stacks differ in size. */
		keep = (size_t)((double)keep * max_bytes / size * 0.9);
	}
	free(ents);
	log_warnx("pyroscope: a profile of %zu samples cannot be trimmed to "
	    "%zu bytes", n, max_bytes);
	return -1;
}
