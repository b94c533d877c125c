/* /tmp/perf-PID.map: "START SIZE name" lines written by a JIT. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sym/perfmap.h"

static uint64_t
fuzz_perfmap_hex(const uint8_t *p, size_t len)
{
	uint64_t	 v = 0;
	size_t		 i = 0;
	int		 c;

	if (len >= 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
		i = 2;
	for (; i < len && i < 18; i++) {
		c = p[i];
		if (c >= '0' && c <= '9')
			v = v << 4 | (c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v << 4 | ((c | 0x20) - 'a' + 10);
		else
			break;
	}
	return v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct perfmap	*pm;
	const char	*name;
	size_t		 i;
	uint64_t	 a;

	if ((pm = perfmap_parse((const char *)data, len)) == NULL)
		return 0;
	perfmap_count(pm);
	perfmap_bytes(pm);
	perfmap_skipped(pm);
	/* Look up every address a line of the input names. */
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&a, data + i, sizeof(a));
		if ((name = perfmap_lookup(pm, a)) != NULL)
			(void)strlen(name);
	}
	/* And the start of every line, as the parser may have read it. */
	for (i = 0; i < len; i++) {
		if (i > 0 && data[i - 1] != '\n')
			continue;
		a = fuzz_perfmap_hex(data + i, len - i);
		if ((name = perfmap_lookup(pm, a)) != NULL)
			(void)strlen(name);
		if ((name = perfmap_lookup(pm, a - 1)) != NULL)
			(void)strlen(name);
	}
	perfmap_lookup(pm, 0);
	perfmap_lookup(pm, UINT64_MAX);
	perfmap_free(pm);
	return 0;
}
