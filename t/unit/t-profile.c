/*
 * The in-memory profile: names interned once, stacks summed by their
 * frames in order, labels, and a round-sized profile built quickly.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile/profile.h"
#include "round/stacknames.h"
#include "tap.h"

/* The frames of stack i as "a;b;c", from the string ids. */
static void
stack_text(const struct profile *p, size_t i, char *buf, size_t size,
    uint64_t *value)
{
	const uint32_t	*ids;
	size_t		 n, j, off = 0;

	ids = profile_stack(p, i, &n, value);
	buf[0] = '\0';
	for (j = 0; j < n && off < size; j++)
		off += snprintf(buf + off, size - off, "%s%s", j ? ";" : "",
		    profile_string(p, ids[j]));
}

/* The value of the stack spelled text, or -1 when there is none. */
static long long
stack_value(const struct profile *p, const char *text)
{
	char		 buf[1024];
	uint64_t	 v;
	size_t		 i;

	for (i = 0; i < profile_nstacks(p); i++) {
		stack_text(p, i, buf, sizeof(buf), &v);
		if (strcmp(buf, text) == 0)
			return (long long)v;
	}
	return -1;
}

static void
test_basics(void)
{
	struct profile	*p;

	p = profile_create(PROFILE_TYPE_OFFCPU, 0, 1234, 5678);
	is_int(profile_type(p), PROFILE_TYPE_OFFCPU, "type");
	is_str(profile_type_name(PROFILE_TYPE_CPU), "cpu", "cpu name");
	is_str(profile_type_name(PROFILE_TYPE_OFFCPU), "offcpu",
	    "offcpu name");
	is_int(profile_time(p), 1234, "time");
	is_int(profile_duration(p), 5678, "duration");
	is_int(profile_period(p), 0, "period");
	is_int(profile_nstacks(p), 0, "empty: no stacks");
	is_int(profile_total(p), 0, "empty: total 0");
	is_int(profile_nstrings(p), 1, "empty: only the empty string");
	is_str(profile_string(p, 0), "", "string 0 is empty");
	ok(profile_string(p, 1) == NULL, "string past the end is NULL");
	ok(profile_stack(p, 0, NULL, NULL) == NULL,
	    "stack past the end is NULL");
	profile_free(p);
	profile_free(NULL);
	ok(1, "profile_free(NULL) is a no-op");
}

static void
test_interning(void)
{
	struct profile	*p;
	const char	*s1[] = { "main", "foo", "bar" };
	const char	*s2[] = { "main", "foo" };
	const char	*s3[] = { "foo", "main" };
	const char	*s4[] = { "main", "main", "main" };
	const char	*s5[] = { "main", NULL };
	char		*dyn[3];
	const uint32_t	*ids;
	uint32_t	 id_main, id_foo, id;
	size_t		 n;
	uint64_t	 v;

	p = profile_create(PROFILE_TYPE_CPU, 10000000, 0, 0);
	profile_add(p, s1, 3, 1);
	profile_add(p, s1, 3, 2);
	is_int(profile_nstacks(p), 1, "same stack twice is one stack");
	is_int(profile_total(p), 3, "total sums both");
	is_int(stack_value(p, "main;foo;bar"), 3, "stack value summed");

	/* Equal names from other buffers are the same stack. */
	dyn[0] = strdup("main");
	dyn[1] = strdup("foo");
	dyn[2] = strdup("bar");
	profile_add(p, (const char *const *)dyn, 3, 4);
	free(dyn[0]);
	free(dyn[1]);
	free(dyn[2]);
	is_int(profile_nstacks(p), 1, "equal names in new buffers: same stack");
	is_int(stack_value(p, "main;foo;bar"), 7, "and summed into it");

	profile_add(p, s2, 2, 10);
	profile_add(p, s3, 2, 20);
	profile_add(p, s4, 3, 30);
	profile_add(p, s4, 1, 40);
	is_int(profile_nstacks(p), 5, "prefix, reversed, repeated: distinct");
	is_int(stack_value(p, "main;foo"), 10, "prefix stack");
	is_int(stack_value(p, "foo;main"), 20, "order matters");
	is_int(stack_value(p, "main;main;main"), 30, "repeated frame");
	is_int(stack_value(p, "main"), 40, "one frame");
	is_int(profile_nstrings(p), 4, "three names interned once, plus \"\"");

	ok(profile_string_find(p, "main", &id_main) == 0, "find main");
	ok(profile_string_find(p, "foo", &id_foo) == 0, "find foo");
	ok(profile_string_find(p, "nope", &id) == -1, "unknown name: -1");
	ok(profile_string_find(p, "", &id) == 0 && id == 0,
	    "the empty string is id 0");
	ok(id_main != id_foo && id_main != 0 && id_foo != 0,
	    "distinct nonzero ids");
	is_str(profile_string(p, id_main), "main", "id maps back to main");

	ids = profile_stack(p, 0, &n, &v);
	ok(ids != NULL && n == 3 && ids[0] == id_main && ids[1] == id_foo,
	    "first stack: ids root first");
	is_int(v, 7, "first stack value");

	/* Nothing to show for an empty stack: ignored. */
	profile_add(p, s1, 0, 100);
	is_int(profile_nstacks(p), 5, "empty stack not stored");
	is_int(profile_total(p), 107, "empty stack not counted");

	profile_add(p, s5, 2, 1);
	is_int(stack_value(p, "main;"), 1, "NULL frame is the empty name");
	profile_free(p);
}

static void
test_long_names(void)
{
	struct profile	*p;
	char		*big1, *big2, small[32];
	const char	*f[3];
	uint32_t	 id;
	int		 i, good;

	/* Long names and many small ones across arena chunks. */
	big1 = malloc(20001);
	memset(big1, 'x', 20000);
	big1[20000] = '\0';
	big2 = strdup(big1);
	big2[19999] = 'y';
	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	for (i = 0; i < 5000; i++) {
		snprintf(small, sizeof(small), "function_number_%d", i);
		f[0] = small;
		f[1] = i % 2 ? big1 : big2;
		f[2] = small;
		profile_add(p, f, 3, 1);
	}
	is_int(profile_nstacks(p), 5000, "5000 stacks with long names");
	is_int(profile_nstrings(p), 5003, "5000 small + 2 long + \"\"");
	good = 1;
	for (i = 0; i < 5000; i++) {
		snprintf(small, sizeof(small), "function_number_%d", i);
		if (profile_string_find(p, small, &id) == -1 ||
		    strcmp(profile_string(p, id), small) != 0)
			good = 0;
		f[0] = small;
		f[1] = i % 2 ? big1 : big2;
		f[2] = small;
		profile_add(p, f, 3, 1);
	}
	ok(good, "every name found, and its id names it");
	is_int(profile_nstacks(p), 5000, "adding them again finds them all");
	is_int(profile_total(p), 10000, "total of both passes");
	ok(profile_string_find(p, big2, &id) == 0 &&
	    strcmp(profile_string(p, id), big2) == 0, "long name found");
	free(big1);
	free(big2);
	profile_free(p);
}

static void
test_labels(void)
{
	struct profile	*p;

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	ok(profile_label_get(p, "service_name") == NULL, "no label yet");
	is_int(profile_nlabels(p), 0, "no labels");
	profile_label_set(p, "service_name", "web");
	profile_label_set(p, "env", "prod");
	is_str(profile_label_get(p, "service_name"), "web", "label get");
	is_str(profile_label_get(p, "env"), "prod", "second label");
	profile_label_set(p, "service_name", "api");
	is_str(profile_label_get(p, "service_name"), "api", "label replaced");
	is_int(profile_nlabels(p), 2, "replacing keeps the count");
	is_str(profile_label_name(p, 0), "service_name", "order kept: 0");
	is_str(profile_label_value(p, 0), "api", "value 0");
	is_str(profile_label_name(p, 1), "env", "order kept: 1");
	ok(profile_label_name(p, 2) == NULL, "label past the end is NULL");
	profile_label_set(p, "service_name", NULL);
	ok(profile_label_get(p, "service_name") == NULL, "label removed");
	is_int(profile_nlabels(p), 1, "one label left");
	is_str(profile_label_name(p, 0), "env", "the other stays");
	profile_label_set(p, "missing", NULL);
	is_int(profile_nlabels(p), 1, "removing a missing label: no-op");
	profile_free(p);
}

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A big round: 20,000 distinct stacks of depth 24 over 3,000 names,
 * each added twice.  An O(n^2) table would take seconds here.
 */
static void
test_many(void)
{
	struct profile	*p;
	char		 names[3000][24], buf[1024], want[1024];
	const char	*f[24];
	double		 t0, t1;
	uint64_t	 v;
	size_t		 i, j, k, off, bad;

	for (i = 0; i < 3000; i++)
		snprintf(names[i], sizeof(names[i]), "fn_%zu", i);
	p = profile_create(PROFILE_TYPE_CPU, 10101010, 0, 0);
	t0 = now();
	for (j = 0; j < 2; j++)
		for (i = 0; i < 20000; i++) {
			/* Depth 24; the leaf pair makes every stack unique. */
			for (k = 0; k < 22; k++)
				f[k] = names[(i * 7 + k * 13) % 3000];
			f[22] = names[i % 3000];
			f[23] = names[i / 3000];
			profile_add(p, f, 24, j + 1);
		}
	t1 = now();
	is_int(profile_nstacks(p), 20000, "20,000 distinct stacks");
	is_int(profile_total(p), 60000, "total of 20,000 * (1 + 2)");
	printf("# 40,000 adds of depth 24 took %.1f ms\n", (t1 - t0) * 1e3);

	bad = 0;
	for (i = 0; i < 20000; i += 97) {
		off = 0;
		for (k = 0; k < 22; k++)
			off += snprintf(want + off, sizeof(want) - off, "%s;",
			    names[(i * 7 + k * 13) % 3000]);
		snprintf(want + off, sizeof(want) - off, "%s;%s",
		    names[i % 3000], names[i / 3000]);
		stack_text(p, i, buf, sizeof(buf), &v);
		if (strcmp(buf, want) != 0 || v != 3)
			bad++;
	}
	is_int(bad, 0, "stacks kept their frames and summed values");
	profile_free(p);
}

/* Frames as stacknames ids: the same stacks as by their names. */
static void
test_ids(void)
{
	const char		*fa[] = { "app", "main", "burn_a" };
	const char		*fb[] = { "app", "main", "burn_b" };
	const char		*lab[] = { "pid", "42" };
	struct stacknames	*sn, *other;
	struct profile		*p;
	const uint32_t		*st;
	uint32_t		 a[3], b[3], o[3];
	uint64_t		 v;
	size_t			 i, n;

	sn = stacknames_create(3, 1000);
	other = stacknames_create(3, 1000);
	/* Ids in another order than the profile's. */
	(void)stacknames_intern(sn, "unused");
	for (i = 0; i < 3; i++) {
		b[i] = stacknames_intern(sn, fb[i]);
		a[i] = stacknames_intern(sn, fa[i]);
		o[i] = stacknames_intern(other, fb[i]);
	}
	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	profile_add_ids(p, stacknames_names(sn), NULL, a, 3, 2, NULL, 0);
	profile_add(p, fa, 3, 1);
	profile_add_ids(p, stacknames_names(sn), NULL, b, 3, 5, NULL, 0);
	is_int(profile_nstacks(p), 2, "ids and names: the same stacks");
	st = profile_stack(p, 0, &n, &v);
	ok(n == 3 && v == 3 && strcmp(profile_string(p, st[2]), "burn_a") == 0,
	    "added by ids then by names: summed");
	profile_add_ids(p, stacknames_names(other), NULL, o, 3, 1, NULL, 0);
	st = profile_stack(p, 1, &n, &v);
	ok(n == 3 && v == 6 && strcmp(profile_string(p, st[2]), "burn_b") == 0,
	    "ids of another table: translated anew");
	profile_add_ids(p, stacknames_names(sn), NULL, a, 3, 1, lab, 1);
	is_int(profile_nstacks(p), 3, "with labels: another stack");
	profile_add_ids(p, stacknames_names(sn), NULL, a, 0, 1, NULL, 0);
	is_int(profile_total(p), 10, "empty stack ignored");
	profile_free(p);
	stacknames_free(sn);
	stacknames_free(other);
}

/*
 * Trimming: the heaviest stacks kept as they are, with their labels and
 * the profile's, the rest merged into one frame; the total stays.
 */
static void
test_trim(void)
{
	struct profile	*p, *q;
	const char	*a[] = { "main", "a" }, *b[] = { "main", "b" },
			*c[] = { "main", "c" }, *d[] = { "main", "d" },
			*tl[] = { "thread_name", "w" };
	size_t		*order;

	p = profile_create(PROFILE_TYPE_CPU, 10, 1000, 2000);
	profile_label_set(p, "service_name", "svc");
	profile_add(p, a, 2, 1);
	profile_add_labels(p, b, 2, 5, tl, 1);
	profile_add(p, c, 2, 3);
	profile_add(p, d, 2, 5);
	order = profile_heaviest(p);
	ok(order[0] == 1 && order[1] == 3 && order[2] == 2 && order[3] == 0,
	    "heaviest first, ties in their order");
	q = profile_trim_copy(p, order, 2, "[other]");
	is_int(profile_nstacks(q), 3, "two kept, one merged");
	ok(stack_value(q, "main;b") == 5 && stack_value(q, "main;d") == 5,
	    "the heaviest kept");
	is_int(stack_value(q, "[other]"), 4, "the rest merged into [other]");
	ok(profile_total(q) == profile_total(p), "the total stays");
	is_str(profile_label_get(q, "service_name"), "svc",
	    "the profile's labels");
	ok(profile_period(q) == 10 && profile_time(q) == 1000 &&
	    profile_duration(q) == 2000, "its period and times");
	profile_free(q);
	q = profile_trim_copy(p, order, 4, "[other]");
	is_int(profile_nstacks(q), 4, "all kept: no [other]");
	profile_free(q);
	free(order);
	profile_free(p);
}

int
main(void)
{
	test_basics();
	test_ids();
	test_interning();
	test_long_names();
	test_labels();
	test_many();
	test_trim();
	return done_testing();
}
