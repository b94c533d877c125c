/* Placeholder until collection rounds land. */
#include <stdlib.h>

#include "collect.h"
#include "xmalloc.h"

struct collect {
	int	 dummy;
};

struct collect *
collect_create(struct session *s, struct pids *p, struct resolve *r)
{
	return xcalloc(1, sizeof(struct collect));
}

void
collect_free(struct collect *c)
{
	free(c);
}

int
collect_round(struct collect *c, const struct config *conf, int final)
{
	return 0;
}

void
collect_log_state(struct collect *c)
{
}
