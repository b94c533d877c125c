/*
 * The table of every configuration key: its section, type, range, default
 * and whether a reload applies it.  The parser, the dump of -n -v, the
 * reload logic and the documentation test all read it.  A subsystem whose
 * keys need more than a type and a range to be checked exports the keys
 * of its section with their checks (resolve_keys, metrics_keys,
 * pyroscope_conf_keys); the others' sections are here.  What no table
 * of keys can list is a table of sections, the subsystem's too
 * (target_sections, pyroscope_conf_labels).  This file only puts them
 * in order: the order of the dump and of the documentation.  It is the
 * one file of the parser that knows the subsystems.
 */
#include <stddef.h>
#include <limits.h>

#include "config.h"
#include "metrics/metrics.h"
#include "proc/relabel.h"
#include "proc/target.h"
#include "push/pyroscope.h"
#include "sym/resolve.h"

#define OFF(f)	offsetof(struct config, f)

static const struct config_enum offcpu_states_enum[] = {
	{ "both", CONFIG_OFFCPU_INTERRUPTIBLE | CONFIG_OFFCPU_UNINTERRUPTIBLE },
	{ "interruptible", CONFIG_OFFCPU_INTERRUPTIBLE },
	{ "uninterruptible", CONFIG_OFFCPU_UNINTERRUPTIBLE },
	{ NULL, 0 }
};

static const struct config_enum unwind_enum[] = {
	{ "auto", CONFIG_UNWIND_AUTO },
	{ "dwarf", CONFIG_UNWIND_DWARF },
	{ "fp", CONFIG_UNWIND_FP },
	{ NULL, 0 }
};

static const struct config_enum python_path_enum[] = {
	{ "basename", CONFIG_PYTHON_PATH_BASENAME },
	{ "full", CONFIG_PYTHON_PATH_FULL },
	{ "none", CONFIG_PYTHON_PATH_NONE },
	{ NULL, 0 }
};

static const struct config_key config_daemon_keys[] = {
	{ "daemon", "collect_interval", CONFIG_INT, OFF(collect_interval), 1,
	    3600, NULL, "15", CONFIG_LIVE, "seconds between collection rounds",
	    NULL },
	{ "daemon", "log_file", CONFIG_STRING, OFF(log_file), 0, 0, NULL, "",
	    CONFIG_LIVE, "log to this file, not to syslog (\"\": syslog)",
	    config_check_abspath },
	{ "daemon", "log_file_bytes", CONFIG_INT, OFF(log_file_bytes), 4096,
	    1LL << 40, NULL, "10485760", CONFIG_LIVE,
	    "size of log_file at which it becomes log_file.1, bytes", NULL },
	{ NULL }
};

static const struct config_key config_profile_keys[] = {
	{ "profile", "cpu", CONFIG_BOOL, OFF(cpu), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "on-CPU profiling (timer sampling)", NULL },
	{ "profile", "offcpu", CONFIG_BOOL, OFF(offcpu), 0, 0, NULL, "no",
	    CONFIG_LIVE, "off-CPU profiling (time blocked)", NULL },
	{ "profile", "sample_rate", CONFIG_INT, OFF(sample_rate), 1, 10000,
	    NULL, "97", CONFIG_LIVE, "on-CPU samples per second per CPU",
	    NULL },
	{ "profile", "collect_user", CONFIG_BOOL, OFF(collect_user), 0, 0, NULL,
	    "yes", CONFIG_LIVE, "walk user stacks", NULL },
	{ "profile", "collect_kernel", CONFIG_BOOL, OFF(collect_kernel), 0, 0,
	    NULL, "yes", CONFIG_LIVE, "walk kernel stacks", NULL },
	{ "profile", "collect_kthreads", CONFIG_BOOL, OFF(collect_kthreads), 0,
	    0, NULL, "no", CONFIG_LIVE, "profile kernel threads", NULL },
	{ "profile", "collect_idle", CONFIG_BOOL, OFF(collect_idle), 0, 0, NULL,
	    "no", CONFIG_LIVE, "count samples of the idle task", NULL },
	{ "profile", "profile_self", CONFIG_BOOL, OFF(profile_self), 0, 0,
	    NULL, "no", CONFIG_LIVE, "profile the daemon itself", NULL },
	{ "profile", "offcpu_states", CONFIG_ENUM, OFF(offcpu_states), 0, 0,
	    offcpu_states_enum, "both", CONFIG_LIVE,
	    "blocked states counted off-CPU", NULL },
	{ "profile", "offcpu_min_block_us", CONFIG_INT,
	    OFF(offcpu_min_block_us), 0, 3600000000LL, NULL, "1", CONFIG_LIVE,
	    "shortest wait counted, microseconds", NULL },
	{ "profile", "offcpu_max_block_us", CONFIG_INT,
	    OFF(offcpu_max_block_us), 0, 3600000000LL, NULL, "0", CONFIG_LIVE,
	    "longest wait counted, microseconds (0: no limit)", NULL },
	{ "profile", "pid_map_entries", CONFIG_INT, OFF(pid_map_entries), 1024,
	    4194304, NULL, "32768", CONFIG_RESTART,
	    "processes the BPF pid map holds", NULL },
	{ "profile", "counts_map_entries", CONFIG_INT, OFF(counts_map_entries),
	    1024, 4194304, NULL, "65536", CONFIG_RESTART,
	    "distinct {pid, stacks} counted per round", NULL },
	{ "profile", "stack_map_entries", CONFIG_INT, OFF(stack_map_entries),
	    1024, 4194304, NULL, "32768", CONFIG_RESTART,
	    "distinct stacks sent to the daemon per round, at most", NULL },
	{ "profile", "offcpu_map_entries", CONFIG_INT, OFF(offcpu_map_entries),
	    1024, 4194304, NULL, "32768", CONFIG_RESTART,
	    "threads blocked at once that are tracked", NULL },
	{ "profile", "ringbuf_kb", CONFIG_INT, OFF(ringbuf_kb), 64, 65536, NULL,
	    "256", CONFIG_RESTART,
	    "size of the process event ring buffer, KiB (power of 2)", NULL },
	{ "profile", "unwind", CONFIG_ENUM, OFF(unwind), 0, 0, unwind_enum,
	    "auto", CONFIG_LIVE,
	    "user stacks: auto, dwarf (.eh_frame tables) or fp", NULL },
	{ "profile", "unwind_depth", CONFIG_INT, OFF(unwind_depth),
	    1, 127, NULL, "127", CONFIG_LIVE,
	    "user frames walked with unwind tables, at most", NULL },
	{ "profile", "unwind_table_bytes", CONFIG_INT,
	    OFF(unwind_table_bytes), 1048576, 1LL << 32, NULL, "8388608",
	    CONFIG_RESTART, "kernel memory for unwind table rows, bytes",
	    NULL },
	{ NULL }
};

static const struct config_key config_python_keys[] = {
	{ "python", "enabled", CONFIG_BOOL, OFF(python_enabled), 0, 0, NULL,
	    "yes", CONFIG_LIVE, "walk the frames of CPython 3.8 to 3.13",
	    NULL },
	{ "python", "depth", CONFIG_INT, OFF(python_depth), 1, 128, NULL, "128",
	    CONFIG_LIVE, "Python frames kept per stack, 1 to 128", NULL },
	{ "python", "lines", CONFIG_BOOL, OFF(python_lines), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "name Python frames with their line", NULL },
	{ "python", "path", CONFIG_ENUM, OFF(python_path), 0, 0,
	    python_path_enum, "basename", CONFIG_LIVE,
	    "Python file names: basename, full or none", NULL },
	{ "python", "stack_map_entries", CONFIG_INT,
	    OFF(python_stack_map_entries), 1024, 1048576, NULL, "16384",
	    CONFIG_RESTART, "distinct Python stacks kept in the kernel", NULL },
	{ NULL }
};

static const struct config_key config_jvm_keys[] = {
	{ "jvm", "enabled", CONFIG_BOOL, OFF(jvm_enabled), 0, 0, NULL, "no",
	    CONFIG_LIVE, "read the layout and code cache of HotSpot JVMs",
	    NULL },
	{ NULL }
};

static const struct config_key config_v8_keys[] = {
	{ "v8", "enabled", CONFIG_BOOL, OFF(v8_enabled), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "name the JavaScript frames of Node.js (V8)", NULL },
	{ NULL }
};

static const struct config_key config_output_keys[] = {
	{ "output", "dir", CONFIG_STRING, OFF(output_dir), 0, 0, NULL,
	    EBPFSPY_OUTDIR, CONFIG_LIVE, "directory profiles are written to",
	    NULL },
	{ "output", "pprof", CONFIG_BOOL, OFF(pprof), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "write gzipped pprof files", NULL },
	{ "output", "folded", CONFIG_BOOL, OFF(folded), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "write folded stack files", NULL },
	{ "output", "svg", CONFIG_BOOL, OFF(svg), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "write SVG flame graphs", NULL },
	{ "output", "svg_hour_bytes", CONFIG_INT, OFF(svg_hour_bytes),
	    65536, 1LL << 30, NULL, "2097152", CONFIG_LIVE,
	    "memory for last-hour.svg's sums, bytes (a directory: half)",
	    NULL },
	{ "output", "retention_hours", CONFIG_INT, OFF(retention_hours), 0,
	    876000, NULL, "72", CONFIG_LIVE,
	    "hours profiles are kept (0: forever)", NULL },
	{ "output", "max_bytes", CONFIG_INT, OFF(max_bytes), 0, 1LL << 50, NULL,
	    "1073741824", CONFIG_LIVE,
	    "total size of the output directory, bytes (0: no limit)", NULL },
	{ NULL }
};

static const struct config_key config_targets_keys[] = {
	{ "targets", "targets_only", CONFIG_BOOL, OFF(targets_only), 0, 0, NULL,
	    "no", CONFIG_LIVE,
	    "profile only processes a [target] section takes", NULL },
	{ "targets", "label_pid", CONFIG_BOOL, OFF(label_pid), 0, 0, NULL, "no",
	    CONFIG_LIVE, "label each sample with its pid", NULL },
	{ "targets", "label_thread_name", CONFIG_BOOL, OFF(label_thread_name),
	    0, 0, NULL, "no", CONFIG_LIVE,
	    "label each sample with its thread's name", NULL },
	{ "targets", "short_lived_ms", CONFIG_INT, OFF(short_lived_ms), 0,
	    3600000, NULL, "1000", CONFIG_LIVE,
	    "an unnamed process that exits sooner joins its parent's service, "
	    "milliseconds (0: never)", NULL },
	{ "targets", "unknown_service", CONFIG_STRING, OFF(unknown_service),
	    0, 0, NULL, "unknown", CONFIG_LIVE,
	    "service_name of processes that cannot be named",
	    target_service_check },
	{ "targets", "drop_labels", CONFIG_STRING, OFF(drop_labels), 0, 0,
	    NULL, "", CONFIG_LIVE,
	    "labels dropped from every series (names, by commas)",
	    relabel_check_names },
	{ "targets", "keep_labels", CONFIG_STRING, OFF(keep_labels), 0, 0,
	    NULL, "", CONFIG_LIVE,
	    "labels kept, the others dropped (\"\": all kept)",
	    relabel_check_names },
	{ "targets", "rename_labels", CONFIG_STRING, OFF(rename_labels), 0, 0,
	    NULL, "", CONFIG_LIVE, "labels renamed (OLD=NEW, by commas)",
	    relabel_check_renames },
	{ NULL }
};

/* The sections, in the order of the dump. */
static const struct config_key *const config_key_tables[] = {
	config_daemon_keys,
	config_profile_keys,
	resolve_keys,
	config_python_keys,
	config_jvm_keys,
	config_v8_keys,
	config_output_keys,
	metrics_keys,
	pyroscope_conf_keys,
	config_targets_keys,
};

#define CONFIG_NSECTIONS \
	(sizeof(config_key_tables) / sizeof(config_key_tables[0]))

/* Prefixed keys and sections of their own, in the order of the dump. */
static const struct config_section *const config_section_tables[] = {
	&pyroscope_conf_labels,
	&pyroscope_conf_header_files,
	&target_sections,
};

size_t
config_nkeys(void)
{
	static size_t			 n;
	const struct config_key		*k;
	size_t				 i;

	if (n == 0) {
		for (i = 0; i < CONFIG_NSECTIONS; i++)
			for (k = config_key_tables[i]; k->name != NULL; k++)
				n++;
	}
	return n;
}

/* Key i of all, in order; NULL past the last. */
const struct config_key *
config_key_at(size_t i)
{
	const struct config_key		*k;
	size_t				 j;

	for (j = 0; j < CONFIG_NSECTIONS; j++) {
		for (k = config_key_tables[j]; k->name != NULL; k++)
			if (i-- == 0)
				return k;
	}
	return NULL;
}

const struct config_section *
config_section_at(size_t i)
{
	if (i >= sizeof(config_section_tables) /
	    sizeof(config_section_tables[0]))
		return NULL;
	return config_section_tables[i];
}
