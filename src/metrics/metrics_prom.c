/*
 * The /metrics page: the daemon's counters in the Prometheus text
 * exposition format 0.0.4.  Every family has its HELP and TYPE lines and
 * its samples together; counters end in _total; values in base units
 * (seconds, bytes); label values are escaped and valid UTF-8.
 */
#include <sys/types.h>
#include <sys/resource.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/profile.h"
#include "round/collect.h"
#include "dwarf/srcline.h"
#include "config/config.h"
#include "util/clock.h"
#include "util/json.h"
#include "metrics.h"
#include "push/debuginfod.h"
#include "round/pids.h"
#include "sym/resolve.h"
#include "session/session.h"
#include "sym/symfile.h"
#include "session/session_unwind.h"
#include "sink/sink_file.h"
#include "sym/symstats.h"
#include "unwind/unwind_maps.h"
#include "v8/v8.h"
#include "jvm/jvm_runtime.h"

#ifndef EBPFSPY_VERSION
#define EBPFSPY_VERSION	"unknown"
#endif

#define METRICS_PROM_N(t)	(sizeof(t) / sizeof((t)[0]))

/* A BPF counter (enum profile_stat) and its label value. */
struct metrics_prom_stat {
	int		 stat;
	const char	*value;
};

/* Lost, and why. */
static const struct metrics_prom_stat metrics_prom_lost[] = {
	{ PROFILE_STAT_RINGBUF_LOST, "ringbuf_full" },
	{ PROFILE_STAT_COUNTS_FULL, "counts_map_full" },
	{ PROFILE_STAT_STACKS_FULL, "stacks_map_full" },
	{ PROFILE_STAT_PID_MAP_FULL, "pid_map_full" },
	{ PROFILE_STAT_USTACK_ERR, "user_stack_error" },
	{ PROFILE_STAT_KSTACK_ERR, "kernel_stack_error" },
	{ PROFILE_STAT_OFFCPU_START_FULL, "offcpu_start_map_full" },
	{ PROFILE_STAT_UNKNOWN_DROP, "pid_pending" },
};

/* Left out on purpose. */
static const struct metrics_prom_stat metrics_prom_skipped[] = {
	{ PROFILE_STAT_IDLE, "idle" },
	{ PROFILE_STAT_KTHREAD, "kthread" },
	{ PROFILE_STAT_NOT_PROFILED, "not_profiled" },
	{ PROFILE_STAT_EXITING, "exiting" },
};

static const struct metrics_prom_stat metrics_prom_waits[] = {
	{ PROFILE_STAT_OFFCPU_SHORT, "short" },
	{ PROFILE_STAT_OFFCPU_LONG, "long" },
};

static const struct metrics_prom_stat metrics_prom_events[] = {
	{ PROFILE_STAT_EXEC, "exec" },
	{ PROFILE_STAT_EXIT, "exit" },
};

static void
metrics_prom_family(FILE *f, const char *name, const char *type,
    const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: backslash, quote and newline escaped, valid UTF-8. */
static void
metrics_prom_label(FILE *f, const char *v)
{
	const unsigned char	*s = (const unsigned char *)v;
	size_t			 len = strlen(v), n;

	for (; len > 0; s += n, len -= n) {
		n = 1;
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if ((n = json_utf8_len(s, len)) == 0) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			n = 1;
		} else
			fwrite(s, 1, n, f);
	}
}

static void
metrics_prom_name(FILE *f, const char *name, const char *label,
    const char *value)
{
	fputs(name, f);
	if (label == NULL)
		return;
	fprintf(f, "{%s=\"", label);
	metrics_prom_label(f, value);
	fputs("\"}", f);
}

static void
metrics_prom_u64(FILE *f, const char *name, const char *label,
    const char *value, uint64_t v)
{
	metrics_prom_name(f, name, label, value);
	fprintf(f, " %llu\n", (unsigned long long)v);
}

static void
metrics_prom_f64(FILE *f, const char *name, const char *label,
    const char *value, double v)
{
	metrics_prom_name(f, name, label, value);
	if (isnan(v))
		fputs(" NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", f);
	else
		fprintf(f, " %.15g\n", v);
}

static void
metrics_prom_counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	metrics_prom_family(f, name, "counter", help);
	metrics_prom_u64(f, name, NULL, NULL, v);
}

static void
metrics_prom_gauge(FILE *f, const char *name, const char *help, double v)
{
	metrics_prom_family(f, name, "gauge", help);
	metrics_prom_f64(f, name, NULL, NULL, v);
}

/* When the daemon started, in seconds since the epoch. */
static double
metrics_prom_start_time(const struct metrics_view *d)
{
	return (clock_ns(CLOCK_REALTIME) -
	    (clock_ns(CLOCK_MONOTONIC) - d->started)) / 1e9;
}

/* Resident memory from /proc/self/statm; 0 if it cannot be read. */
double
metrics_prom_rss(void)
{
	unsigned long	 size, rss;
	FILE		*f;
	int		 n;

	if ((f = fopen("/proc/self/statm", "re")) == NULL)
		return 0;
	n = fscanf(f, "%lu %lu", &size, &rss);
	fclose(f);
	if (n != 2)
		return 0;
	return (double)rss * sysconf(_SC_PAGESIZE);
}

static void
metrics_prom_process(FILE *f, const struct metrics_view *d, uint64_t requests)
{
	struct rusage	 ru;
	double		 cpu = 0;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	metrics_prom_family(f, "ebpfspy_build_info", "gauge",
	    "The version of ebpfspyd, as a label; always 1.");
	metrics_prom_u64(f, "ebpfspy_build_info", "version", EBPFSPY_VERSION,
	    1);
	metrics_prom_gauge(f, "process_start_time_seconds",
	    "When ebpfspyd started, in seconds since the epoch.",
	    metrics_prom_start_time(d));
	metrics_prom_family(f, "process_cpu_seconds_total", "counter",
	    "CPU time ebpfspyd used, user and system, in seconds.");
	metrics_prom_f64(f, "process_cpu_seconds_total", NULL, NULL, cpu);
	metrics_prom_gauge(f, "process_resident_memory_bytes",
	    "Resident memory of ebpfspyd in bytes.", metrics_prom_rss());
	metrics_prom_counter(f, "ebpfspy_reloads_total",
	    "Configuration reloads that took effect.", d->reloads);
	metrics_prom_counter(f, "ebpfspy_reload_failures_total",
	    "Reloads refused; the previous configuration kept running.",
	    d->reload_failures);
	metrics_prom_counter(f, "ebpfspy_http_requests_total",
	    "HTTP requests the metrics listener answered.", requests);
}

static void
metrics_prom_rounds(FILE *f, const struct metrics_view *d,
    const struct collect_stats *cs)
{
	metrics_prom_counter(f, "ebpfspy_rounds_total",
	    "Collection rounds run.", cs->rounds);
	metrics_prom_counter(f, "ebpfspy_round_failures_total",
	    "Collection rounds whose profiles were not all written.",
	    d->round_failures);
	metrics_prom_family(f, "ebpfspy_round_duration_seconds", "summary",
	    "Time collection rounds took.");
	metrics_prom_f64(f, "ebpfspy_round_duration_seconds_sum", NULL, NULL,
	    cs->total_ms / 1000);
	metrics_prom_u64(f, "ebpfspy_round_duration_seconds_count", NULL,
	    NULL, cs->rounds);
	metrics_prom_gauge(f, "ebpfspy_last_round_duration_seconds",
	    "Time the last collection round took.", cs->last_ms / 1000);
	metrics_prom_gauge(f, "ebpfspy_last_round_timestamp_seconds",
	    "When the last collection round ended, in seconds since the "
	    "epoch; 0 before the first.", cs->last_end / 1e9);
	metrics_prom_gauge(f, "ebpfspy_last_round_counts",
	    "Distinct {process, stacks} counts the last round drained.",
	    cs->last_entries);
	metrics_prom_gauge(f, "ebpfspy_last_round_profiles",
	    "Profiles the last round made.", cs->last_profiles);
	/* The log says when it fills and when it is not full any more. */
	metrics_prom_counter(f, "ebpfspy_output_disk_full_writes_total",
	    "Writes to the output directory that failed for want of space.",
	    sink_file_disk_full_writes());
	metrics_prom_gauge(f, "ebpfspy_output_disk_full",
	    "1 if the last write to the output directory failed for want "
	    "of space.", sink_file_disk_is_full());
}

/* One family of counters from the BPF counters, a label value each. */
static void
metrics_prom_stats(FILE *f, const char *name, const char *help,
    const char *label, const struct metrics_prom_stat *t, size_t n,
    const uint64_t *stats)
{
	size_t	 i;

	metrics_prom_family(f, name, "counter", help);
	for (i = 0; i < n; i++)
		metrics_prom_u64(f, name, label, t[i].value, stats[t[i].stat]);
}

static void
metrics_prom_samples(FILE *f, const struct metrics_view *d, const uint64_t *stats,
    const struct collect_stats *cs)
{
	metrics_prom_counter(f, "ebpfspy_bpf_samples_total",
	    "On-CPU timer samples the BPF program took.",
	    stats[PROFILE_STAT_SAMPLES]);
	metrics_prom_family(f, "ebpfspy_samples_total", "counter",
	    "Samples counted: on-CPU samples added to profiles, off-CPU "
	    "blocked waits recorded.");
	metrics_prom_u64(f, "ebpfspy_samples_total", "type", "cpu",
	    cs->samples);
	metrics_prom_u64(f, "ebpfspy_samples_total", "type", "offcpu",
	    stats[PROFILE_STAT_OFFCPU_SWITCH]);
	metrics_prom_family(f, "ebpfspy_offcpu_seconds_total", "counter",
	    "Time threads spent blocked, added to off-CPU profiles.");
	metrics_prom_f64(f, "ebpfspy_offcpu_seconds_total", NULL, NULL,
	    cs->offcpu_ns / 1e9);
	metrics_prom_stats(f, "ebpfspy_skipped_samples_total",
	    "On-CPU samples not counted on purpose, by reason.", "reason",
	    metrics_prom_skipped, METRICS_PROM_N(metrics_prom_skipped), stats);
	metrics_prom_stats(f, "ebpfspy_offcpu_waits_skipped_total",
	    "Off-CPU waits shorter than offcpu_min_block_us or longer than "
	    "offcpu_max_block_us.", "reason", metrics_prom_waits,
	    METRICS_PROM_N(metrics_prom_waits), stats);
	metrics_prom_stats(f, "ebpfspy_lost_total",
	    "Samples, stacks, waits and events lost, by cause.", "cause",
	    metrics_prom_lost, METRICS_PROM_N(metrics_prom_lost), stats);
	/* Counted in userspace: a stack id the kernel no longer had. */
	metrics_prom_u64(f, "ebpfspy_lost_total", "cause", "stack_missing",
	    cs->lost_stacks);
	metrics_prom_counter(f, "ebpfspy_unknown_pid_requests_total",
	    "Requests the BPF program sent about processes it did not know.",
	    stats[PROFILE_STAT_UNKNOWN_PID]);
	metrics_prom_stats(f, "ebpfspy_process_events_total",
	    "Process execs and exits the BPF program reported.", "event",
	    metrics_prom_events, METRICS_PROM_N(metrics_prom_events), stats);
	metrics_prom_family(f, "ebpfspy_pids", "gauge",
	    "Processes in the process table, by state.");
	metrics_prom_u64(f, "ebpfspy_pids", "state", "alive",
	    d->pids == NULL ? 0 : pids_count(d->pids, PIDS_ALIVE));
	metrics_prom_u64(f, "ebpfspy_pids", "state", "dead",
	    d->pids == NULL ? 0 : pids_count(d->pids, PIDS_DEAD));
}

/* A family with the two caches that count hits: symbols and stacks. */
static void
metrics_prom_caches(FILE *f, const char *name, const char *type,
    const char *help, uint64_t symbol_tables, uint64_t stacks)
{
	metrics_prom_family(f, name, type, help);
	metrics_prom_u64(f, name, "cache", "symbol_tables", symbol_tables);
	metrics_prom_u64(f, name, "cache", "stacks", stacks);
}

/* Native lines and inlined frames from DWARF (src/dwarf/srcline.c). */
static void
metrics_prom_dwarf(FILE *f)
{
	struct srcline_stats	 ds;

	srcline_stats(&ds);
	metrics_prom_family(f, "ebpfspy_dwarf_lookups_total", "counter",
	    "Addresses looked up in DWARF, and those put off to a later "
	    "round: the round's time for DWARF was up.");
	metrics_prom_u64(f, "ebpfspy_dwarf_lookups_total", "result", "done",
	    ds.lookups);
	metrics_prom_u64(f, "ebpfspy_dwarf_lookups_total", "result",
	    "deferred", ds.deferred);
	metrics_prom_family(f, "ebpfspy_dwarf_files_refused_total", "counter",
	    "Files whose DWARF was not read: over dwarf_bytes, unreadable, "
	    "or dropped after growing over dwarf_bytes.");
	metrics_prom_u64(f, "ebpfspy_dwarf_files_refused_total", "reason",
	    "dwarf_bytes", ds.refused_bytes);
	metrics_prom_u64(f, "ebpfspy_dwarf_files_refused_total", "reason",
	    "unreadable", ds.refused_bad);
	metrics_prom_u64(f, "ebpfspy_dwarf_files_refused_total", "reason",
	    "dropped", ds.dropped);
	metrics_prom_gauge(f, "ebpfspy_dwarf_bytes", "Memory of the DWARF "
	    "of the files open, bytes (estimated).", ds.bytes);
}

static void
metrics_prom_symbols(FILE *f, const struct resolve_stats *rs,
    const struct collect_stats *cs)
{
	struct symfile_stats	 ss;

	metrics_prom_family(f, "ebpfspy_frames_total", "counter",
	    "Stack frames named: with a symbol, or unknown.");
	metrics_prom_u64(f, "ebpfspy_frames_total", "result", "named",
	    rs->named);
	metrics_prom_u64(f, "ebpfspy_frames_total", "result", "unknown",
	    rs->unknown);
	metrics_prom_caches(f, "ebpfspy_cache_entries", "gauge",
	    "Entries of the daemon's caches.", rs->files, cs->stacks.entries);
	metrics_prom_u64(f, "ebpfspy_cache_entries", "cache",
	    "kernel_symbols", rs->ksyms);
	metrics_prom_caches(f, "ebpfspy_cache_bytes", "gauge",
	    "Memory of the daemon's caches in bytes.", rs->file_bytes,
	    cs->stacks.bytes);
	metrics_prom_caches(f, "ebpfspy_cache_hits_total", "counter",
	    "Lookups a cache answered.", rs->hits, cs->stacks.hits);
	metrics_prom_caches(f, "ebpfspy_cache_misses_total", "counter",
	    "Lookups a cache could not answer.", rs->misses,
	    cs->stacks.misses);
	symfile_stats(&ss);
	metrics_prom_family(f, "ebpfspy_symbol_tables_refused_total",
	    "counter", "Symbol tables of files not read: over a [symbols] "
	    "bound, by bound.");
	metrics_prom_u64(f, "ebpfspy_symbol_tables_refused_total", "limit",
	    "max_symbols_per_file", ss.refused_symbols);
	metrics_prom_u64(f, "ebpfspy_symbol_tables_refused_total", "limit",
	    "max_symbol_bytes_per_file", ss.refused_names);
	metrics_prom_u64(f, "ebpfspy_symbol_tables_refused_total", "limit",
	    "max_debugdata_bytes", ss.refused_debugdata);
	metrics_prom_dwarf(f);
}

static void
metrics_prom_push(FILE *f, const struct metrics_push *mp)
{
	size_t	 i, n = mp->nrequests;

	if (n > METRICS_PUSH_OUTCOMES)
		n = METRICS_PUSH_OUTCOMES;
	metrics_prom_family(f, "ebpfspy_push_requests_total", "counter",
	    "Push requests to the Pyroscope server, by outcome.");
	for (i = 0; i < n; i++) {
		if (mp->requests[i].outcome != NULL)
			metrics_prom_u64(f, "ebpfspy_push_requests_total",
			    "outcome", mp->requests[i].outcome,
			    mp->requests[i].n);
	}
	metrics_prom_counter(f, "ebpfspy_push_retries_total",
	    "Push requests retried.", mp->retries);
	metrics_prom_gauge(f, "ebpfspy_spool_bytes",
	    "Profiles waiting in the spool, in bytes.", mp->spool_bytes);
	metrics_prom_counter(f, "ebpfspy_spool_dropped_profiles_total",
	    "Profiles the full spool dropped.", mp->spool_dropped);
	metrics_prom_counter(f, "ebpfspy_push_expired_profiles_total",
	    "Profiles dropped as older than [pyroscope] max_age.",
	    mp->expired);
	metrics_prom_counter(f, "ebpfspy_push_trimmed_profiles_total",
	    "Profiles trimmed to the server's size limits.", mp->trimmed);
	metrics_prom_counter(f, "ebpfspy_push_trimmed_samples_total",
	    "Samples merged into [other] by trimming.", mp->trimmed_samples);
}

/* A counter family of n values by reason, name(i) the reason of i. */
static void
metrics_prom_reasons(FILE *f, const char *family, const char *help, int n,
    const char *(*name)(int), const uint64_t *v)
{
	int	 i;

	metrics_prom_family(f, family, "counter", help);
	for (i = 0; i < n; i++)
		metrics_prom_u64(f, family, "reason", name(i), v[i]);
}

/* V8 processes (src/v8/) and their frames, named or not by reason. */
static void
metrics_prom_v8(FILE *f, const struct metrics_view *d)
{
	struct v8_stats	 st;

	memset(&st, 0, sizeof(st));
	if (d->v8 != NULL)
		v8_stats(d->v8, &st);
	metrics_prom_gauge(f, "ebpfspy_v8_processes",
	    "Node.js (V8) processes whose JavaScript frames are named.",
	    st.procs);
	metrics_prom_counter(f, "ebpfspy_v8_found_total",
	    "V8 processes found and described to the walker.", st.found);
	metrics_prom_reasons(f, "ebpfspy_v8_refused_total",
	    "V8 processes profiled natively, by reason.", V8_REFUSE_MAX,
	    v8_refusal_name, st.refused);
	metrics_prom_counter(f, "ebpfspy_v8_frames_named_total",
	    "JavaScript frames recorded and named.", st.named);
	metrics_prom_reasons(f, "ebpfspy_v8_frames_unnamed_total",
	    "JavaScript frames recorded but not named, by reason.",
	    V8_UNNAMED_MAX, v8_unnamed_name, st.unnamed);
}

/* HotSpot JVMs (src/jvm/): found, refused by reason, frames named. */
static void
metrics_prom_jvm(FILE *f, const struct metrics_view *d)
{
	struct jvm_runtime_stats	 st;

	memset(&st, 0, sizeof(st));
	if (d->jvm != NULL)
		jvm_runtime_stats(d->jvm, &st);
	metrics_prom_gauge(f, "ebpfspy_jvm_processes",
	    "HotSpot JVM processes read.", st.procs);
	metrics_prom_counter(f, "ebpfspy_jvm_found_total",
	    "JVM processes found and read.", st.found);
	metrics_prom_reasons(f, "ebpfspy_jvm_refused_total",
	    "JVM processes profiled natively, by reason.", JVM_REFUSE_MAX,
	    jvm_refusal_name, st.refused);
	metrics_prom_counter(f, "ebpfspy_jvm_frames_named_total",
	    "Java frames named.", st.frames);
	metrics_prom_counter(f, "ebpfspy_jvm_frames_unnamed_total",
	    "Java frames recorded that could not be named: their method "
	    "gone or another's.", st.unnamed);
	metrics_prom_counter(f, "ebpfspy_jvm_walked_total",
	    "JVMs whose Java frames the BPF walker steps over.", st.walked);
	metrics_prom_counter(f, "ebpfspy_jvm_stacks_lost_total",
	    "Stacks of Java frame records gone before they were named.",
	    st.lost);
}

/* Debug files fetched from debuginfod servers (src/push/debuginfod.c). */
static void
metrics_prom_debuginfod(FILE *f, const struct metrics_view *d)
{
	static const char *const fails[DEBUGINFOD_NFAIL] = {
		[DEBUGINFOD_NOT_FOUND] = "not_found",
		[DEBUGINFOD_TOO_BIG] = "too_big",
		[DEBUGINFOD_TIMEOUT] = "timeout",
		[DEBUGINFOD_BAD] = "bad_file",
		[DEBUGINFOD_ERROR] = "error",
	};
	struct debuginfod_stats	 st;
	const char		*name = "ebpfspy_debuginfod_fetches_total";
	int			 i;

	memset(&st, 0, sizeof(st));
	if (d->debuginfod != NULL)
		debuginfod_stats(d->debuginfod, &st);
	metrics_prom_family(f, name, "counter",
	    "Debug files fetched from debuginfod servers, by result.");
	metrics_prom_u64(f, name, "result", "ok", st.ok);
	for (i = 0; i < DEBUGINFOD_NFAIL; i++)
		metrics_prom_u64(f, name, "result", fails[i], st.fail[i]);
	metrics_prom_gauge(f, "ebpfspy_debuginfod_running",
	    "Fetches from debuginfod servers in progress.", st.running);
}

/* Unwind tables (src/unwind/unwind_maps.c) and how walks with them ended. */
static void
metrics_prom_unwind(FILE *f, const struct metrics_view *d)
{
	struct unwind_maps_stats	 us;
	uint64_t			 s[UNWIND_STAT_MAX];
	int				 i;

	memset(&us, 0, sizeof(us));
	memset(s, 0, sizeof(s));
	if (d->unwind != NULL)
		unwind_maps_stats(d->unwind, &us);
	if (d->session != NULL)
		session_unwind_stats(session_unwind(d->session), s);
	metrics_prom_gauge(f, "ebpfspy_unwind_tables",
	    "Unwind tables loaded in the kernel.", us.tables);
	metrics_prom_gauge(f, "ebpfspy_unwind_shared_tables",
	    "Files whose unwind table is the very table of another file "
	    "loaded (same rows), shared.", us.shared);
	metrics_prom_counter(f, "ebpfspy_unwind_maps_asked_total",
	    "Maps read again because the unwinder met code in no mapping.",
	    s[UNWIND_STAT_MAPS_ASKED]);
	metrics_prom_gauge(f, "ebpfspy_unwind_files",
	    "Files whose unwind tables are known or wanted.", us.files);
	metrics_prom_gauge(f, "ebpfspy_unwind_rows",
	    "Rows of unwind tables loaded.", us.rows);
	metrics_prom_gauge(f, "ebpfspy_unwind_bytes",
	    "Kernel memory of the unwind tables loaded, rows and pages.",
	    us.bytes);
	metrics_prom_counter(f, "ebpfspy_unwind_builds_total",
	    "Unwind tables built.", us.builds);
	metrics_prom_counter(f, "ebpfspy_unwind_builds_debug_total",
	    "Unwind tables built from the .debug_frame of a debug file.",
	    us.builds_debug);
	metrics_prom_gauge(f, "ebpfspy_unwind_vdso_images",
	    "vDSO images known to the unwinder.", us.vdso);
	metrics_prom_counter(f, "ebpfspy_unwind_build_failures_total",
	    "Files with no usable unwind table.", us.build_failed);
	metrics_prom_counter(f, "ebpfspy_unwind_build_seconds_total",
	    "CPU time spent building unwind tables.", us.build_ns / 1000000000);
	metrics_prom_counter(f, "ebpfspy_unwind_evictions_total",
	    "Unwind tables evicted to make room for others.", us.evictions);
	metrics_prom_counter(f, "ebpfspy_unwind_full_total",
	    "Unwind tables that did not fit in unwind_table_bytes.", us.full);
	metrics_prom_counter(f, "ebpfspy_unwind_refused_total",
	    "Unwind table builds refused: more CFI than the file holds on "
	    "disk or unwind_table_bytes allows, or the build queue full.",
	    us.refused);
	metrics_prom_counter(f, "ebpfspy_unwind_walks_total",
	    "User stacks walked with unwind tables.", s[UNWIND_STAT_WALKS]);
	metrics_prom_family(f, "ebpfspy_unwind_outcomes_total", "counter",
	    "Walks by how they ended (complete, depth, read_fault, "
	    "bad_frame, no_rule) and by what they met (no_proc, no_table, "
	    "no_mapping, invalid, fp_fallback, signal).");
	for (i = UNWIND_STAT_COMPLETE; i <= UNWIND_STAT_SIGNAL; i++) {
		if (i == UNWIND_STAT_FRAMES_TABLE || i == UNWIND_STAT_FRAMES_FP)
			continue;
		/* "unwind_complete": outcome="complete" */
		metrics_prom_u64(f, "ebpfspy_unwind_outcomes_total", "outcome",
		    session_unwind_stat_name(i) + strlen("unwind_"), s[i]);
	}
	metrics_prom_family(f, "ebpfspy_unwind_frames_total", "counter",
	    "User frames walked, by unwind table or by frame pointer.");
	metrics_prom_u64(f, "ebpfspy_unwind_frames_total", "step", "table",
	    s[UNWIND_STAT_FRAMES_TABLE]);
	metrics_prom_u64(f, "ebpfspy_unwind_frames_total", "step", "fp",
	    s[UNWIND_STAT_FRAMES_FP]);
	metrics_prom_counter(f, "ebpfspy_unwind_row_cache_hits_total",
	    "Frames whose unwind row came from the walker's per-CPU cache, "
	    "not a search of the table (of ebpfspy_unwind_frames_total "
	    "step=\"table\").", s[UNWIND_STAT_RCACHE_HIT]);
	metrics_prom_counter(f, "ebpfspy_unwind_truncated_total",
	    "User stacks given a [truncated] frame: cut short, or walked "
	    "through code whose table was not loaded yet.",
	    s[UNWIND_STAT_TRUNCATED]);
	metrics_prom_counter(f, "ebpfspy_user_stacks_total",
	    "User stacks walked and stored, by tables or frame pointers.",
	    s[UNWIND_STAT_USTACKS]);
	metrics_prom_family(f, "ebpfspy_user_stack_seconds_total", "counter",
	    "Time the BPF programs spent walking and storing user stacks.");
	metrics_prom_f64(f, "ebpfspy_user_stack_seconds_total", NULL, NULL,
	    s[UNWIND_STAT_USTACK_NS] / 1e9);
}

void
metrics_prom_write(FILE *f, const struct metrics_view *d, const struct metrics_push *mp,
    uint64_t requests)
{
	struct collect_stats	 cs;
	struct resolve_stats	 rs;
	uint64_t		 stats[PROFILE_STAT_MAX];

	memset(stats, 0, sizeof(stats));
	memset(&cs, 0, sizeof(cs));
	memset(&rs, 0, sizeof(rs));
	if (d->session != NULL)
		session_stats(d->session, stats);
	if (d->collect != NULL)
		collect_stats(d->collect, &cs);
	if (d->resolve != NULL)
		resolve_stats(d->resolve, &rs);

	metrics_prom_process(f, d, requests);
	metrics_prom_rounds(f, d, &cs);
	metrics_prom_samples(f, d, stats, &cs);
	metrics_prom_symbols(f, &rs, &cs);
	metrics_prom_unwind(f, d);
	metrics_prom_v8(f, d);
	metrics_prom_jvm(f, d);
	metrics_prom_debuginfod(f, d);
	if (d->collect != NULL)
		symstats_prom(collect_symstats(d->collect), f);
	if (mp != NULL)
		metrics_prom_push(f, mp);
}
