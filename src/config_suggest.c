/*
 * What a misspelt key or section was probably meant to be, for the
 * parser's "unknown key" and "unknown section" errors: the known name
 * nearest by edit distance (insertions, deletions, substitutions and
 * swaps of two neighbours), if it is near enough to be a typo -- one
 * edit in a short name, two in a name of six letters or more, never as
 * many as the name has letters.  A section of a table of its own
 * ([target "web"]) written without its quotes is told how to write it.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "config/config.h"

#define SUGGEST_MAX	64	/* names longer are not typos we guess */

/* Optimal string alignment distance of a and b, both < SUGGEST_MAX. */
static size_t
suggest_distance(const char *a, const char *b)
{
	size_t	d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];
	size_t	la = strlen(a), lb = strlen(b), i, j, c, v;

	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			c = a[i - 1] != b[j - 1];
			v = d[i - 1][j - 1] + c;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

/* How many edits a name of len letters may be from what it meant. */
static size_t
suggest_budget(size_t len)
{
	if (len >= 6)
		return 2;
	return len >= 3 ? 1 : 0;
}

/* Is candidate nearer to name than *best (distance *bestd)? */
static void
suggest_consider(const char *name, const char *candidate, const char **best,
    size_t *bestd)
{
	size_t	d;

	if (strlen(candidate) >= SUGGEST_MAX)
		return;
	d = suggest_distance(name, candidate);
	if (d > 0 && d <= suggest_budget(strlen(name)) && d < *bestd) {
		*best = candidate;
		*bestd = d;
	}
}

/* The key of section name was probably meant to be, or NULL. */
const char *
config_suggest_key(const char *section, const char *name)
{
	const struct config_key	*k;
	const char		*best = NULL;
	size_t			 i, bestd = SIZE_MAX;

	if (strlen(name) >= SUGGEST_MAX)
		return NULL;
	for (i = 0; (k = config_key_at(i)) != NULL; i++) {
		if (strcmp(k->section, section) == 0)
			suggest_consider(name, k->name, &best, &bestd);
	}
	return best;
}

/*
 * The section name was probably meant to be, written as it should be in
 * buf ("pyroscope", "target \"web\""); NULL if none is near.
 */
const char *
config_suggest_section(const char *name, char *buf, size_t len)
{
	const struct config_key		*k;
	const struct config_section	*s;
	const char			*best = NULL, *rest;
	size_t				 i, wl, rl, bestd = SIZE_MAX;
	char				 word[SUGGEST_MAX], given[SUGGEST_MAX];

	if (strlen(name) >= SUGGEST_MAX)
		return NULL;
	for (i = 0; (k = config_key_at(i)) != NULL; i++)
		suggest_consider(name, k->section, &best, &bestd);
	/* [target web], [targt "web"]: the table's word, then quotes. */
	wl = strcspn(name, " ");
	memcpy(given, name, wl);
	given[wl] = '\0';
	rest = name + wl + strspn(name + wl, " \"");
	rl = strcspn(rest, "\"");
	for (i = 0; rl > 0 && (s = config_section_at(i)) != NULL; i++) {
		if (s->section != NULL || strcspn(s->prefix, " \"") >=
		    sizeof(word))
			continue;
		snprintf(word, sizeof(word), "%.*s",
		    (int)strcspn(s->prefix, " \""), s->prefix);
		if (suggest_distance(given, word) > suggest_budget(wl))
			continue;
		snprintf(buf, len, "%s%.*s%s", s->prefix, (int)rl, rest,
		    s->suffix);
		return buf;
	}
	if (best == NULL)
		return NULL;
	snprintf(buf, len, "%s", best);
	return buf;
}

/* The section whose key name is, when it is not section's; or NULL. */
const char *
config_suggest_home(const char *section, const char *name)
{
	const struct config_key	*k;
	size_t			 i;

	for (i = 0; (k = config_key_at(i)) != NULL; i++) {
		if (strcmp(k->name, name) == 0 &&
		    strcmp(k->section, section) != 0)
			return k->section;
	}
	return NULL;
}
