/* /proc/PID/maps text: anything a process can make its maps say. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proc/procmaps.h"

static void
fuzz_procmaps_use(const struct procmaps *m)
{
	const struct procmaps_entry	*e;
	struct procmaps			*c;
	size_t				 i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++) {
		e = &m->v[i];
		if (procmaps_lookup(m, e->start) != e ||
		    procmaps_lookup(m, e->end - 1) != e)
			abort();	/* sorted and disjoint, or lost */
		if (strlen(procmaps_basename(e)) > strlen(e->path))
			abort();
		procmaps_is_data(m, e->end);
	}
	for (i = 0; i < m->ndata; i++)
		if (!procmaps_is_data(m, m->data[i].start))
			abort();
	procmaps_lookup(m, 0);
	procmaps_lookup(m, UINT64_MAX);
	c = procmaps_copy(m);
	if (c->n != m->n)
		abort();
	procmaps_free(c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct procmaps	*m;
	FILE		*f;

	m = procmaps_parse_buf((const char *)data, len);
	fuzz_procmaps_use(m);
	procmaps_free(m);

	/* The stream reader, with its own line splitting. */
	if (len > 0 && (f = fmemopen((void *)data, len, "r")) != NULL) {
		m = procmaps_parse(f);
		fclose(f);
		fuzz_procmaps_use(m);
		procmaps_free(m);
	}
	return 0;
}
