/*
 * The JSON writer: commas and keys where they belong, strings escaped
 * and valid UTF-8 whatever bytes they held, misuse reported.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "tap.h"

/* Run fn on a writer over a memory stream; the text, to be freed. */
static char *
render(void (*fn)(struct json *), int *rv)
{
	struct json	*j;
	FILE		*f;
	char		*buf = NULL;
	size_t		 len = 0;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	j = json_create(f);
	fn(j);
	*rv = json_free(j);
	fclose(f);
	return buf;
}

static char *
string_of(const char *s)
{
	FILE	*f;
	char	*buf = NULL;
	size_t	 len = 0;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	json_write_string(f, s);
	fclose(f);
	return buf;
}

static void
doc_nested(struct json *j)
{
	json_object_begin(j, NULL);
	json_string(j, "a", "x");
	json_uint(j, "b", 18446744073709551615ULL);
	json_int(j, "c", -3);
	json_array_begin(j, "d");
	json_bool(j, NULL, 1);
	json_bool(j, NULL, 0);
	json_null(j, NULL);
	json_object_begin(j, NULL);
	json_object_end(j);
	json_array_begin(j, NULL);
	json_array_end(j);
	json_array_end(j);
	json_double(j, "e", 0.5);
	json_double(j, "f", NAN);
	json_double(j, "g", INFINITY);
	json_string(j, "h", NULL);
	json_object_end(j);
}

static void
doc_key_in_array(struct json *j)
{
	json_array_begin(j, NULL);
	json_uint(j, "k", 1);
	json_array_end(j);
}

static void
doc_no_key_in_object(struct json *j)
{
	json_object_begin(j, NULL);
	json_uint(j, NULL, 1);
	json_object_end(j);
}

static void
doc_unclosed(struct json *j)
{
	json_object_begin(j, NULL);
	json_array_begin(j, "a");
	json_array_end(j);
}

static void
doc_two_values(struct json *j)
{
	json_uint(j, NULL, 1);
	json_uint(j, NULL, 2);
}

static void
doc_wrong_close(struct json *j)
{
	json_object_begin(j, NULL);
	json_array_end(j);
}

static void
doc_deep(struct json *j)
{
	int	 i;

	for (i = 0; i < 40; i++)
		json_array_begin(j, NULL);
	for (i = 0; i < 40; i++)
		json_array_end(j);
}

static void
doc_empty(struct json *j)
{
}

static void
test_documents(void)
{
	char	*s;
	int	 rv;

	s = render(doc_nested, &rv);
	is_int(rv, 0, "a nested document is complete");
	is_str(s, "{\"a\":\"x\",\"b\":18446744073709551615,\"c\":-3,"
	    "\"d\":[true,false,null,{},[]],\"e\":0.5,\"f\":null,"
	    "\"g\":null,\"h\":null}\n",
	    "commas and keys in place; non-finite numbers are null");
	free(s);

	s = render(doc_key_in_array, &rv);
	is_int(rv, -1, "a key in an array is a misuse");
	free(s);
	s = render(doc_no_key_in_object, &rv);
	is_int(rv, -1, "an object member without a key is a misuse");
	free(s);
	s = render(doc_unclosed, &rv);
	is_int(rv, -1, "an unclosed object is reported");
	free(s);
	s = render(doc_two_values, &rv);
	is_int(rv, -1, "two top-level values are a misuse");
	free(s);
	s = render(doc_wrong_close, &rv);
	is_int(rv, -1, "closing an array that is an object is a misuse");
	free(s);
	s = render(doc_deep, &rv);
	is_int(rv, -1, "nesting beyond the limit is reported");
	free(s);
	s = render(doc_empty, &rv);
	is_int(rv, -1, "no value at all is reported");
	free(s);
}

static void
test_strings(void)
{
	static const struct {
		const char	*in, *out, *what;
	} t[] = {
		{ "plain", "\"plain\"", "plain text" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"", "quote and backslash" },
		{ "\n\r\t\b\x01\x1f\x7f", "\"\\n\\r\\t\\u0008\\u0001\\u001f"
		    "\\u007f\"", "control characters" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5",
		    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"",
		    "valid UTF-8 passes" },
		{ "a\xff" "b", "\"a\\ufffdb\"", "a stray byte" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"", "an overlong slash" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "a surrogate" },
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		    "beyond U+10FFFF" },
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"", "a sequence cut short" },
		{ "\xe2\x82" "a", "\"\\ufffd\\ufffda\"",
		    "a sequence broken by ASCII" },
		{ "", "\"\"", "empty" },
	};
	size_t	 i;
	char	*s;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s = string_of(t[i].in);
		is_str(s, t[i].out, "string: %s", t[i].what);
		free(s);
	}
}

static void
test_utf8_len(void)
{
	is_int(json_utf8_len((const unsigned char *)"a", 1), 1, "ASCII");
	is_int(json_utf8_len((const unsigned char *)"\xc3\xa9", 2), 2,
	    "two bytes");
	is_int(json_utf8_len((const unsigned char *)"\xc3\xa9", 1), 0,
	    "two bytes, one available");
	is_int(json_utf8_len((const unsigned char *)"\xef\xbf\xbd", 3), 3,
	    "U+FFFD");
	is_int(json_utf8_len((const unsigned char *)"\xe0\x9f\xbf", 3), 0,
	    "overlong three bytes");
	is_int(json_utf8_len((const unsigned char *)"\xf0\x8f\xbf\xbf", 4),
	    0, "overlong four bytes");
	is_int(json_utf8_len((const unsigned char *)"\xf4\x8f\xbf\xbf", 4),
	    4, "U+10FFFF");
	is_int(json_utf8_len((const unsigned char *)"\x80", 1), 0,
	    "a lone continuation byte");
	is_int(json_utf8_len((const unsigned char *)"", 0), 0, "nothing");
}

int
main(void)
{
	test_documents();
	test_strings();
	test_utf8_len();
	return done_testing();
}
