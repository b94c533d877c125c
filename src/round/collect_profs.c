/*
 * The profiles a round builds, one per target and kind, found by the
 * target's label identity: an open-addressing table that lives from
 * one round to the next and is emptied at each round's start.
 *
 * A process's target is the one in force at the end of the round:
 * after a reload that changed targets, what was counted before goes to
 * the new ones.
 */
#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "bpf/profile.h"
#include "collect_profs.h"
#include "config/config.h"
#include "pids.h"
#include "profile/profile.h"
#include "proc/target.h"
#include "util/hash.h"
#include "util/xmalloc.h"

struct collect_profs_entry {
	int		 kind;
	char		*service;	/* the target's label identity */
	struct profile	*p;
};

struct collect_profs {
	struct collect_profs_entry	*v;
	size_t				 n, size;	/* size: power of 2 */
};

struct collect_profs *
collect_profs_create(void)
{
	struct collect_profs	*cp;

	cp = xcalloc(1, sizeof(*cp));
	cp->size = 64;
	cp->v = xcalloc(cp->size, sizeof(*cp->v));
	return cp;
}

void
collect_profs_clear(struct collect_profs *cp)
{
	size_t	 i;

	for (i = 0; i < cp->size; i++) {
		profile_free(cp->v[i].p);
		free(cp->v[i].service);
		memset(&cp->v[i], 0, sizeof(cp->v[i]));
	}
	cp->n = 0;
}

void
collect_profs_free(struct collect_profs *cp)
{
	if (cp == NULL)
		return;
	collect_profs_clear(cp);
	free(cp->v);
	free(cp);
}

static uint64_t
collect_profs_hash(const char *s, int kind)
{
	return hash_pair(hash_str(s), kind);
}

static void
collect_profs_grow(struct collect_profs *cp)
{
	struct collect_profs_entry	*old = cp->v, *e;
	size_t				 i, oldsize = cp->size;

	cp->size *= 2;
	cp->v = xcalloc(cp->size, sizeof(*cp->v));
	cp->n = 0;
	for (i = 0; i < oldsize; i++) {
		if (old[i].p == NULL)
			continue;
		e = &cp->v[collect_profs_hash(old[i].service, old[i].kind) &
		    (cp->size - 1)];
		while (e->p != NULL) {
			if (++e == cp->v + cp->size)
				e = cp->v;
		}
		*e = old[i];
		cp->n++;
	}
	free(old);
}

struct profile *
collect_profs_get(struct collect_profs *cp, const struct config *conf,
    int kind, const struct pids_proc *proc, int64_t start, int64_t now)
{
	const struct target_labels	*l = pids_proc_service(proc);
	const char			*service;
	struct collect_profs_entry	*e;
	size_t				 i;

	if ((cp->n + 1) * 2 > cp->size)
		collect_profs_grow(cp);
	service = l->key;
	e = &cp->v[collect_profs_hash(service, kind) & (cp->size - 1)];
	while (e->p != NULL) {
		if (e->kind == kind && strcmp(e->service, service) == 0)
			return e->p;
		if (++e == cp->v + cp->size)
			e = cp->v;
	}
	e->kind = kind;
	e->service = xstrdup(service);
	if (kind == PROFILE_KIND_CPU)
		e->p = profile_create(PROFILE_TYPE_CPU,
		    1000000000ULL / conf->sample_rate, start, now - start);
	else
		e->p = profile_create(PROFILE_TYPE_OFFCPU, 1, start,
		    now - start);
	for (i = 0; i < l->n; i++)
		profile_label_set(e->p, l->v[i].name, l->v[i].value);
	cp->n++;
	return e->p;
}

struct profile **
collect_profs_take(struct collect_profs *cp, size_t *n)
{
	struct profile	**list;
	size_t		 i;

	list = xcalloc(cp->n > 0 ? cp->n : 1, sizeof(*list));
	for (i = 0, *n = 0; i < cp->size; i++) {
		if (cp->v[i].p == NULL)
			continue;
		list[(*n)++] = cp->v[i].p;
		cp->v[i].p = NULL;
		free(cp->v[i].service);
		cp->v[i].service = NULL;
	}
	cp->n = 0;
	return list;
}
