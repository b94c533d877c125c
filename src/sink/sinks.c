/*
 * The sinks of a round's output: the files sink (sinks_files.c: pprof,
 * folded, SVG flame graphs, retention) and the Pyroscope push
 * (sinks_push.c), peers behind struct sinks_ops.  Each sink takes the
 * whole round, so that one that batches (a push) can.
 *
 * The round's output is one object, a struct sinks_batch, that the
 * sinks own from sinks_round() on: its profiles are encoded once for
 * all sinks, handed to each, and kept until the loop is idle and the
 * sinks have drawn from them; then the batch is freed here.  The
 * caller keeps nothing of the round.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ev.h>

#include "config/config.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "push/pyroscope.h"
#include "sink_file.h"
#include "sinks.h"
#include "sinks_int.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* In the order a round is handed out: its files first. */
static const struct sinks_ops *const sinks_table[] = {
	&sinks_files_ops,
	&sinks_push_ops,
};
#define SINKS_N	(sizeof(sinks_table) / sizeof(sinks_table[0]))

struct sinks {
	struct ev_loop		*loop;
	void			*arg[SINKS_N];	/* each sink's own */
	uint64_t		 rounds;
	ev_idle			 draw;		/* the flame graphs */
	struct sinks_info	 info;		/* for the round's log line */
	uint64_t		 busiest_total;
	struct sinks_batch	*held;		/* not drawn yet */
};

struct sinks_batch *
sinks_batch_create(struct profile **profiles, size_t n, int64_t start,
    int64_t end)
{
	struct sinks_batch	*b;

	b = xcalloc(1, sizeof(*b));
	b->profiles = profiles;
	b->n = n;
	b->start = start;
	b->end = end;
	b->wall = end / 1000000000;
	return b;
}

void
sinks_batch_final(struct sinks_batch *b)
{
	b->final = 1;
}

void
sinks_batch_free(struct sinks_batch *b)
{
	size_t	 i;

	if (b == NULL)
		return;
	for (i = 0; i < b->n; i++)
		profile_free(b->profiles[i]);
	free(b->profiles);
	pprof_bufs_free(b->bufs, b->n);
	free(b);
}

/* Every sink draws from the held batch (if any); then it is freed. */
static void
sinks_draw(struct sinks *s)
{
	size_t	 i;

	if (s->loop != NULL)
		ev_idle_stop(s->loop, &s->draw);
	for (i = 0; i < SINKS_N; i++)
		if (sinks_table[i]->draw != NULL)
			sinks_table[i]->draw(s->arg[i], s->held);
	sinks_batch_free(s->held);
	s->held = NULL;
	s->info.held = 0;
}

static void
sinks_draw_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	sinks_draw(w->data);
}

struct sinks *
sinks_create(struct ev_loop *loop, const struct config *conf)
{
	struct sinks	*s;
	size_t		 i;

	s = xcalloc(1, sizeof(*s));
	s->loop = loop;
	for (i = 0; i < SINKS_N; i++)
		s->arg[i] = sinks_table[i]->create(loop, conf);
	if (loop != NULL) {
		ev_idle_init(&s->draw, sinks_draw_cb);
		s->draw.data = s;
	}
	return s;
}

void
sinks_free(struct sinks *s)
{
	size_t	 i;

	if (s == NULL)
		return;
	if (s->loop != NULL)
		ev_idle_stop(s->loop, &s->draw);
	/* Not drawn: stopping without sinks_flush() draws nothing. */
	sinks_batch_free(s->held);
	free(s->info.busiest);
	for (i = 0; i < SINKS_N; i++)
		sinks_table[i]->free(s->arg[i]);
	free(s);
}

/*
 * -1: a sink refused the change and keeps its old settings; the others
 * take it all the same.
 */
int
sinks_configure(struct sinks *s, const struct config *conf)
{
	size_t	 i;
	int	 rc = 0;

	/* The round waiting to be drawn was written under the old one. */
	sinks_settle(s);
	for (i = 0; i < SINKS_N; i++)
		if (sinks_table[i]->configure(s->arg[i], conf) == -1)
			rc = -1;
	return rc;
}

/*
 * What the round's log line says: its profiles, the services they are
 * of, and the busiest service yet, whose flame graph to open first --
 * a named one: [targets] unknown_service (what an idle machine's few
 * samples mostly are) is no graph to point anyone at.
 */
static void
sinks_count(struct sinks *s, const struct sinks_batch *b)
{
	const char	*svc, *other;
	size_t		 i, j;

	s->info.profiles = b->n;
	s->info.services = 0;
	for (i = 0; i < b->n; i++) {
		if ((svc = profile_label_get(b->profiles[i],
		    "service_name")) == NULL)
			continue;
		for (j = 0; j < i; j++) {
			other = profile_label_get(b->profiles[j],
			    "service_name");
			if (other != NULL && strcmp(other, svc) == 0)
				break;
		}
		if (j == i)
			s->info.services++;
		if (profile_type(b->profiles[i]) != PROFILE_TYPE_CPU ||
		    profile_total(b->profiles[i]) <= s->busiest_total ||
		    *svc == '\0' || (b->conf->unknown_service != NULL &&
		    strcmp(svc, b->conf->unknown_service) == 0))
			continue;
		s->busiest_total = profile_total(b->profiles[i]);
		free(s->info.busiest);
		s->info.busiest = sink_file_service(svc);
	}
}

void
sinks_info(struct sinks *s, struct sinks_info *info)
{
	size_t	 i;

	*info = s->info;
	info->file_errors = 0;
	for (i = 0; i < SINKS_N; i++)
		if (sinks_table[i]->errors != NULL)
			info->file_errors +=
			    sinks_table[i]->errors(s->arg[i]);
}

int
sinks_round(struct sinks *s, const struct config *conf,
    struct sinks_batch *b)
{
	size_t	 i;
	int	 enc = 0, rc = 0;

	sinks_settle(s);
	b->conf = conf;
	/* Each profile is encoded once, for the files and the push. */
	for (i = 0; i < SINKS_N; i++)
		if (sinks_table[i]->wants_pprof(s->arg[i], conf))
			enc = 1;
	if (enc)
		b->bufs = pprof_encode_all(b->profiles, b->n);
	for (i = 0; i < SINKS_N; i++)
		if (sinks_table[i]->round(s->arg[i], b) == -1)
			rc = -1;
	sinks_count(s, b);
	/* The encodings are not drawn from: no need to hold them. */
	pprof_bufs_free(b->bufs, b->n);
	b->bufs = NULL;
	s->held = b;
	s->info.held = b->n;
	if (s->loop != NULL)
		ev_idle_start(s->loop, &s->draw);
	else
		sinks_draw(s);
	s->rounds++;
	return rc;
}

/*
 * Draw now what the last round left to draw: before its configuration
 * is freed, or another round comes.
 */
void
sinks_settle(struct sinks *s)
{
	if (s != NULL && s->held != NULL)
		sinks_draw(s);
}

void
sinks_flush(struct sinks *s)
{
	size_t	 i;

	sinks_draw(s);
	for (i = 0; i < SINKS_N; i++)
		if (sinks_table[i]->flush != NULL)
			sinks_table[i]->flush(s->arg[i]);
}

/* The push counters, for the metrics page. */
void
sinks_push_stats(struct sinks *s, struct pyroscope_stats *st)
{
	size_t	 i;

	for (i = 0; i < SINKS_N; i++)
		if (sinks_table[i] == &sinks_push_ops)
			pyroscope_stats(s->arg[i], st);
}

void
sinks_log_state(struct sinks *s)
{
	struct sinks_info	 info;
	size_t			 i;

	sinks_info(s, &info);
	log_info("sinks: %llu rounds, %llu file errors",
	    (unsigned long long)s->rounds,
	    (unsigned long long)info.file_errors);
	for (i = 0; i < SINKS_N; i++)
		if (sinks_table[i]->log_state != NULL)
			sinks_table[i]->log_state(s->arg[i]);
}
