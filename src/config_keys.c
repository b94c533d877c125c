/*
 * The table of every configuration key: its section, type, range, default
 * and whether a reload applies it.  The parser, the dump of -n -v, the
 * reload logic and the documentation test all read this one table.
 */
#include <stddef.h>
#include <limits.h>
#include <string.h>

#include "config.h"
#include "debuginfo.h"
#include "metrics.h"
#include "pyroscope.h"

#define OFF(f)	offsetof(struct config, f)

static const struct config_enum offcpu_states_enum[] = {
	{ "both", CONFIG_OFFCPU_INTERRUPTIBLE | CONFIG_OFFCPU_UNINTERRUPTIBLE },
	{ "interruptible", CONFIG_OFFCPU_INTERRUPTIBLE },
	{ "uninterruptible", CONFIG_OFFCPU_UNINTERRUPTIBLE },
	{ NULL, 0 }
};

static const struct config_enum pyroscope_api_enum[] = {
	{ "push", PYROSCOPE_API_PUSH },
	{ "ingest", PYROSCOPE_API_INGEST },
	{ NULL, 0 }
};

static const struct config_enum demangle_enum[] = {
	{ "none", CONFIG_DEMANGLE_NONE },
	{ "simplified", CONFIG_DEMANGLE_SIMPLIFIED },
	{ "full", CONFIG_DEMANGLE_FULL },
	{ NULL, 0 }
};

static const struct config_enum python_path_enum[] = {
	{ "basename", CONFIG_PYTHON_PATH_BASENAME },
	{ "full", CONFIG_PYTHON_PATH_FULL },
	{ "none", CONFIG_PYTHON_PATH_NONE },
	{ NULL, 0 }
};

const struct config_key config_keys[] = {
	{ "daemon", "collect_interval", CONFIG_INT, OFF(collect_interval),
	    1, 3600, NULL, "15", CONFIG_LIVE,
	    "seconds between collection rounds" },

	{ "profile", "cpu", CONFIG_BOOL, OFF(cpu), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "on-CPU profiling (timer sampling)" },
	{ "profile", "offcpu", CONFIG_BOOL, OFF(offcpu), 0, 0, NULL, "no",
	    CONFIG_LIVE, "off-CPU profiling (time blocked)" },
	{ "profile", "sample_rate", CONFIG_INT, OFF(sample_rate),
	    1, 10000, NULL, "97", CONFIG_LIVE,
	    "on-CPU samples per second per CPU" },
	{ "profile", "collect_user", CONFIG_BOOL, OFF(collect_user),
	    0, 0, NULL, "yes", CONFIG_LIVE, "walk user stacks" },
	{ "profile", "collect_kernel", CONFIG_BOOL, OFF(collect_kernel),
	    0, 0, NULL, "yes", CONFIG_LIVE, "walk kernel stacks" },
	{ "profile", "collect_kthreads", CONFIG_BOOL, OFF(collect_kthreads),
	    0, 0, NULL, "no", CONFIG_LIVE, "profile kernel threads" },
	{ "profile", "collect_idle", CONFIG_BOOL, OFF(collect_idle),
	    0, 0, NULL, "no", CONFIG_LIVE, "count samples of the idle task" },
	{ "profile", "offcpu_states", CONFIG_ENUM, OFF(offcpu_states),
	    0, 0, offcpu_states_enum, "both", CONFIG_LIVE,
	    "blocked states counted off-CPU" },
	{ "profile", "offcpu_min_block_us", CONFIG_INT,
	    OFF(offcpu_min_block_us), 0, 3600000000LL, NULL, "1", CONFIG_LIVE,
	    "shortest wait counted, microseconds" },
	{ "profile", "offcpu_max_block_us", CONFIG_INT,
	    OFF(offcpu_max_block_us), 0, 3600000000LL, NULL, "0", CONFIG_LIVE,
	    "longest wait counted, microseconds (0: no limit)" },
	{ "profile", "pid_map_entries", CONFIG_INT, OFF(pid_map_entries),
	    1024, 4194304, NULL, "32768", CONFIG_RESTART,
	    "processes the BPF pid map holds" },
	{ "profile", "counts_map_entries", CONFIG_INT,
	    OFF(counts_map_entries), 1024, 4194304, NULL, "65536",
	    CONFIG_RESTART, "distinct {pid, stacks} counted per round" },
	{ "profile", "stack_map_entries", CONFIG_INT, OFF(stack_map_entries),
	    1024, 4194304, NULL, "32768", CONFIG_RESTART,
	    "distinct stacks sent to the daemon per round, at most" },
	{ "profile", "offcpu_map_entries", CONFIG_INT,
	    OFF(offcpu_map_entries), 1024, 4194304, NULL, "32768",
	    CONFIG_RESTART, "threads blocked at once that are tracked" },
	{ "profile", "ringbuf_kb", CONFIG_INT, OFF(ringbuf_kb),
	    64, 65536, NULL, "256", CONFIG_RESTART,
	    "size of the process event ring buffer, KiB (power of 2)" },

	{ "symbols", "unknown_symbol_module_offset", CONFIG_BOOL,
	    OFF(unknown_symbol_module_offset), 0, 0, NULL, "yes", CONFIG_LIVE,
	    "name unknown frames module+0xoffset" },
	{ "symbols", "unknown_symbol_address", CONFIG_BOOL,
	    OFF(unknown_symbol_address), 0, 0, NULL, "no", CONFIG_LIVE,
	    "name unknown frames by their address" },
	{ "symbols", "cache_files", CONFIG_INT, OFF(symbol_cache_files),
	    1, 1000000, NULL, "1024", CONFIG_LIVE,
	    "symbol tables kept loaded" },
	{ "symbols", "cache_rounds", CONFIG_INT, OFF(symbol_cache_rounds),
	    1, 100000, NULL, "20", CONFIG_LIVE,
	    "rounds an unused symbol table is kept" },
	{ "symbols", "cache_bytes", CONFIG_INT, OFF(symbol_cache_bytes),
	    1048576, 1LL << 40, NULL, "8388608", CONFIG_LIVE,
	    "memory of the symbol tables kept loaded, bytes" },
	{ "symbols", "max_symbols_per_file", CONFIG_INT,
	    OFF(symbol_max_symbols), 1000, 16777216, NULL, "500000",
	    CONFIG_LIVE, "entries of one symbol table, or Go functions, "
	    "a file may have; more: refused" },
	{ "symbols", "max_symbol_bytes_per_file", CONFIG_INT,
	    OFF(symbol_max_bytes), 65536, 4294967294LL, NULL, "67108864",
	    CONFIG_LIVE, "bytes of symbol names a file may have; more: "
	    "refused" },
	{ "symbols", "max_debugdata_bytes", CONFIG_INT,
	    OFF(symbol_max_debugdata), 65536, 134217728, NULL, "16777216",
	    CONFIG_LIVE, "MiniDebugInfo a file may have, decompressed, "
	    "bytes; more: refused" },
	{ "symbols", "demangle", CONFIG_ENUM, OFF(demangle), 0, 0,
	    demangle_enum, "simplified", CONFIG_LIVE,
	    "C++/Rust names: none, simplified or full" },
	{ "symbols", "debug_dirs", CONFIG_STRING, OFF(debug_dirs), 0, 0, NULL,
	    "/usr/lib/debug", CONFIG_LIVE,
	    "directories of separate debug files, colon-separated" },
	{ "symbols", "perf_maps", CONFIG_BOOL, OFF(perf_maps), 0, 0, NULL,
	    "yes", CONFIG_LIVE, "name JIT code from /tmp/perf-PID.map" },

	{ "python", "enabled", CONFIG_BOOL, OFF(python_enabled), 0, 0, NULL,
	    "yes", CONFIG_LIVE, "walk the frames of CPython 3.8 to 3.13" },
	{ "python", "depth", CONFIG_INT, OFF(python_depth), 1, 128, NULL,
	    "128", CONFIG_LIVE, "Python frames kept per stack, 1 to 128" },
	{ "python", "lines", CONFIG_BOOL, OFF(python_lines), 0, 0, NULL,
	    "yes", CONFIG_LIVE, "name Python frames with their line" },
	{ "python", "path", CONFIG_ENUM, OFF(python_path), 0, 0,
	    python_path_enum, "basename", CONFIG_LIVE,
	    "Python file names: basename, full or none" },
	{ "python", "stack_map_entries", CONFIG_INT,
	    OFF(python_stack_map_entries), 1024, 1048576, NULL, "16384",
	    CONFIG_RESTART, "distinct Python stacks kept in the kernel" },

	{ "output", "dir", CONFIG_STRING, OFF(output_dir), 0, 0, NULL,
	    EBPFSPY_OUTDIR, CONFIG_LIVE, "directory profiles are written to" },
	{ "output", "pprof", CONFIG_BOOL, OFF(pprof), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "write gzipped pprof files" },
	{ "output", "folded", CONFIG_BOOL, OFF(folded), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "write folded stack files" },
	{ "output", "svg", CONFIG_BOOL, OFF(svg), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "write SVG flame graphs" },
	{ "output", "retention_hours", CONFIG_INT, OFF(retention_hours),
	    0, 876000, NULL, "72", CONFIG_LIVE,
	    "hours profiles are kept (0: forever)" },
	{ "output", "max_bytes", CONFIG_INT, OFF(max_bytes),
	    0, 1LL << 50, NULL, "1073741824", CONFIG_LIVE,
	    "total size of the output directory, bytes (0: no limit)" },

	{ "metrics", "listen", CONFIG_STRING, OFF(metrics_listen), 0, 0, NULL,
	    "127.0.0.1:9465", CONFIG_LIVE,
	    "address of the metrics HTTP listener (empty: none)" },

	{ "pyroscope", "url", CONFIG_STRING, OFF(pyroscope_url), 0, 0, NULL,
	    "", CONFIG_LIVE, "Pyroscope server, http(s)://host:port (empty: "
	    "no push)" },
	{ "pyroscope", "api", CONFIG_ENUM, OFF(pyroscope_api), 0, 0,
	    pyroscope_api_enum, "push", CONFIG_LIVE,
	    "push (the Push API) or ingest (legacy /ingest)" },
	{ "pyroscope", "basic_auth_user", CONFIG_STRING,
	    OFF(pyroscope_basic_auth_user), 0, 0, NULL, "", CONFIG_LIVE,
	    "HTTP basic auth user (empty: none)" },
	{ "pyroscope", "basic_auth_password", CONFIG_STRING,
	    OFF(pyroscope_basic_auth_password), 0, 0, NULL, "", CONFIG_LIVE,
	    "HTTP basic auth password" },
	{ "pyroscope", "basic_auth_password_file", CONFIG_STRING,
	    OFF(pyroscope_basic_auth_password_file), 0, 0, NULL, "",
	    CONFIG_LIVE, "file holding the basic auth password" },
	{ "pyroscope", "bearer_token_file", CONFIG_STRING,
	    OFF(pyroscope_bearer_token_file), 0, 0, NULL, "", CONFIG_LIVE,
	    "file holding a bearer token (empty: none)" },
	{ "pyroscope", "tenant_id", CONFIG_STRING, OFF(pyroscope_tenant_id),
	    0, 0, NULL, "", CONFIG_LIVE, "X-Scope-OrgID header (empty: none)" },
	{ "pyroscope", "headers", CONFIG_STRING, OFF(pyroscope_headers),
	    0, 0, NULL, "", CONFIG_LIVE,
	    "extra headers, \"Name: value | Name: value\"" },
	{ "pyroscope", "tls_ca_file", CONFIG_STRING,
	    OFF(pyroscope_tls_ca_file), 0, 0, NULL, "", CONFIG_LIVE,
	    "CA certificates to verify the server (empty: the system's)" },
	{ "pyroscope", "tls_cert_file", CONFIG_STRING,
	    OFF(pyroscope_tls_cert_file), 0, 0, NULL, "", CONFIG_LIVE,
	    "client certificate (empty: none)" },
	{ "pyroscope", "tls_key_file", CONFIG_STRING,
	    OFF(pyroscope_tls_key_file), 0, 0, NULL, "", CONFIG_LIVE,
	    "client certificate's key" },
	{ "pyroscope", "tls_insecure_skip_verify", CONFIG_BOOL,
	    OFF(pyroscope_tls_insecure_skip_verify), 0, 0, NULL, "no",
	    CONFIG_LIVE, "do not verify the server's certificate" },
	{ "pyroscope", "timeout", CONFIG_INT, OFF(pyroscope_timeout),
	    1, 3600, NULL, "10", CONFIG_LIVE, "seconds one request may take" },
	{ "pyroscope", "spool_dir", CONFIG_STRING, OFF(pyroscope_spool_dir),
	    0, 0, NULL, "", CONFIG_RESTART,
	    "where undelivered requests wait (empty: <[output] dir>/spool)" },
	{ "pyroscope", "spool_max_bytes", CONFIG_INT,
	    OFF(pyroscope_spool_max_bytes), 4096, 1LL << 40, NULL,
	    "268435456", CONFIG_LIVE,
	    "size of the spool; beyond it the oldest go" },
	{ "pyroscope", "backoff_min", CONFIG_INT, OFF(pyroscope_backoff_min),
	    1, 3600, NULL, "1", CONFIG_LIVE,
	    "seconds before the first retry" },
	{ "pyroscope", "backoff_max", CONFIG_INT, OFF(pyroscope_backoff_max),
	    1, 86400, NULL, "120", CONFIG_LIVE,
	    "longest wait between retries, seconds" },
	{ "pyroscope", "max_request_bytes", CONFIG_INT,
	    OFF(pyroscope_max_request_bytes), 65536, 1LL << 30, NULL,
	    "4194304", CONFIG_LIVE,
	    "profiles per push request, bytes, before it is split" },
	{ "pyroscope", "flush_timeout", CONFIG_INT,
	    OFF(pyroscope_flush_timeout), 0, 60, NULL, "5", CONFIG_LIVE,
	    "seconds to deliver at stop before spooling" },

	{ "targets", "targets_only", CONFIG_BOOL, OFF(targets_only), 0, 0,
	    NULL, "no", CONFIG_LIVE,
	    "profile only processes a [target] section takes" },
	{ "targets", "label_pid", CONFIG_BOOL, OFF(label_pid), 0, 0, NULL,
	    "no", CONFIG_LIVE, "label each sample with its pid" },
	{ "targets", "label_thread_name", CONFIG_BOOL, OFF(label_thread_name),
	    0, 0, NULL, "no", CONFIG_LIVE,
	    "label each sample with its thread's name" },
};

const size_t config_nkeys = sizeof(config_keys) / sizeof(config_keys[0]);

const char *
config_key_check(const struct config_key *k, const char *v)
{
	if (strcmp(k->section, "metrics") == 0 &&
	    strcmp(k->name, "listen") == 0)
		return metrics_listen_check(v);
	if (strcmp(k->section, "pyroscope") == 0 &&
	    strcmp(k->name, "url") == 0)
		return pyroscope_url_check(v);
	if (strcmp(k->section, "pyroscope") == 0 &&
	    strcmp(k->name, "headers") == 0)
		return pyroscope_headers_check(v);
	if (strcmp(k->section, "symbols") == 0 &&
	    strcmp(k->name, "debug_dirs") == 0)
		return debuginfo_dirs_check(v);
	return NULL;
}
