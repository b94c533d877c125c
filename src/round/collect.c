/*
 * A collection round, conducted: drain the counts BPF aggregated since
 * the last round (src/session/session_maps.c), name each count's stack
 * (src/round/collect_stack.c), add it to the profile of its target and
 * type (src/round/collect_profs.c), and hand the profiles to the sinks,
 * theirs from then on (src/sink/sinks.c).  Then the stacks, names,
 * processes and symbols of the round age, each in the module that keeps
 * them, and the round's time is measured.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf/profile.h"
#include "collect.h"
#include "collect_profs.h"
#include "collect_stack.h"
#include "config/config.h"
#include "util/log.h"
#include "pids.h"
#include "profile/profile.h"
#include "sym/resolve.h"
#include "session/session.h"
#include "sink/sinks.h"
#include "stacknames.h"
#include "session/stacks.h"
#include "sym/symstats.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* Free heap bytes below which a round's end does not trim. */
#define COLLECT_TRIM_BYTES	(2 * 1024 * 1024)
/* Rounds between two trims, at least. */
#define COLLECT_TRIM_ROUNDS	8

struct collect {
	struct session		*session;
	struct pids		*pids;
	struct resolve		*resolve;
	struct sinks		*sinks;
	struct symstats		*symstats;	/* names found, per service */
	struct collect_stack	*stack;		/* names of the stacks */
	struct collect_profs	*profs;		/* the round's profiles */

	int64_t			 start_real;	/* round start, ns */
	uint64_t		 rounds;
	uint64_t		 trims;		/* rounds that trimmed */
	uint64_t		 trim_round;	/* the last that trimmed */
	uint64_t		 samples, offcpu_ns;
	double			 last_ms, total_ms;
	size_t			 last_entries, last_profiles;
};

struct collect *
collect_create(struct session *session, struct pids *pids,
    struct resolve *resolve, struct sinks *sinks)
{
	struct collect	*c;

	c = xcalloc(1, sizeof(*c));
	c->session = session;
	c->pids = pids;
	c->resolve = resolve;
	c->sinks = sinks;
	c->symstats = symstats_create();
	c->stack = collect_stack_create(session, resolve, c->symstats);
	c->profs = collect_profs_create();
	c->start_real = clock_ns(CLOCK_REALTIME);
	return c;
}

void
collect_free(struct collect *c)
{
	if (c == NULL)
		return;
	collect_profs_free(c->profs);
	collect_stack_free(c->stack);
	symstats_free(c->symstats);
	free(c);
}

static void
collect_entry(struct collect *c, const struct config *conf,
    const struct profile_key *key, uint64_t val, int64_t now)
{
	const char		*labels[4];
	const uint32_t		*ids;
	struct pids_proc	*proc;
	struct profile		*p;
	struct stacknames	*sn;
	char			 pidbuf[16], tname[PROFILE_COMM_LEN];
	size_t			 nframes, nl;
	uint32_t		 kind = key->kind;

	if (kind >= PROFILE_KIND_MAX || val == 0)
		return;
	proc = pids_get(c->pids, key->pid);
	if (kind == PROFILE_KIND_OFFCPU_PENDING) {
		/* Waited before we knew the pid: ours if it is profiled. */
		if (!pids_proc_is_profiled(proc))
			return;
		kind = PROFILE_KIND_OFFCPU;
	}
	ids = collect_stack_name(c->stack, proc, key, &nframes);
	p = collect_profs_get(c->profs, conf, kind, proc, c->start_real, now);
	nl = 0;
	if (conf->label_pid) {
		snprintf(pidbuf, sizeof(pidbuf), "%u", key->pid);
		labels[nl * 2] = "pid";
		labels[nl++ * 2 + 1] = pidbuf;
	}
	if (conf->label_thread_name && key->tid != 0) {
		labels[nl * 2] = "thread_name";
		labels[nl++ * 2 + 1] = pids_thread_name(c->pids, key->pid,
		    key->tid, tname, sizeof(tname));
	}
	sn = collect_stack_names(c->stack);
	profile_add_ids(p, stacknames_names(sn), stacknames_frames(sn), ids,
	    nframes, val, labels, nl);
	if (kind == PROFILE_KIND_CPU)
		c->samples += val;
	else
		c->offcpu_ns += val;
}

/*
 * A round frees what it built: give the heap's free pages back
 * (xmalloc_trim()), at most every COLLECT_TRIM_ROUNDS rounds (trimmed
 * every round, a round of 10,000 stacks spent a tenth of its time so).
 */
static void
collect_trim(struct collect *c)
{
	if (c->trims > 0 && c->rounds - c->trim_round < COLLECT_TRIM_ROUNDS)
		return;
	if (!xmalloc_trim(COLLECT_TRIM_BYTES))
		return;
	c->trims++;
	c->trim_round = c->rounds;
}

int
collect_round(struct collect *c, const struct config *conf, int final)
{
	const struct profile_key *keys;
	const uint64_t		*vals;
	struct profile		**profs;
	struct sinks_batch	*b;
	struct stacks_stats	 st;
	struct stacknames_stats	 ns;
	int64_t		 t0, t1, t2, t3, now, u0, u1, u2, u3;
	double		 cpu_ms;
	size_t		 i, n, nprofs;
	int		 rc = 0;

	t0 = clock_ns(CLOCK_MONOTONIC);
	u0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	collect_stack_round_start(c->stack, conf->stack_map_entries);
	/*
	 * Stacks sampled from now on are sent again: those counted in the
	 * next round are there then, whatever this round keeps.
	 */
	session_stack_gen_next(c->session);
	/* Events first: a pid's exec or exit precedes its counts. */
	session_drain_events(c->session);
	n = session_counts_drain(c->session, &keys, &vals);
	pids_counts_drained(c->pids);
	/*
	 * On the final round, threads still blocked count up to now.
	 */
	if (final && session_offcpu_attached(c->session))
		n = session_offcpu_inflight(c->session,
		    (uint64_t)conf->offcpu_min_block_us * 1000,
		    (uint64_t)conf->offcpu_max_block_us * 1000, &keys, &vals);
	/*
	 * A sample's stack is in the ring before its count is added
	 * (bpf/profile.bpf.c): now every stack of the counts drained is.
	 */
	session_drain_events(c->session);
	now = clock_ns(CLOCK_REALTIME);
	t1 = clock_ns(CLOCK_MONOTONIC);
	u1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < n; i++)
		collect_entry(c, conf, &keys[i], vals[i], now);
	t2 = clock_ns(CLOCK_MONOTONIC);
	/* Series of services gone for [metrics] service_ttl go too. */
	if ((i = symstats_expire(c->symstats, t2 / 1000000000,
	    conf->metrics_service_ttl)) > 0)
		log_debug("metrics: %zu services without samples for %lld s "
		    "dropped, %zu left", i, conf->metrics_service_ttl,
		    symstats_count(c->symstats));
	u2 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);

	/* The round's output is the sinks' from now on. */
	profs = collect_profs_take(c->profs, &nprofs);
	b = sinks_batch_create(profs, nprofs, c->start_real, now);
	if (final)
		sinks_batch_final(b);
	if (sinks_round(c->sinks, conf, b) == -1)
		rc = -1;
	c->last_entries = n;
	c->last_profiles = nprofs;
	t3 = clock_ns(CLOCK_MONOTONIC);
	u3 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);

	session_stacks_round_end(c->session);
	collect_stack_round_end(c->stack);
	pids_round_end(c->pids);
	resolve_round_end(c->resolve);
	collect_trim(c);
	c->rounds++;
	c->start_real = now;
	c->last_ms = (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6;
	c->total_ms += c->last_ms;
	/* The CPU the round took: its wall time also holds waits for one. */
	cpu_ms = (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - u0) / 1e6;
	log_debug("round %llu: %zu counts, %zu profiles, %.1f ms, %.1f ms CPU",
	    (unsigned long long)c->rounds, c->last_entries, c->last_profiles,
	    c->last_ms, cpu_ms);
	/* Where the time went: not a line that starts with "round". */
	session_stacks_stats(c->session, &st);
	stacknames_stats(collect_stack_names(c->stack), &ns);
	log_debug("collect: round %llu: drain %.1f, name %.1f, sinks %.1f, "
	    "end %.1f ms (CPU %.1f, %.1f, %.1f, %.1f); so far %llu stacks not "
	    "held, %llu received, %llu named again, %llu named from their "
	    "names kept, %llu trims", (unsigned long long)c->rounds,
	    (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6,
	    c->last_ms - (t3 - t0) / 1e6, (u1 - u0) / 1e6, (u2 - u1) / 1e6,
	    (u3 - u2) / 1e6, cpu_ms - (u3 - u0) / 1e6,
	    (unsigned long long)st.misses,
	    (unsigned long long)st.records, (unsigned long long)ns.misses,
	    (unsigned long long)ns.hits, (unsigned long long)c->trims);
	return rc;
}

void
collect_log_state(struct collect *c)
{
	struct stacknames_stats	 ns;
	struct stacks_stats	 st;
	struct resolve_stats	 rs;

	session_stacks_stats(c->session, &st);
	resolve_stats(c->resolve, &rs);
	log_info("collect: %llu rounds, last %.1f ms with %zu counts and %zu "
	    "profiles; %llu samples, %llu off-CPU ns, %llu lost stacks",
	    (unsigned long long)c->rounds, c->last_ms, c->last_entries,
	    c->last_profiles, (unsigned long long)c->samples,
	    (unsigned long long)c->offcpu_ns,
	    (unsigned long long)collect_stack_lost(c->stack));
	log_info("stacks: %zu cached, %llu hits, %llu misses, %llu lost, "
	    "%llu records, %llu of stacks held already", st.entries,
	    (unsigned long long)st.hits, (unsigned long long)st.misses,
	    (unsigned long long)st.lost, (unsigned long long)st.records,
	    (unsigned long long)st.again);
	stacknames_stats(collect_stack_names(c->stack), &ns);
	log_info("stack names: %zu stacks, %zu frames, %zu names, %zu bytes; "
	    "stacks %llu hits %llu misses, frames %llu hits %llu misses, "
	    "%llu cleared, names compacted %llu times", ns.stacks, ns.frames,
	    ns.names, ns.bytes,
	    (unsigned long long)ns.hits, (unsigned long long)ns.misses,
	    (unsigned long long)ns.frame_hits,
	    (unsigned long long)ns.frame_misses,
	    (unsigned long long)ns.cleared,
	    (unsigned long long)ns.compacted);
	log_info("symbols: %llu frames, %llu named, %llu unknown; %zu tables "
	    "(%zu bytes), %zu kernel symbols, cache %llu hits %llu misses, "
	    "%llu kept when maps were read again; maps read again %llu times "
	    "for an address, not for %llu addresses of no code",
	    (unsigned long long)rs.frames, (unsigned long long)rs.named,
	    (unsigned long long)rs.unknown, rs.files, rs.file_bytes, rs.ksyms,
	    (unsigned long long)rs.hits, (unsigned long long)rs.misses,
	    (unsigned long long)rs.kept, (unsigned long long)rs.rereads,
	    (unsigned long long)rs.bad_skips);
}

void
collect_stats(struct collect *c, struct collect_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->rounds = c->rounds;
	st->samples = c->samples;
	st->offcpu_ns = c->offcpu_ns;
	st->lost_stacks = collect_stack_lost(c->stack);
	st->last_ms = c->last_ms;
	st->total_ms = c->total_ms;
	st->last_end = c->rounds > 0 ? c->start_real : 0;
	st->last_entries = c->last_entries;
	st->last_profiles = c->last_profiles;
	session_stacks_stats(c->session, &st->stacks);
}

const struct symstats *
collect_symstats(struct collect *c)
{
	return c->symstats;
}
