#ifndef EBPFSPY_COLLECT_H
#define EBPFSPY_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "session/stacks.h"

struct collect;
struct config;
struct pids;
struct resolve;
struct session;
struct sinks;
struct symstats;

struct collect	*collect_create(struct session *, struct pids *,
		    struct resolve *, struct sinks *);
void		 collect_free(struct collect *);
/*
 * One round: drain what BPF counted, name it, build one profile per
 * target and type, hand them to the sinks.  final: the daemon is
 * stopping, so threads still blocked are counted up to now.
 */
int		 collect_round(struct collect *, const struct config *, int);
void		 collect_log_state(struct collect *);

struct collect_stats {
	uint64_t		rounds;
	uint64_t		samples;	/* on-CPU samples in profiles */
	uint64_t		offcpu_ns;	/* off-CPU time in profiles */
	uint64_t		lost_stacks;	/* ids BPF no longer had */
	double			last_ms;	/* the last round took */
	double			total_ms;	/* all rounds took */
	int64_t			last_end;	/* ns since the epoch, or 0 */
	size_t			last_entries;	/* counts it drained */
	size_t			last_profiles;
	struct stacks_stats	stacks;
};
void		 collect_stats(struct collect *, struct collect_stats *);
const struct symstats *collect_symstats(struct collect *);

#endif
