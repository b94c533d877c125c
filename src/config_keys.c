/*
 * The table of every configuration key: its section, type, range, default
 * and whether a reload applies it.  The parser, the dump of -n -v, the
 * reload logic and the documentation test all read this one table.
 */
#include <stddef.h>
#include <limits.h>

#include "config.h"

#define OFF(f)	offsetof(struct config, f)

static const struct config_enum offcpu_states_enum[] = {
	{ "both", CONFIG_OFFCPU_INTERRUPTIBLE | CONFIG_OFFCPU_UNINTERRUPTIBLE },
	{ "interruptible", CONFIG_OFFCPU_INTERRUPTIBLE },
	{ "uninterruptible", CONFIG_OFFCPU_UNINTERRUPTIBLE },
	{ NULL, 0 }
};

static const struct config_enum demangle_enum[] = {
	{ "none", CONFIG_DEMANGLE_NONE },
	{ "simplified", CONFIG_DEMANGLE_SIMPLIFIED },
	{ "full", CONFIG_DEMANGLE_FULL },
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
	    "distinct stacks kept in the kernel" },
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
	{ "symbols", "demangle", CONFIG_ENUM, OFF(demangle), 0, 0,
	    demangle_enum, "simplified", CONFIG_LIVE,
	    "C++/Rust names: none, simplified or full" },

	{ "output", "dir", CONFIG_STRING, OFF(output_dir), 0, 0, NULL,
	    EBPFSPY_OUTDIR, CONFIG_LIVE, "directory profiles are written to" },
	{ "output", "pprof", CONFIG_BOOL, OFF(pprof), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "write gzipped pprof files" },
	{ "output", "folded", CONFIG_BOOL, OFF(folded), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "write folded stack files" },
};

const size_t config_nkeys = sizeof(config_keys) / sizeof(config_keys[0]);
