/*
 * The sinks of a round's profiles: the files sink (pprof, folded, SVG
 * flame graphs, retention).  Each sink takes the whole round, so that
 * one that batches (a push) can.
 */
#include <stdint.h>
#include <stdlib.h>

#include "config.h"
#include "flamegraph.h"
#include "log.h"
#include "profile.h"
#include "retention.h"
#include "sink_file.h"
#include "sinks.h"
#include "xmalloc.h"

struct sinks {
	struct ev_loop	*loop;
	uint64_t	 rounds;
	uint64_t	 file_errors;
};

struct sinks *
sinks_create(struct ev_loop *loop, const struct config *conf)
{
	struct sinks	*s;

	s = xcalloc(1, sizeof(*s));
	s->loop = loop;
	return s;
}

void
sinks_free(struct sinks *s)
{
	free(s);
}

int
sinks_configure(struct sinks *s, const struct config *conf)
{
	return 0;
}

int
sinks_round(struct sinks *s, const struct config *conf,
    struct profile *const *profiles, size_t n, int64_t start, int64_t end)
{
	time_t	 wall = end / 1000000000;
	size_t	 i;
	int	 rc = 0;

	for (i = 0; i < n; i++) {
		if (sink_file_write(conf, profiles[i], wall) == -1 ||
		    flamegraph_write(conf, profiles[i], wall) == -1) {
			s->file_errors++;
			rc = -1;
		}
	}
	retention_run(conf, wall);
	s->rounds++;
	return rc;
}

void
sinks_flush(struct sinks *s)
{
}

void
sinks_log_state(struct sinks *s)
{
	log_info("sinks: %llu rounds, %llu file errors",
	    (unsigned long long)s->rounds,
	    (unsigned long long)s->file_errors);
}
