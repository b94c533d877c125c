/*
 * Folded stacks: sorted lines, values as counted, names cleaned so that
 * every line parses as "frames count".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/folded.h"
#include "profile/profile.h"
#include "tap.h"

/* The folded text of p, to be freed. */
static char *
folded_text(const struct profile *p, int *rv)
{
	FILE	*f;
	char	*buf = NULL;
	size_t	 len = 0;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	*rv = folded_write(p, f);
	fclose(f);
	return buf;
}

static void
add(struct profile *p, const char *a, const char *b, const char *c,
    uint64_t v)
{
	const char	*f[3] = { a, b, c };
	size_t		 n = c != NULL ? 3 : b != NULL ? 2 : 1;

	profile_add(p, f, n, v);
}

static void
test_sorted(void)
{
	struct profile	*p;
	char		*s;
	int		 rv = -1;

	p = profile_create(PROFILE_TYPE_CPU, 10000000, 0, 0);
	add(p, "main", "zeta", NULL, 5);
	add(p, "main", "foo", "bar", 3);
	add(p, "bash", NULL, NULL, 1);
	add(p, "main", "foo", NULL, 2);
	add(p, "main", "foo", "bar", 4);
	s = folded_text(p, &rv);
	is_int(rv, 0, "cpu: written");
	is_str(s, "bash 1\nmain;foo 2\nmain;foo;bar 7\nmain;zeta 5\n",
	    "cpu: sorted, summed, counts are samples");
	free(s);
	profile_free(p);

	p = profile_create(PROFILE_TYPE_OFFCPU, 0, 0, 0);
	add(p, "sleep", "nanosleep", NULL, 1500000000ULL);
	add(p, "sleep", "nanosleep", NULL, 25000000000ULL);
	s = folded_text(p, &rv);
	is_str(s, "sleep;nanosleep 26500000000\n",
	    "offcpu: nanoseconds, 64-bit");
	free(s);
	profile_free(p);

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	s = folded_text(p, &rv);
	is_int(rv, 0, "empty profile: written");
	is_str(s, "", "empty profile: no lines");
	free(s);
	profile_free(p);
}

static void
test_clean(void)
{
	struct profile	*p;
	char		*s;
	int		 rv = -1;

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	add(p, "main", "std::map<a;b>", "leaf with space  ", 1);
	add(p, "main", "tab\there", "nl\nend\x7f", 2);
	add(p, "main", "", "x", 3);
	add(p, "   ", "y", NULL, 4);
	add(p, "operator new(unsigned long)", NULL, NULL, 5);
	/* Only equal once cleaned: one line. */
	add(p, "m", "a;b", NULL, 10);
	add(p, "m", "a:b", NULL, 20);
	add(p, "m", "a:b ", NULL, 30);
	s = folded_text(p, &rv);
	is_int(rv, 0, "written");
	is_str(s,
	    "[unknown];y 4\n"
	    "m;a:b 60\n"
	    "main;[unknown];x 3\n"
	    "main;std::map<a:b>;leaf with space 1\n"
	    "main;tab?here;nl?end? 2\n"
	    "operator new(unsigned long) 5\n",
	    "names cleaned, merged lines summed");
	free(s);
	profile_free(p);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Names that are prefixes of each other, with characters on both sides
 * of ';' after the prefix, and names that clean to the same text.  The
 * order must be that of the lines' text, as a plain sort of the built
 * strings gives it.
 */
static void
test_order(void)
{
	static const char *const names[] = { "foo", "foo.cold", "foo::bar",
	    "foobar", "fo", "a", "a ", "a;b", "a:b", "", "[unknown]", "z" };
	static const char *const clean[] = { "foo", "foo.cold", "foo::bar",
	    "foobar", "fo", "a", "a", "a:b", "a:b", "[unknown]", "[unknown]",
	    "z" };
	struct profile	*p;
	const char	*f[6];
	char		**text, *want, *got, *t;
	size_t		 ntext = 0, len, n, i, k, j;
	FILE		*w;
	unsigned int	 seed = 1;
	int		 rv = -1, idx[6];

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	text = calloc(3000, sizeof(*text));
	for (i = 0; i < 3000; i++) {
		n = 1 + rand_r(&seed) % 5;
		for (k = 0; k < n; k++) {
			idx[k] = rand_r(&seed) % 12;
			f[k] = names[idx[k]];
		}
		profile_add(p, f, n, 1);
		/* The reference: the text built the obvious way. */
		w = open_memstream(&t, &len);
		for (k = 0; k < n; k++)
			fprintf(w, "%s%s", k ? ";" : "", clean[idx[k]]);
		fclose(w);
		text[ntext++] = t;
	}
	qsort(text, ntext, sizeof(*text), cmp_str);
	w = open_memstream(&want, &len);
	for (i = 0; i < ntext; i = j) {
		for (j = i + 1; j < ntext && strcmp(text[i], text[j]) == 0; j++)
			;
		fprintf(w, "%s %zu\n", text[i], j - i);
	}
	fclose(w);
	got = folded_text(p, &rv);
	is_int(rv, 0, "random prefixes: written");
	ok(got != NULL && strcmp(got, want) == 0,
	    "random prefixes: the order and sums of a plain text sort");
	if (got != NULL && strcmp(got, want) != 0)
		printf("# got:\n%s# want:\n%s", got, want);
	for (i = 0; i < ntext; i++)
		free(text[i]);
	free(text);
	free(want);
	free(got);
	profile_free(p);
}

static void
test_error(void)
{
	struct profile	*p;
	FILE		*f;
	char		 name[32];
	int		 i;

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "function_%d", i);
		add(p, "main", name, NULL, 1);
	}
	if ((f = fopen("/dev/full", "w")) == NULL) {
		printf("ok %d # SKIP /dev/full: %s\n", ++tap_n,
		    strerror(errno));
		profile_free(p);
		return;
	}
	errno = 0;
	is_int(folded_write(p, f), -1, "write error reported");
	ok(errno == ENOSPC, "errno says why");
	fclose(f);
	profile_free(p);
}

int
main(void)
{
	test_sorted();
	test_clean();
	test_order();
	test_error();
	return done_testing();
}
