/*
 * Trimming a profile: its heaviest stacks kept as they are, the light
 * tail merged into one sample of one frame, so that the total stays and
 * everything that weighs in a flame graph does.  The Pyroscope push
 * trims so to the server's limits (src/push/pyroscope_trim.c).
 */
#include <stdint.h>
#include <stdlib.h>

#include "profile.h"
#include "util/xmalloc.h"

struct profile_trim_ent {
	size_t		 i;
	uint64_t	 value;
};

/* Heaviest first; equal ones in their order, so the result is stable. */
static int
profile_trim_cmp(const void *a, const void *b)
{
	const struct profile_trim_ent	*x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

size_t *
profile_heaviest(const struct profile *p)
{
	struct profile_trim_ent	*ents;
	size_t			*order, i, n = profile_nstacks(p);

	ents = xcalloc(n > 0 ? n : 1, sizeof(*ents));
	for (i = 0; i < n; i++) {
		ents[i].i = i;
		profile_stack(p, i, &(size_t){ 0 }, &ents[i].value);
	}
	qsort(ents, n, sizeof(*ents), profile_trim_cmp);
	order = xcalloc(n > 0 ? n : 1, sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = ents[i].i;
	free(ents);
	return order;
}

struct profile *
profile_trim_copy(const struct profile *p, const size_t *order, size_t keep,
    const char *other)
{
	struct profile		 *q;
	const uint32_t		 *ids, *lids;
	const char		**frames = NULL, **labels = NULL;
	uint64_t		  value, rest = 0;
	size_t			  i, j, nf, nl, cap = 0, lcap = 0;
	size_t			  n = profile_nstacks(p);

	q = profile_create(profile_type(p), profile_period(p),
	    profile_time(p), profile_duration(p));
	for (i = 0; i < profile_nlabels(p); i++)
		profile_label_set(q, profile_label_name(p, i),
		    profile_label_value(p, i));
	for (i = 0; i < n; i++) {
		ids = profile_stack(p, order[i], &nf, &value);
		if (i >= keep) {
			rest += value;
			continue;
		}
		lids = profile_stack_labels(p, order[i], &nl);
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
