/* Placeholder until the process table lands. */
#include <stdlib.h>

#include "pids.h"
#include "xmalloc.h"

struct pids {
	int	 dummy;
};

struct pids *
pids_create(struct session *s, struct resolve *r, const struct config *conf)
{
	return xcalloc(1, sizeof(struct pids));
}

void
pids_free(struct pids *p)
{
	free(p);
}

void
pids_configure(struct pids *p, const struct config *conf)
{
}

void
pids_event(struct pids *p, const struct profile_event *ev)
{
}

void
pids_log_state(struct pids *p)
{
}
