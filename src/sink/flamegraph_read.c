/*
 * Reading folded stacks back into a profile: the .folded files of
 * last-hour.svg, and of the flamegraph helper.  A file on disk is
 * untrusted input: lines and frames are bounded, values too, so that
 * sums cannot overflow.  The sink's own file of the round need not be
 * read back at all: its stacks are those of the profile it was written
 * from, which flamegraph_read_profile() adds by name ids, each name
 * looked up once, where reading parsed and looked up every frame of
 * every line -- the largest part of last-hour.svg's cost.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"
#include "flamegraph_int.h"
#include "profile/folded.h"
#include "profile/profile.h"
#include "util/xmalloc.h"

#define FLAMEGRAPH_LINE_MAX	(256 * 1024)	/* bytes of a folded line */
#define FLAMEGRAPH_LINE_FRAMES	2048		/* frames of a folded line */
#define FLAMEGRAPH_VALUE_MAX	(1ULL << 62)	/* sums cannot overflow */

static void	 flamegraph_note(struct flamegraph_hour_file *, size_t,
		    uint64_t);
static int	 flamegraph_line(struct profile *, char *, size_t,
		    const char **, struct flamegraph_hour_file *);

/* Note what a line added. */
static void
flamegraph_note(struct flamegraph_hour_file *rec, size_t st, uint64_t v)
{
	if (rec->n == rec->ncap) {
		rec->ncap = rec->ncap ? rec->ncap * 2 : 16;
		rec->stacks = xreallocarray(rec->stacks, rec->ncap,
		    sizeof(*rec->stacks));
		rec->values = xreallocarray(rec->values, rec->ncap,
		    sizeof(*rec->values));
	}
	rec->stacks[rec->n] = st;
	rec->values[rec->n] = v;
	rec->n++;
}

/*
 * One folded line, without its newline: "frames value", the value after
 * the last space.  Returns 1 if it was added, 0 if it is not a stack.
 */
static int
flamegraph_line(struct profile *p, char *line, size_t len,
    const char **frames, struct flamegraph_hour_file *rec)
{
	uint64_t	 v = 0;
	size_t		 sp, i, n, st;
	char		*s;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	for (sp = len; sp > 0 && line[sp - 1] != ' '; sp--)
		;
	if (sp == 0 || sp == len)
		return 0;
	for (i = sp; i < len; i++) {
		if (line[i] < '0' || line[i] > '9')
			return 0;
		if (v > (FLAMEGRAPH_VALUE_MAX - (line[i] - '0')) / 10)
			return 0;
		v = v * 10 + (line[i] - '0');
	}
	if (v == 0 || v > FLAMEGRAPH_VALUE_MAX - profile_total(p))
		return 0;
	/* flamegraph.pl allows several spaces before the count. */
	for (sp--; sp > 0 && line[sp - 1] == ' '; sp--)
		;
	if (sp == 0)
		return 0;
	line[sp] = '\0';
	frames[0] = line;
	for (n = 1, s = line; (s = strchr(s, ';')) != NULL; ) {
		*s++ = '\0';
		if (n == FLAMEGRAPH_LINE_FRAMES)
			break;
		frames[n++] = s;
	}
	st = profile_add_stack(p, frames, n, v);
	if (rec != NULL)
		flamegraph_note(rec, st, v);
	return 1;
}

/* flamegraph_folded_read(), each line added also noted in rec. */
long
flamegraph_read(struct profile *p, FILE *f, size_t *budget,
    struct flamegraph_hour_file *rec)
{
	const char	**frames;
	char		 *line;
	size_t		  len = 0;
	long		  added = 0;
	int		  c, bad = 0;

	line = xmalloc(FLAMEGRAPH_LINE_MAX);
	frames = xcalloc(FLAMEGRAPH_LINE_FRAMES, sizeof(*frames));
	/* By the character: a line never costs more than its bound. */
	while (*budget > 0 && (c = getc_unlocked(f)) != EOF) {
		(*budget)--;
		if (c != '\n') {
			/* Too long, or a NUL: skip to the end of the line. */
			if (c == '\0' || len == FLAMEGRAPH_LINE_MAX - 1)
				bad = 1;
			else if (!bad)
				line[len++] = c;
			continue;
		}
		if (!bad)
			added += flamegraph_line(p, line, len, frames, rec);
		len = 0;
		bad = 0;
	}
	/* A last line without its newline, unless the budget cut it. */
	if (ferror(f)) {
		added = -1;
		if (errno == 0)
			errno = EIO;
	} else if (len > 0 && !bad && feof(f))
		added += flamegraph_line(p, line, len, frames, rec);
	free(frames);
	free(line);
	return added;
}

long
flamegraph_folded_read(struct profile *p, FILE *f, size_t *budget)
{
	return flamegraph_read(p, f, budget, NULL);
}

/*
 * What reading p's folded file back would add.  folded_write() writes a
 * line per stack of cleaned names, merging stacks that clean the same:
 * adding the stacks one by one gives the same sums.  The reader skips a
 * line of value 0, and would cut or skip one over its bounds: such a
 * profile is left to the reader.
 */
int
flamegraph_read_profile(struct profile *sum, const struct profile *p,
    struct flamegraph_hour_file *rec)
{
	const uint32_t	*ids;
	const char	**names;
	char		**owned;
	uint32_t	*map, *hids = NULL;
	uint64_t	 v;
	size_t		*lens, nstr, i, j, n, len, cap = 0, st;
	int		 rv = 0;

	if (profile_total(p) > FLAMEGRAPH_VALUE_MAX - profile_total(sum))
		return 0;
	nstr = profile_nstrings(p);
	names = xcalloc(nstr + 1, sizeof(*names));
	owned = xcalloc(nstr + 1, sizeof(*owned));
	lens = xcalloc(nstr + 1, sizeof(*lens));
	map = xcalloc(nstr + 1, sizeof(*map));
	for (i = 0; i < nstr; i++) {
		owned[i] = folded_clean(profile_string(p, i));
		names[i] = owned[i] != NULL ? owned[i] : profile_string(p, i);
		lens[i] = strlen(names[i]);
	}
	/* Every line within bounds, with room for ';'s and the value. */
	for (i = 0; (ids = profile_stack(p, i, &n, &v)) != NULL; i++) {
		if (n > FLAMEGRAPH_LINE_FRAMES)
			goto out;
		for (j = 0, len = n + 21; j < n; j++)
			len += lens[ids[j]];
		if (len >= FLAMEGRAPH_LINE_MAX - 1)
			goto out;
	}
	for (i = 0; (ids = profile_stack(p, i, &n, &v)) != NULL; i++) {
		if (v == 0)
			continue;
		if (n > cap) {
			cap = n;
			hids = xreallocarray(hids, cap, sizeof(*hids));
		}
		for (j = 0; j < n; j++) {
			if (map[ids[j]] == 0)
				map[ids[j]] = profile_string_intern(sum,
				    names[ids[j]]) + 1;
			hids[j] = map[ids[j]] - 1;
		}
		st = profile_add_stack_ids(sum, hids, n, v);
		flamegraph_note(rec, st, v);
	}
	rv = 1;
out:
	for (i = 0; i < nstr; i++)
		free(owned[i]);
	free(owned);
	free(names);
	free(lens);
	free(map);
	free(hids);
	return rv;
}
