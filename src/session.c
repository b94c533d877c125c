/* Placeholder until the BPF session lands. */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "xmalloc.h"

struct session {
	int	 dummy;
};

struct session *
session_open(struct ev_loop *loop, const struct config *conf,
    session_event_cb cb, void *arg)
{
	return xcalloc(1, sizeof(struct session));
}

void
session_close(struct session *s)
{
	free(s);
}

int
session_apply(struct session *s, const struct config *conf)
{
	return 0;
}

void
session_stats(struct session *s, uint64_t *stats)
{
	memset(stats, 0, PROFILE_STAT_MAX * sizeof(*stats));
}
