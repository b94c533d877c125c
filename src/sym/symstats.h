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
/* Prometheus families: frames by result, unknown frames by module. */
void		 symstats_prom(const struct symstats *, FILE *);

#endif
