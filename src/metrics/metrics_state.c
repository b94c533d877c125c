/*
 * The /debug/state page: what the daemon holds now, as one JSON object --
 * the process table, the caches, how full the BPF maps are, the last
 * round.  For people and scripts debugging a running daemon; the names
 * may change between versions, unlike those of /metrics.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/profile.h"
#include "round/collect.h"
#include "config/config.h"
#include "util/clock.h"
#include "util/json.h"
#include "util/xmalloc.h"
#include "util/log.h"
#include "metrics.h"
#include "round/pids.h"
#include "sym/resolve.h"
#include "session/session.h"

#ifndef EBPFSPY_VERSION
#define EBPFSPY_VERSION	"unknown"
#endif

static void
metrics_state_map(struct json *j, const char *name, struct session *s,
    enum session_map which, long long max)
{
	json_object_begin(j, name);
	json_int(j, "entries", session_map_entries(s, which, max));
	json_int(j, "max_entries", max);
	json_object_end(j);
}

static void
metrics_state_time(struct json *j, const char *key, int64_t ns)
{
	struct tm	 tm;
	time_t		 t = ns / 1000000000;
	char		 buf[64];

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
		json_null(j, key);
		return;
	}
	json_string(j, key, buf);
}

static void
metrics_state_caches(struct json *j, const struct resolve_stats *rs,
    const struct collect_stats *cs)
{
	json_object_begin(j, "caches");
	json_object_begin(j, "symbol_tables");
	json_uint(j, "entries", rs->files);
	json_uint(j, "bytes", rs->file_bytes);
	json_uint(j, "hits", rs->hits);
	json_uint(j, "misses", rs->misses);
	json_object_end(j);
	json_object_begin(j, "kernel_symbols");
	json_uint(j, "entries", rs->ksyms);
	json_object_end(j);
	json_object_begin(j, "stacks");
	json_uint(j, "entries", cs->stacks.entries);
	json_uint(j, "bytes", cs->stacks.bytes);
	json_uint(j, "hits", cs->stacks.hits);
	json_uint(j, "misses", cs->stacks.misses);
	json_uint(j, "lost", cs->stacks.lost);
	json_object_end(j);
	json_object_end(j);
}

static void
metrics_state_bpf(struct json *j, const struct metrics_view *d)
{
	struct session	*s = d->session;
	struct config	*c = d->conf;
	uint64_t	 stats[PROFILE_STAT_MAX];
	int		 i;

	if (s == NULL) {
		json_null(j, "bpf");
		return;
	}
	json_object_begin(j, "bpf");
	json_bool(j, "cpu_attached", session_cpu_attached(s));
	json_bool(j, "offcpu_attached", session_offcpu_attached(s));
	json_int(j, "cpus", session_ncpus(s));
	json_object_begin(j, "maps");
	metrics_state_map(j, "pid_config", s, SESSION_MAP_PID_CONFIG,
	    c->pid_map_entries);
	metrics_state_map(j, "counts", s, SESSION_MAP_COUNTS,
	    c->counts_map_entries);
	metrics_state_map(j, "offcpu_start", s, SESSION_MAP_OFFCPU_START,
	    c->offcpu_map_entries);
	json_object_end(j);
	session_stats(s, stats);
	json_object_begin(j, "counters");
	for (i = 0; i < PROFILE_STAT_MAX; i++)
		json_uint(j, session_stat_name(i), stats[i]);
	json_object_end(j);
	json_object_end(j);
}

/* RSS and the heap, as SIGUSR1 logs it. */
static void
metrics_state_memory(struct json *j)
{
	struct xmalloc_stats	 st;

	json_object_begin(j, "memory");
	json_uint(j, "resident_bytes", (uint64_t)metrics_prom_rss());
	if (xmalloc_stats(&st) == -1)
		json_null(j, "heap");
	else {
		json_object_begin(j, "heap");
		json_uint(j, "in_use_bytes", st.in_use);
		json_uint(j, "free_bytes", st.free);
		json_uint(j, "arena_bytes", st.arena);
		json_uint(j, "top_bytes", st.top);
		json_uint(j, "mapped_bytes", st.mapped);
		json_uint(j, "mapped_blocks", st.nmapped);
		json_object_end(j);
	}
	json_object_end(j);
}

void
metrics_state_write(FILE *f, const struct metrics_view *d, const char *listen)
{
	struct config		*c = d->conf;
	struct collect_stats	 cs;
	struct resolve_stats	 rs;
	struct json		*j;

	memset(&cs, 0, sizeof(cs));
	memset(&rs, 0, sizeof(rs));
	if (d->collect != NULL)
		collect_stats(d->collect, &cs);
	if (d->resolve != NULL)
		resolve_stats(d->resolve, &rs);

	j = json_create(f);
	json_object_begin(j, NULL);
	json_string(j, "version", EBPFSPY_VERSION);
	json_int(j, "pid", getpid());
	json_double(j, "uptime_seconds",
	    (clock_ns(CLOCK_MONOTONIC) - d->started) / 1e9);

	json_object_begin(j, "config");
	json_string(j, "path", d->conf_path);
	json_int(j, "collect_interval", c->collect_interval);
	json_bool(j, "cpu", c->cpu);
	json_bool(j, "offcpu", c->offcpu);
	json_int(j, "sample_rate", c->sample_rate);
	json_string(j, "output_dir", c->output_dir);
	json_string(j, "metrics_listen", listen);
	json_object_end(j);

	if (d->pids == NULL)
		json_null(j, "pids");
	else {
		struct pids_stats	 ps;

		pids_stats(d->pids, &ps);
		json_object_begin(j, "pids");
		json_uint(j, "alive", pids_count(d->pids, PIDS_ALIVE));
		json_uint(j, "dead", pids_count(d->pids, PIDS_DEAD));
		json_uint(j, "requests", ps.requests);
		json_uint(j, "execs", ps.execs);
		json_uint(j, "exits", ps.exits);
		json_uint(j, "loaded", ps.loads);
		json_uint(j, "maps_reads", ps.maps_reads);
		json_object_end(j);
	}

	metrics_state_caches(j, &rs, &cs);
	metrics_state_bpf(j, d);

	json_object_begin(j, "rounds");
	json_uint(j, "total", cs.rounds);
	json_uint(j, "failures", d->round_failures);
	json_uint(j, "samples", cs.samples);
	json_uint(j, "offcpu_ns", cs.offcpu_ns);
	json_uint(j, "lost_stacks", cs.lost_stacks);
	json_object_end(j);
	if (cs.rounds == 0)
		json_null(j, "last_round");
	else {
		json_object_begin(j, "last_round");
		json_uint(j, "number", cs.rounds);
		metrics_state_time(j, "time", cs.last_end);
		json_double(j, "timestamp", cs.last_end / 1e9);
		json_double(j, "duration_seconds", cs.last_ms / 1000);
		json_uint(j, "counts", cs.last_entries);
		json_uint(j, "profiles", cs.last_profiles);
		json_object_end(j);
	}

	metrics_state_memory(j);

	json_object_begin(j, "reloads");
	json_uint(j, "total", d->reloads);
	json_uint(j, "failures", d->reload_failures);
	json_object_end(j);
	json_object_end(j);
	if (json_free(j) == -1)
		log_warnx("metrics: /debug/state: bad JSON nesting");
}
