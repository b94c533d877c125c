/*
 * A flame graph's stacks in order: frame by frame by name, as rows that
 * the layout walks (flamegraph.c).  For last-hour.svg the order can be
 * kept from one graph to the next: the hour's sum only appends stacks
 * and names from one round to the next (a stack that leaves the hour
 * stays, at value 0), so the new ones are sorted alone and merged into
 * the kept order, where sorting the whole hour again each round cost
 * more than anything else once the hour held a few hundred thousand
 * stacks.  The order kept holds every stack, of value 0 too; rows hold
 * only those drawn.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"
#include "flamegraph_int.h"
#include "profile/profile.h"
#include "profile/stacksort.h"
#include "util/xmalloc.h"

struct flamegraph_order {
	uint32_t	*byname;	/* name ids by strcmp() */
	size_t		 nnames;
	uint32_t	*stacks;	/* stack indices, sorted */
	size_t		 nstacks;
};

struct flamegraph_emit {
	struct flamegraph_rows	*out;
	const uint32_t		*prev;		/* the last row's frames */
	size_t			 nprev;
	size_t			 tailcap;
};

static int	 flamegraph_order_name_cmp(const void *, const void *,
		    void *);
static uint32_t	*flamegraph_order_rank(const struct profile *,
		    struct flamegraph_order *);
static void	 flamegraph_order_item(const struct profile *, size_t,
		    struct stacksort_item *, uint64_t *);
static void	 flamegraph_order_emit(struct flamegraph_emit *,
		    const struct stacksort_item *, uint64_t);

static int
flamegraph_order_name_cmp(const void *va, const void *vb, void *arg)
{
	const struct profile	*p = arg;

	return strcmp(profile_string(p, *(const uint32_t *)va),
	    profile_string(p, *(const uint32_t *)vb));
}

/*
 * Every name's rank by strcmp(): the new names sorted and merged into
 * those kept.  Returns the ranks (nstrings entries), to free.
 */
static uint32_t *
flamegraph_order_rank(const struct profile *p, struct flamegraph_order *o)
{
	const struct profile	*pp = p;
	uint32_t		*fresh, *all, *rank;
	size_t			 nstr, old, nfresh, i, j, k;

	nstr = profile_nstrings(p);
	old = o != NULL ? o->nnames : 0;
	nfresh = nstr - old;
	fresh = xcalloc(nfresh + 1, sizeof(*fresh));
	for (i = 0; i < nfresh; i++)
		fresh[i] = old + i;
	qsort_r(fresh, nfresh, sizeof(*fresh), flamegraph_order_name_cmp,
	    (void *)pp);
	all = xcalloc(nstr + 1, sizeof(*all));
	for (i = j = k = 0; k < nstr; k++) {
		if (j == nfresh || (i < old && strcmp(profile_string(p,
		    o->byname[i]), profile_string(p, fresh[j])) <= 0))
			all[k] = o->byname[i++];
		else
			all[k] = fresh[j++];
	}
	free(fresh);
	rank = xcalloc(nstr + 1, sizeof(*rank));
	for (k = 0; k < nstr; k++)
		rank[all[k]] = k;
	if (o != NULL) {
		free(o->byname);
		o->byname = all;
		o->nnames = nstr;
	} else
		free(all);
	return rank;
}

/* Stack i as the sort sees it, its frames cut at FLAMEGRAPH_MAX_DEPTH. */
static void
flamegraph_order_item(const struct profile *p, size_t i,
    struct stacksort_item *it, uint64_t *v)
{
	it->ids = profile_stack(p, i, &it->n, v);
	it->index = i;
	if (it->n > FLAMEGRAPH_MAX_DEPTH)
		it->n = FLAMEGRAPH_MAX_DEPTH;
}

/* The next stack in order: a row, unless its value is 0. */
static void
flamegraph_order_emit(struct flamegraph_emit *e,
    const struct stacksort_item *it, uint64_t v)
{
	struct flamegraph_rows	*out = e->out;
	struct flamegraph_row	*r;
	size_t			 c;

	if (v == 0)
		return;
	for (c = 0; c < e->nprev && c < it->n && e->prev[c] == it->ids[c];
	    c++)
		;
	r = &out->rows[out->nrows++];
	r->common = c;
	r->n = it->n;
	r->off = out->ntails;
	r->value = v;
	out->total += v;
	if (out->ntails + (it->n - c) > e->tailcap) {
		while (out->ntails + (it->n - c) > e->tailcap)
			e->tailcap = e->tailcap ? e->tailcap * 2 : 4096;
		out->tails = xreallocarray(out->tails, e->tailcap,
		    sizeof(*out->tails));
	}
	memcpy(out->tails + out->ntails, it->ids + c,
	    (it->n - c) * sizeof(*out->tails));
	out->ntails += it->n - c;
	e->prev = it->ids;
	e->nprev = it->n;
}

/*
 * The rows of p's stacks of non-zero value, sorted; with o, the order
 * kept there brought up to date with the stacks and names p has added
 * since, else every stack sorted now.
 */
void
flamegraph_order_rows(const struct profile *p, struct flamegraph_order *o,
    struct flamegraph_rows *out)
{
	struct flamegraph_emit	 e;
	struct stacksort_item	*fresh, it;
	uint32_t		*rank, *all = NULL;
	uint64_t		 v, ov = 0;
	size_t			 nall, old, nfresh = 0, i, j, k, n;

	memset(out, 0, sizeof(*out));
	memset(&e, 0, sizeof(e));
	e.out = out;
	rank = flamegraph_order_rank(p, o);
	nall = profile_nstacks(p);
	old = o != NULL ? o->nstacks : 0;
	fresh = xcalloc(nall - old + 1, sizeof(*fresh));
	for (i = old; i < nall; i++) {
		flamegraph_order_item(p, i, &fresh[nfresh], &v);
		/* Without an order kept, stacks of value 0 are dropped. */
		if (v != 0 || o != NULL)
			nfresh++;
	}
	stacksort(fresh, nfresh, rank, 0);

	out->rows = xcalloc(old + nfresh + 1, sizeof(*out->rows));
	if (o != NULL)
		all = xcalloc(old + nfresh + 1, sizeof(*all));
	if (old > 0)
		flamegraph_order_item(p, o->stacks[0], &it, &ov);
	for (i = j = k = 0; i < old || j < nfresh; k++) {
		if (j == nfresh || (i < old &&
		    stacksort_cmp(&it, &fresh[j], rank, 0) <= 0)) {
			flamegraph_order_emit(&e, &it, ov);
			if (all != NULL)
				all[k] = it.index;
			if (++i < old)
				flamegraph_order_item(p, o->stacks[i], &it,
				    &ov);
		} else {
			(void)profile_stack(p, fresh[j].index, &n, &v);
			flamegraph_order_emit(&e, &fresh[j], v);
			if (all != NULL)
				all[k] = fresh[j].index;
			j++;
		}
	}
	if (o != NULL) {
		free(o->stacks);
		o->stacks = all;
		o->nstacks = old + nfresh;
	}
	free(fresh);
	free(rank);
}

struct flamegraph_order *
flamegraph_order_create(void)
{
	return xcalloc(1, sizeof(struct flamegraph_order));
}

void
flamegraph_order_free(struct flamegraph_order *o)
{
	if (o == NULL)
		return;
	free(o->byname);
	free(o->stacks);
	free(o);
}
