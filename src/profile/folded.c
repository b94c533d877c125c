/*
 * Folded stacks, the text format of flamegraph.pl and speedscope: one
 * "root;...;leaf value" line per stack.  Readers split frames on ';'
 * and take what follows the last space as the count, so names are made
 * safe first: ';' becomes ':', control characters '?', trailing spaces
 * go, and an empty name becomes "[unknown]".  Lines are sorted by their
 * text, which makes files diffable and tests stable; stacks that only
 * became equal through that cleaning are written as one line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "util/outbuf.h"
#include "profile.h"
#include "stacksort.h"
#include "util/xmalloc.h"

/*
 * Lines are sorted as their texts would be, without building them:
 * frames with the same id are the same text; else the text of a frame
 * goes on with ';' when a frame follows, or ends the line.  So each
 * name has two keys, "name;" and "name" then the end, ranked once by
 * their text, and stacksort() compares lines frame by frame by those.
 */
struct folded_sort {
	const char *const	*names;		/* string id -> clean name */
	uint32_t		*rank;		/* key -> place, equal keys equal */
};

static int	 folded_key_cmp(const void *, const void *, void *);
static void	 folded_rank(struct folded_sort *, size_t);

/* A cleaned copy of a name, or NULL when it can be written as it is. */
char *
folded_clean(const char *s)
{
	size_t	 len = strlen(s), i;
	char	*d;

	for (i = 0; i < len; i++)
		if (s[i] == ';' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			break;
	if (i == len && len > 0 && s[len - 1] != ' ')
		return NULL;

	while (len > 0 && s[len - 1] == ' ')
		len--;
	if (len == 0)
		return xstrdup("[unknown]");
	d = xstrndup(s, len);
	for (i = 0; i < len; i++) {
		if (d[i] == ';')
			d[i] = ':';
		else if ((unsigned char)d[i] < 0x20 || d[i] == 0x7f)
			d[i] = '?';
	}
	return d;
}

/*
 * Key 2 * id is the name that ends its line, 2 * id + 1 the name that
 * a ';' follows.  Clean names hold no ';', so two keys whose names end
 * together are equal exactly when both end the same way.
 */
static int
folded_key_cmp(const void *va, const void *vb, void *arg)
{
	const struct folded_sort	*so = arg;
	uint32_t			 ka = *(const uint32_t *)va;
	uint32_t			 kb = *(const uint32_t *)vb;
	const unsigned char		*a, *b;
	int				 ca, cb;

	a = (const unsigned char *)so->names[ka / 2];
	b = (const unsigned char *)so->names[kb / 2];
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	ca = *a != '\0' ? *a : (ka & 1) ? ';' : -1;
	cb = *b != '\0' ? *b : (kb & 1) ? ';' : -1;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return 0;
}

/* Rank both keys of every name. */
static void
folded_rank(struct folded_sort *so, size_t nstr)
{
	uint32_t	*keys;
	size_t		 i, r = 0;

	keys = xcalloc(2 * nstr + 1, sizeof(*keys));
	so->rank = xcalloc(2 * nstr + 1, sizeof(*so->rank));
	for (i = 0; i < 2 * nstr; i++)
		keys[i] = i;
	qsort_r(keys, 2 * nstr, sizeof(*keys), folded_key_cmp, so);
	for (i = 0; i < 2 * nstr; i++) {
		if (i > 0 && folded_key_cmp(&keys[i - 1], &keys[i], so) != 0)
			r++;
		so->rank[keys[i]] = r;
	}
	free(keys);
}

int
folded_write(const struct profile *p, FILE *f)
{
	struct outbuf		 ob;
	struct folded_sort	 so;
	struct stacksort_item	*lines;
	const char		**names;
	char			**owned;
	uint64_t		 value, v;
	size_t			 nstr, nlines, i, j, k;
	int			 rv = 0;

	nstr = profile_nstrings(p);
	names = xcalloc(nstr + 1, sizeof(*names));
	owned = xcalloc(nstr + 1, sizeof(*owned));
	for (i = 0; i < nstr; i++) {
		owned[i] = folded_clean(profile_string(p, i));
		names[i] = owned[i] != NULL ? owned[i] : profile_string(p, i);
	}
	so.names = names;
	folded_rank(&so, nstr);

	nlines = profile_nstacks(p);
	lines = xcalloc(nlines + 1, sizeof(*lines));
	for (i = 0; i < nlines; i++) {
		lines[i].ids = profile_stack(p, i, &lines[i].n, NULL);
		lines[i].index = i;
	}
	stacksort(lines, nlines, so.rank, STACKSORT_LAST);

	memset(&ob, 0, sizeof(ob));
	for (i = 0; i < nlines && rv == 0; i = j) {
		(void)profile_stack(p, lines[i].index, &k, &value);
		for (j = i + 1; j < nlines && stacksort_cmp(&lines[i],
		    &lines[j], so.rank, STACKSORT_LAST) == 0; j++) {
			(void)profile_stack(p, lines[j].index, &k, &v);
			value += v;
		}
		for (k = 0; k < lines[i].n; k++) {
			if (k > 0)
				outbuf_char(&ob, ';');
			outbuf_str(&ob, names[lines[i].ids[k]]);
		}
		outbuf_char(&ob, ' ');
		outbuf_u64(&ob, value);
		outbuf_char(&ob, '\n');
		if (ob.len >= 64 * 1024 && outbuf_flush(&ob, f) == -1)
			rv = -1;
	}
	if (rv == 0 && outbuf_flush(&ob, f) == -1)
		rv = -1;
	if (rv == 0 && (fflush(f) == EOF || ferror(f))) {
		if (errno == 0)
			errno = EIO;
		rv = -1;
	}

	outbuf_free(&ob);
	free(lines);
	free(so.rank);
	for (i = 0; i < nstr; i++)
		free(owned[i]);
	free(owned);
	free(names);
	return rv;
}
