#ifndef EBPFSPY_SYMSTATS_H
#define EBPFSPY_SYMSTATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct symstats;

struct symstats	*symstats_create(void);
void		 symstats_free(struct symstats *);
/* Count one user frame of a service, named or not. */
void		 symstats_frame(struct symstats *, const char *,
		    const char *);
/* Count n named user frames of a service. */
void		 symstats_known(struct symstats *, const char *, uint64_t);
/* Would symstats_frame() count this name as unknown? */
int		 symstats_is_unknown(const char *);
/*
 * A round's end at now (seconds): drop the services without frames for
 * ttl seconds (0: never); how many went.
 */
size_t		 symstats_expire(struct symstats *, int64_t, int64_t);
/* Services counted now. */
size_t		 symstats_count(const struct symstats *);
/* Prometheus families: frames by result, unknown frames by module. */
void		 symstats_prom(const struct symstats *, FILE *);

/*
 * What the daemon refused to name because it would cost too much, for
 * the whole daemon: a name kept mangled over the demangler's bounds, a
 * Go line table over its budget of work.
 */
#define SYMSTATS_REFUSED_DEMANGLE	0
#define SYMSTATS_REFUSED_GO_LINES	1
#define SYMSTATS_REFUSED_MAX		2
void		 symstats_refuse(int);
uint64_t	 symstats_refused(int);
void		 symstats_log_state(void);

#endif
