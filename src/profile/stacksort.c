/*
 * Stacks sorted frame by frame: a multikey quicksort (Bentley and
 * Sedgewick), which partitions on one frame at a time and goes one
 * frame deeper only for the stacks that share it.  Stacks share long
 * prefixes (main, the runtime, the same few layers): a comparison sort
 * walks those prefixes again in every comparison, this looks at each
 * frame of a prefix about once per stack.
 */
#include <stddef.h>
#include <stdint.h>

#include "stacksort.h"

#define STACKSORT_SMALL	12	/* fewer: insertion sort */

struct stacksort_ctx {
	const uint32_t	*rank;
	int		 last;
};

static uint64_t	 stacksort_key(const struct stacksort_ctx *,
		    const struct stacksort_item *, size_t);
static int	 stacksort_from(const struct stacksort_ctx *,
		    const struct stacksort_item *,
		    const struct stacksort_item *, size_t);
static void	 stacksort_mkq(const struct stacksort_ctx *,
		    struct stacksort_item *, size_t, size_t);

/* Frame d of a stack as a number: 0 past its end, else its rank + 1. */
static inline uint64_t
stacksort_key(const struct stacksort_ctx *c, const struct stacksort_item *x,
    size_t d)
{
	if (d >= x->n)
		return 0;
	if (c->last)
		return (uint64_t)c->rank[2 * (size_t)x->ids[d] +
		    (d + 1 < x->n)] + 1;
	return (uint64_t)c->rank[x->ids[d]] + 1;
}

/* Compare two stacks known equal above depth d. */
static int
stacksort_from(const struct stacksort_ctx *c, const struct stacksort_item *x,
    const struct stacksort_item *y, size_t d)
{
	uint64_t	 a, b;

	for (;; d++) {
		if (d < x->n && d < y->n && x->ids[d] == y->ids[d] &&
		    (!c->last || (d + 1 < x->n) == (d + 1 < y->n)))
			continue;
		a = stacksort_key(c, x, d);
		b = stacksort_key(c, y, d);
		if (a != b)
			return a < b ? -1 : 1;
		if (a == 0)
			return 0;
	}
}

static void
stacksort_mkq(const struct stacksort_ctx *c, struct stacksort_item *a,
    size_t n, size_t d)
{
	struct stacksort_item	 t;
	uint64_t		 v, k, k0, k1, k2;
	size_t			 lt, gt, i, j;

	while (n > 1) {
		if (n < STACKSORT_SMALL) {
			for (i = 1; i < n; i++)
				for (j = i; j > 0 &&
				    stacksort_from(c, &a[j - 1], &a[j], d) > 0;
				    j--) {
					t = a[j];
					a[j] = a[j - 1];
					a[j - 1] = t;
				}
			return;
		}
		/* The median of three frames for the pivot. */
		k0 = stacksort_key(c, &a[0], d);
		k1 = stacksort_key(c, &a[n / 2], d);
		k2 = stacksort_key(c, &a[n - 1], d);
		if ((k0 <= k1 && k1 <= k2) || (k2 <= k1 && k1 <= k0))
			v = k1;
		else if ((k1 <= k0 && k0 <= k2) || (k2 <= k0 && k0 <= k1))
			v = k0;
		else
			v = k2;
		/* [0, lt) below, [lt, gt) equal, [gt, n) above. */
		lt = i = 0;
		gt = n;
		while (i < gt) {
			k = stacksort_key(c, &a[i], d);
			if (k < v) {
				t = a[lt];
				a[lt++] = a[i];
				a[i++] = t;
			} else if (k > v) {
				t = a[--gt];
				a[gt] = a[i];
				a[i] = t;
			} else
				i++;
		}
		stacksort_mkq(c, a, lt, d);
		stacksort_mkq(c, a + gt, n - gt, d);
		/* Those that end here are all equal. */
		if (v == 0)
			return;
		a += lt;
		n = gt - lt;
		d++;
	}
}

void
stacksort(struct stacksort_item *a, size_t n, const uint32_t *rank,
    int flags)
{
	struct stacksort_ctx	 c;

	c.rank = rank;
	c.last = (flags & STACKSORT_LAST) != 0;
	stacksort_mkq(&c, a, n, 0);
}

int
stacksort_cmp(const struct stacksort_item *x, const struct stacksort_item *y,
    const uint32_t *rank, int flags)
{
	struct stacksort_ctx	 c;

	c.rank = rank;
	c.last = (flags & STACKSORT_LAST) != 0;
	return stacksort_from(&c, x, y, 0);
}
