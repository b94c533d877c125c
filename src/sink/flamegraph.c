/*
 * Flame graphs: the layout (the SVG document is flamegraph_svg.c's, the
 * files sink's latest.svg and last-hour.svg flamegraph_write.c's).  The
 * layout needs no tree: with the stacks sorted
 * frame by frame, the stacks through one frame are adjacent, so a walk
 * over them that keeps the open frames of the current stack closes
 * each frame exactly once, knowing its value, its left edge and its
 * depth.  Memory is the sort array and one open frame per depth,
 * whatever the profile holds; a first walk finds the smallest value
 * that is drawn, so that the document stays bounded.  Stacks of value
 * 0 are not drawn: the sums of the hour (flamegraph_hour.c) keep the
 * stacks that left it as such holes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"
#include "flamegraph_int.h"
#include "profile/profile.h"
#include "util/xmalloc.h"

struct flamegraph {
	const struct profile	*p;
	struct flamegraph_rows	 r;		/* the stacks drawn, sorted */
	uint64_t		 min_value;	/* narrower is not drawn */
	/* Over FLAMEGRAPH_MAX_FRAMES: the cut, when cut_ties > 0. */
	uint64_t		 cut_value;
	unsigned int		 cut_depth;
	size_t			 cut_ties;
	unsigned int		 max_depth;	/* of the frames drawn */
};

struct flamegraph_open {
	uint32_t		 id;
	uint64_t		 start;
	uint64_t		 value;
};

/*
 * The first walk keeps the FLAMEGRAPH_MAX_FRAMES best frames in a heap,
 * the worst on top.  Better is a larger value, then a smaller depth: a
 * caller is worth at least its callees and is less deep, so the best
 * frames are whole stacks from the root, even when values tie.
 */
struct flamegraph_key {
	uint64_t		 value;
	unsigned int		 depth;
};

struct flamegraph_top {
	struct flamegraph_key	*heap;
	size_t			 n;
	size_t			 seen;		/* frames offered */
	uint64_t		*depth_max;	/* largest value per depth */
};

static int	 flamegraph_drawn(const struct flamegraph *, uint64_t,
		    unsigned int, size_t *);
static int	 flamegraph_pass(const struct flamegraph *,
		    int (*)(const struct flamegraph_frame *, void *), void *);
static int	 flamegraph_worse(const struct flamegraph_key *,
		    const struct flamegraph_key *);
static int	 flamegraph_top_cb(const struct flamegraph_frame *, void *);

/*
 * Whether a frame is drawn.  Of the frames exactly at the cut, the first
 * cut_ties in walk order are: *ties counts them.
 */
static int
flamegraph_drawn(const struct flamegraph *fg, uint64_t value,
    unsigned int depth, size_t *ties)
{
	if (value < fg->min_value)
		return 0;
	if (fg->cut_ties == 0)
		return 1;
	if (value != fg->cut_value)
		return value > fg->cut_value;
	if (depth != fg->cut_depth)
		return depth < fg->cut_depth;
	return (*ties)++ < fg->cut_ties;
}

/*
 * Walk the frames in sorted order, calling cb for every frame drawn once
 * its value is known.  Interned names make two frames the same exactly
 * when their ids are.
 */
static int
flamegraph_pass(const struct flamegraph *fg,
    int (*cb)(const struct flamegraph_frame *, void *), void *arg)
{
	struct flamegraph_open	*open;
	struct flamegraph_frame	 fr;
	const struct flamegraph_row *r = NULL;
	uint64_t		 cum = 0;
	size_t			 i, n, c, depth = 0, ties = 0;
	int			 rv = 0;

	open = xcalloc(FLAMEGRAPH_MAX_DEPTH, sizeof(*open));
	for (i = 0; i <= fg->r.nrows && rv == 0; i++) {
		if (i < fg->r.nrows) {
			r = &fg->r.rows[i];
			c = r->common;
			n = r->n;
		} else
			c = n = 0;
		while (depth > c) {
			depth--;
			if (depth > 0)
				open[depth - 1].value += open[depth].value;
			if (!flamegraph_drawn(fg, open[depth].value, depth,
			    &ties))
				continue;
			fr.name = profile_string(fg->p, open[depth].id);
			fr.id = open[depth].id;
			fr.depth = depth;
			fr.start = open[depth].start;
			fr.value = open[depth].value;
			if ((rv = cb(&fr, arg)) != 0)
				break;
		}
		if (n == 0 || rv != 0)
			continue;
		for (; depth < n; depth++) {
			open[depth].id = fg->r.tails[r->off + depth - c];
			open[depth].start = cum;
			open[depth].value = 0;
		}
		open[n - 1].value += r->value;
		cum += r->value;
	}
	free(open);
	return rv;
}

static int
flamegraph_worse(const struct flamegraph_key *a,
    const struct flamegraph_key *b)
{
	if (a->value != b->value)
		return a->value < b->value;
	return a->depth > b->depth;
}

static int
flamegraph_top_cb(const struct flamegraph_frame *fr, void *arg)
{
	struct flamegraph_top	*t = arg;
	struct flamegraph_key	 x;
	size_t			 i, c;

	t->seen++;
	if (fr->value > t->depth_max[fr->depth])
		t->depth_max[fr->depth] = fr->value;
	x.value = fr->value;
	x.depth = fr->depth;
	if (t->n < FLAMEGRAPH_MAX_FRAMES) {
		/* Sift up. */
		for (i = t->n++; i > 0 &&
		    flamegraph_worse(&x, &t->heap[(i - 1) / 2]);
		    i = (i - 1) / 2)
			t->heap[i] = t->heap[(i - 1) / 2];
		t->heap[i] = x;
		return 0;
	}
	if (!flamegraph_worse(&t->heap[0], &x))
		return 0;
	/* Replace the worst and sift down. */
	for (i = 0; (c = 2 * i + 1) < t->n; i = c) {
		if (c + 1 < t->n &&
		    flamegraph_worse(&t->heap[c + 1], &t->heap[c]))
			c++;
		if (!flamegraph_worse(&t->heap[c], &x))
			break;
		t->heap[i] = t->heap[c];
	}
	t->heap[i] = x;
	return 0;
}

struct flamegraph *
flamegraph_create(const struct profile *p)
{
	return flamegraph_create_ordered(p, NULL);
}

struct flamegraph *
flamegraph_create_ordered(const struct profile *p, struct flamegraph_order *o)
{
	struct flamegraph	*fg;
	struct flamegraph_top	 t;
	uint64_t		 parts;
	size_t			 i, d;

	fg = xcalloc(1, sizeof(*fg));
	fg->p = p;
	flamegraph_order_rows(p, o, &fg->r);

	/*
	 * Narrower than FLAMEGRAPH_MIN_WIDTH pixels, that is under 1/parts
	 * of the total, is not drawn.  In integers: no rounding decides.
	 */
	parts = (FLAMEGRAPH_WIDTH - 2 * FLAMEGRAPH_XPAD) /
	    FLAMEGRAPH_MIN_WIDTH + 0.5;
	fg->min_value = fg->r.total / parts + (fg->r.total % parts != 0);
	if (fg->min_value == 0)
		fg->min_value = 1;

	memset(&t, 0, sizeof(t));
	t.heap = xcalloc(FLAMEGRAPH_MAX_FRAMES, sizeof(*t.heap));
	t.depth_max = xcalloc(FLAMEGRAPH_MAX_DEPTH, sizeof(*t.depth_max));
	(void)flamegraph_pass(fg, flamegraph_top_cb, &t);
	/*
	 * Too many frames: draw those better than the worst kept, and as
	 * many frames equal to it as the heap kept.
	 */
	if (t.seen > FLAMEGRAPH_MAX_FRAMES) {
		fg->cut_value = t.heap[0].value;
		fg->cut_depth = t.heap[0].depth;
		for (i = 0; i < t.n; i++)
			if (t.heap[i].value == fg->cut_value &&
			    t.heap[i].depth == fg->cut_depth)
				fg->cut_ties++;
	}
	for (d = 0; d < FLAMEGRAPH_MAX_DEPTH; d++) {
		if (t.depth_max[d] < fg->min_value)
			continue;
		if (fg->cut_ties == 0 || t.depth_max[d] > fg->cut_value ||
		    (t.depth_max[d] == fg->cut_value && d <= fg->cut_depth))
			fg->max_depth = d;
	}
	free(t.heap);
	free(t.depth_max);
	return fg;
}

void
flamegraph_free(struct flamegraph *fg)
{
	if (fg == NULL)
		return;
	free(fg->r.rows);
	free(fg->r.tails);
	free(fg);
}

int
flamegraph_walk(const struct flamegraph *fg,
    int (*cb)(const struct flamegraph_frame *, void *), void *arg)
{
	return flamegraph_pass(fg, cb, arg);
}

uint64_t
flamegraph_total(const struct flamegraph *fg)
{
	return fg->r.total;
}

unsigned int
flamegraph_depth(const struct flamegraph *fg)
{
	return fg->max_depth;
}

enum profile_type
flamegraph_type(const struct flamegraph *fg)
{
	return profile_type(fg->p);
}

size_t
flamegraph_nnames(const struct flamegraph *fg)
{
	return profile_nstrings(fg->p);
}
