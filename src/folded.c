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
#include "profile.h"
#include "xmalloc.h"

struct folded_line {
	const char *const	*names;		/* string id -> clean name */
	const uint32_t		*ids;		/* root first */
	size_t			 n;
	uint64_t		 value;
};

static char	*folded_clean(const char *);
static int	 folded_cmp(const void *, const void *);

/* A cleaned copy of a name, or NULL when it can be written as it is. */
static char *
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
 * Compare two lines as strcmp() would compare their texts, without
 * building them: frames with the same id are the same text and are
 * skipped, and at the end of a name the text goes on with ';' or ends.
 * Clean names hold no ';', so two names that end together are equal.
 */
static int
folded_cmp(const void *va, const void *vb)
{
	const struct folded_line	*x = va, *y = vb;
	const unsigned char		*a, *b;
	size_t				 i;
	int				 ca, cb;

	for (i = 0; i < x->n && i < y->n; i++) {
		if (x->ids[i] == y->ids[i])
			continue;
		a = (const unsigned char *)x->names[x->ids[i]];
		b = (const unsigned char *)y->names[y->ids[i]];
		while (*a != '\0' && *a == *b) {
			a++;
			b++;
		}
		ca = *a != '\0' ? *a : i + 1 < x->n ? ';' : -1;
		cb = *b != '\0' ? *b : i + 1 < y->n ? ';' : -1;
		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	if (x->n == y->n)
		return 0;
	return x->n < y->n ? -1 : 1;
}

int
folded_write(const struct profile *p, FILE *f)
{
	struct folded_line	*lines;
	const char		**names;
	char			**owned;
	uint64_t		 value;
	size_t			 nstr, nlines, i, j, k;
	int			 rv = 0;

	nstr = profile_nstrings(p);
	names = xcalloc(nstr, sizeof(*names));
	owned = xcalloc(nstr, sizeof(*owned));
	for (i = 0; i < nstr; i++) {
		owned[i] = folded_clean(profile_string(p, i));
		names[i] = owned[i] != NULL ? owned[i] : profile_string(p, i);
	}

	nlines = profile_nstacks(p);
	lines = xcalloc(nlines + 1, sizeof(*lines));
	for (i = 0; i < nlines; i++) {
		lines[i].names = names;
		lines[i].ids = profile_stack(p, i, &lines[i].n,
		    &lines[i].value);
	}
	qsort(lines, nlines, sizeof(*lines), folded_cmp);

	for (i = 0; i < nlines; i = j) {
		value = lines[i].value;
		for (j = i + 1; j < nlines &&
		    folded_cmp(&lines[i], &lines[j]) == 0; j++)
			value += lines[j].value;
		for (k = 0; k < lines[i].n; k++) {
			if (k > 0)
				putc(';', f);
			fputs(names[lines[i].ids[k]], f);
		}
		fprintf(f, " %" PRIu64 "\n", value);
	}
	if (fflush(f) == EOF || ferror(f)) {
		if (errno == 0)
			errno = EIO;
		rv = -1;
	}

	free(lines);
	for (i = 0; i < nstr; i++)
		free(owned[i]);
	free(owned);
	free(names);
	return rv;
}
