/*
 * Interned strings: one id per distinct string, in the order added,
 * strings that stay in place while the table grows, long strings, and
 * a clear that starts the ids again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/intern.h"
#include "tap.h"

#define MANY	20000

static char *
long_name(size_t len, char c)
{
	char	*s;

	s = malloc(len + 1);
	memset(s, c, len);
	s[len] = '\0';
	return s;
}

int
main(void)
{
	struct intern	*in;
	const char	*kept[MANY], *main_s;
	char		 name[32], *big, *big2, copy[16];
	uint32_t	 id, id2;
	size_t		 i, bytes, bytes0;
	int		 all;

	in = intern_create();
	is_int(intern_count(in), 0, "new: empty");
	ok(intern_name(in, 0) == NULL, "new: id 0 names nothing");
	ok(intern_find(in, "", &id) == -1, "new: not even \"\"");
	bytes0 = intern_bytes(in);
	ok(bytes0 > 0, "new: its table counted (%zu bytes)", bytes0);

	is_int(intern_add(in, "main"), 0, "the first string: id 0");
	is_int(intern_add(in, "work"), 1, "the second: id 1");
	is_int(intern_add(in, ""), 2, "the empty string is a string");
	strcpy(copy, "main");
	is_int(intern_add(in, copy), 0, "the same string in another buffer: "
	    "its id");
	is_int(intern_count(in), 3, "three strings");
	is_str(intern_name(in, 1), "work", "an id names its string");
	ok(intern_name(in, 3) == NULL, "an id past the end names nothing");
	ok(intern_name(in, UINT32_MAX) == NULL, "nor does the largest");
	ok(intern_find(in, "work", &id) == 0 && id == 1, "found by string");
	ok(intern_find(in, "wor", &id) == -1, "a prefix is not found");
	ok(intern_find(in, "workk", &id) == -1, "nor a longer string");
	strcpy(copy, "xyz");
	ok(intern_add(in, copy) == 3 && (copy[0] = 'q') &&
	    strcmp(intern_name(in, 3), "xyz") == 0,
	    "the string is copied, not kept");

	/* Many strings: the table grows, ids and addresses stay. */
	main_s = intern_name(in, 0);
	for (i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "fn_%zu", i);
		id = intern_add(in, name);
		if (id != i + 4)
			break;
		kept[i] = intern_name(in, id);
	}
	is_int(i, MANY, "20000 strings: ids in the order added");
	all = 1;
	for (i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "fn_%zu", i);
		if (intern_find(in, name, &id) == -1 || id != i + 4 ||
		    intern_name(in, id) != kept[i] ||
		    strcmp(kept[i], name) != 0)
			all = 0;
	}
	ok(all, "every one found, its string where it was");
	ok(intern_name(in, 0) == main_s && strcmp(main_s, "main") == 0,
	    "the first string did not move");
	is_int(intern_count(in), MANY + 4, "counted");
	bytes = intern_bytes(in);
	ok(bytes > bytes0 + MANY * 8, "memory counted (%zu bytes)", bytes);

	/* Long strings: a chunk of their own; short ones still fit. */
	big = long_name(100000, 'L');
	big2 = long_name(20000, 'M');
	id = intern_add(in, big);
	id2 = intern_add(in, big2);
	is_int(intern_add(in, "after_big"), MANY + 6,
	    "a short string after two long ones");
	ok(strcmp(intern_name(in, id), big) == 0 &&
	    strcmp(intern_name(in, id2), big2) == 0, "long strings kept whole");
	ok(intern_add(in, big) == id, "a long string interned once");
	ok(intern_bytes(in) >= bytes + 120000, "long strings counted");
	is_str(intern_name(in, MANY + 3), "fn_19999",
	    "the strings before them are still there");

	/* Clear: everything goes, ids start again. */
	intern_clear(in);
	is_int(intern_count(in), 0, "cleared: empty");
	ok(intern_find(in, "main", &id) == -1, "cleared: nothing found");
	ok(intern_name(in, 0) == NULL, "cleared: id 0 names nothing");
	is_int(intern_add(in, "work"), 0, "cleared: ids start from 0");
	ok(intern_bytes(in) < bytes, "cleared: the strings' memory freed");

	/* Clear at once when the first string was a long one. */
	intern_clear(in);
	id = intern_add(in, big);
	is_int(intern_add(in, "small"), 1, "a long string first, then a "
	    "short one");
	ok(strcmp(intern_name(in, 0), big) == 0 &&
	    strcmp(intern_name(in, 1), "small") == 0, "both kept");

	intern_free(in);
	intern_free(NULL);
	ok(1, "intern_free(NULL) is a no-op");
	free(big);
	free(big2);
	return done_testing();
}
