/*
 * A streaming JSON writer for the daemon's debug pages.  It keeps only
 * the nesting (object or array, first member or not) so that commas and
 * keys are always where they belong; a misuse is remembered and reported
 * by json_free() rather than written as invalid JSON silently.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xmalloc.h"

#define JSON_DEPTH_MAX	32

struct json {
	FILE		*f;
	int		 depth;
	char		 kind[JSON_DEPTH_MAX];	/* 'o' object, 'a' array */
	int		 count[JSON_DEPTH_MAX];	/* members written */
	int		 done;			/* top-level value written */
	int		 error;
};

struct json *
json_create(FILE *f)
{
	struct json	*j;

	j = xcalloc(1, sizeof(*j));
	j->f = f;
	return j;
}

int
json_free(struct json *j)
{
	int	 rc;

	if (j == NULL)
		return 0;
	rc = (j->error || j->depth != 0 || !j->done) ? -1 : 0;
	free(j);
	return rc;
}

size_t
json_utf8_len(const unsigned char *s, size_t len)
{
	uint32_t	 cp;
	size_t		 n, i;

	if (len == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else
		return 0;	/* continuation byte, 0xc0, 0xc1, 0xf5.. */
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void
json_write_string(FILE *f, const char *str)
{
	const unsigned char	*s = (const unsigned char *)str;
	size_t			 len = strlen(str), n;

	putc('"', f);
	while (len > 0) {
		switch (*s) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				fprintf(f, "\\u%04x", *s);
				break;
			}
			if ((n = json_utf8_len(s, len)) == 0) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s, 1, n, f);
			s += n;
			len -= n;
			continue;
		}
		s++;
		len--;
	}
	putc('"', f);
}

/* Before a value: the comma and the key its container wants. */
static int
json_value_start(struct json *j, const char *key)
{
	if (j->error)
		return -1;
	if (j->depth == 0) {
		if (j->done || key != NULL) {
			j->error = 1;
			return -1;
		}
		j->done = 1;
		return 0;
	}
	if ((j->kind[j->depth - 1] == 'o') != (key != NULL)) {
		j->error = 1;
		return -1;
	}
	if (j->count[j->depth - 1]++ > 0)
		putc(',', j->f);
	if (key != NULL) {
		json_write_string(j->f, key);
		putc(':', j->f);
	}
	return 0;
}

static void
json_open(struct json *j, const char *key, char kind)
{
	if (json_value_start(j, key) == -1)
		return;
	if (j->depth == JSON_DEPTH_MAX) {
		j->error = 1;
		return;
	}
	j->kind[j->depth] = kind;
	j->count[j->depth] = 0;
	j->depth++;
	putc(kind == 'o' ? '{' : '[', j->f);
}

static void
json_close(struct json *j, char kind)
{
	if (j->error)
		return;
	if (j->depth == 0 || j->kind[j->depth - 1] != kind) {
		j->error = 1;
		return;
	}
	j->depth--;
	putc(kind == 'o' ? '}' : ']', j->f);
	if (j->depth == 0)
		putc('\n', j->f);
}

void
json_object_begin(struct json *j, const char *key)
{
	json_open(j, key, 'o');
}

void
json_object_end(struct json *j)
{
	json_close(j, 'o');
}

void
json_array_begin(struct json *j, const char *key)
{
	json_open(j, key, 'a');
}

void
json_array_end(struct json *j)
{
	json_close(j, 'a');
}

void
json_string(struct json *j, const char *key, const char *val)
{
	if (json_value_start(j, key) == -1)
		return;
	if (val == NULL)
		fputs("null", j->f);
	else
		json_write_string(j->f, val);
}

void
json_uint(struct json *j, const char *key, uint64_t val)
{
	if (json_value_start(j, key) == 0)
		fprintf(j->f, "%llu", (unsigned long long)val);
}

void
json_int(struct json *j, const char *key, int64_t val)
{
	if (json_value_start(j, key) == 0)
		fprintf(j->f, "%lld", (long long)val);
}

void
json_double(struct json *j, const char *key, double val)
{
	if (json_value_start(j, key) == -1)
		return;
	if (!isfinite(val))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.15g", val);
}

void
json_bool(struct json *j, const char *key, int val)
{
	if (json_value_start(j, key) == 0)
		fputs(val ? "true" : "false", j->f);
}

void
json_null(struct json *j, const char *key)
{
	if (json_value_start(j, key) == 0)
		fputs("null", j->f);
}
