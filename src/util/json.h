#ifndef EBPFSPY_JSON_H
#define EBPFSPY_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json;

/*
 * A small streaming JSON writer.  Members of an object take a key,
 * elements of an array and the top-level value take NULL.  Strings are
 * escaped and made valid UTF-8 (a byte that is not part of a valid
 * sequence becomes U+FFFD), so the output parses whatever the daemon
 * read from /proc or an ELF file.  Non-finite numbers are written null.
 */
struct json	*json_create(FILE *);
/* 0 if every value was closed and written, else -1. */
int		 json_free(struct json *);
void		 json_object_begin(struct json *, const char *);
void		 json_object_end(struct json *);
void		 json_array_begin(struct json *, const char *);
void		 json_array_end(struct json *);
void		 json_string(struct json *, const char *, const char *);
void		 json_uint(struct json *, const char *, uint64_t);
void		 json_int(struct json *, const char *, int64_t);
void		 json_double(struct json *, const char *, double);
void		 json_bool(struct json *, const char *, int);
void		 json_null(struct json *, const char *);

/* Write s as a quoted JSON string. */
void		 json_write_string(FILE *, const char *);
/*
 * The length of the valid UTF-8 sequence at s (at most len bytes), or
 * 0 if the bytes there are not one: overlong, a surrogate, beyond
 * U+10FFFF, or cut short.
 */
size_t		 json_utf8_len(const unsigned char *, size_t);

#endif
