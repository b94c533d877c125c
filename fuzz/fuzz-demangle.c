/*
 * Symbol names, demangled: the input is a name as a symbol table or
 * the vDSO holds it (up to its first NUL), in each mode, and through a
 * table's cache; and demangle_simplify on the input as if it were
 * demangled.  A name that prints more than a bound, or takes more than
 * a bound of CPU time, must come back as it is; libFuzzer's -timeout
 * and -rss_limit_mb catch one that does not.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"
#include "sym/demangle.h"

/* What demangle.c promises: its DEMANGLE_OUT_MAX. */
#define FUZZ_DEMANGLE_OUT_MAX	16384

static void
fuzz_demangle_check(const char *s, int mode)
{
	char	*d;

	if ((d = demangle_name(s, mode)) == NULL)
		return;
	if (d[0] == '\0' || strlen(d) > FUZZ_DEMANGLE_OUT_MAX)
		abort();
	/* Simplified again: a fixed point, never longer. */
	if (mode == CONFIG_DEMANGLE_SIMPLIFIED) {
		demangle_simplify(d);
		if (strlen(d) > FUZZ_DEMANGLE_OUT_MAX)
			abort();
	}
	free(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct demangle_cache	*dc = NULL;
	const char		*a, *b;
	char			*s;

	s = malloc(len + 1);
	memcpy(s, data, len);
	s[len] = '\0';
	fuzz_demangle_check(s, CONFIG_DEMANGLE_NONE);
	fuzz_demangle_check(s, CONFIG_DEMANGLE_SIMPLIFIED);
	fuzz_demangle_check(s, CONFIG_DEMANGLE_FULL);
	/* The cache answers the same twice, raw or from its block. */
	a = demangle_cache_name(&dc, 2, 1, s, CONFIG_DEMANGLE_FULL);
	b = demangle_cache_name(&dc, 2, 1, s, CONFIG_DEMANGLE_FULL);
	if (a != b || strcmp(a, b) != 0)
		abort();
	(void)demangle_cache_bytes(dc);
	demangle_cache_free(dc);
	demangle_simplify(s);
	free(s);
	return 0;
}
