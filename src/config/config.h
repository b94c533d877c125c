/*
 * The configuration as a contract: struct config, the tables that
 * describe its keys and sections, and their values' enums.  It sits
 * below every folder and includes nothing of the project, so any
 * subsystem can read a config or export a table of its keys without
 * depending on the parser (src/config.c), which sits above them all.
 */
#ifndef EBPFSPY_CONFIG_CONFIG_H
#define EBPFSPY_CONFIG_CONFIG_H

#include <stddef.h>
#include <stdio.h>

struct config;

/* How a change of a key takes effect on reload. */
enum config_reload {
	CONFIG_LIVE,		/* applied by reload */
	CONFIG_RESTART,		/* needs a restart: reload warns, keeps old */
};

enum config_type {
	CONFIG_BOOL,
	CONFIG_INT,
	CONFIG_STRING,
	CONFIG_ENUM,
};

struct config_enum {
	const char	*name;
	int		 value;
};

struct config_key {
	const char			*section;
	const char			*name;
	enum config_type		 type;
	size_t				 off;	/* in struct config */
	long long			 min, max;	/* CONFIG_INT */
	const struct config_enum	*enums;	/* CONFIG_ENUM */
	const char			*def;	/* default, as written */
	enum config_reload		 reload;
	const char			*help;	/* one line, for the dump */
	/* CONFIG_STRING: NULL if a value is good, else a message. */
	const char			*(*check)(const char *);
};

/*
 * The check of a CONFIG_STRING key naming a path: the daemon runs from
 * /, so a relative one would move.  Empty: not set.
 */
static inline const char *
config_check_abspath(const char *v)
{
	return *v != '\0' && *v != '/' ? "expected an absolute path" : NULL;
}

/* A key's place in struct config, for the tables of keys. */
#define CONFIG_OFF(f)	offsetof(struct config, f)

/* offcpu_states values (bits, as in bpf/profile.h). */
#define CONFIG_OFFCPU_INTERRUPTIBLE	0x1
#define CONFIG_OFFCPU_UNINTERRUPTIBLE	0x2

/* demangle values. */
enum config_demangle {
	CONFIG_DEMANGLE_NONE,
	CONFIG_DEMANGLE_SIMPLIFIED,
	CONFIG_DEMANGLE_FULL,
};

/* [profile] unwind values: bpf/unwind.h enum unwind_mode. */
enum config_unwind {
	CONFIG_UNWIND_FP = 0,
	CONFIG_UNWIND_AUTO = 1,
	CONFIG_UNWIND_DWARF = 2,
};

/* [python] path values. */
enum config_python_path {
	CONFIG_PYTHON_PATH_BASENAME,
	CONFIG_PYTHON_PATH_FULL,
	CONFIG_PYTHON_PATH_NONE,
};

/*
 * What a table of keys cannot list, exported by the subsystem that
 * keeps it, as its table of keys is: sections of its own ([target
 * "name"], proc/target.c) or keys of a section by a prefix (label.NAME
 * of [pyroscope], push/pyroscope_conf.c).  The parser calls nothing
 * else of the subsystem.
 */
struct config_section {
	/* The [section] of its keys; NULL: it has sections of its own. */
	const char	*section;
	/* What the names of its keys, or of its sections, start with. */
	const char	*prefix;
	/* What the names of its sections end with. */
	const char	*suffix;
	/*
	 * A section of its own starts, named by what is between prefix
	 * and suffix: 0, or -1 with a message.
	 */
	int		 (*open)(struct config *, const char *, int,
			    const char **);
	/*
	 * One key (of the section last opened, or the name after prefix):
	 * NULL, or a message, which may be written in buf.
	 */
	const char	*(*set)(struct config *, const char *, const char *,
			    int, char *, size_t);
	/* Print it as valid INI, after the keys of section (or last). */
	void		 (*dump)(const struct config *, FILE *);
	void		 (*free)(struct config *);
};

struct config {
	char		*path;
	int		 empty;		/* the file had no section, no key */

	/* [daemon] */
	long long	 collect_interval;	/* seconds */
	char		*log_file;		/* "": syslog */
	long long	 log_file_bytes;

	/* [profile] */
	int		 cpu;
	int		 offcpu;
	long long	 sample_rate;		/* Hz */
	int		 collect_user;
	int		 collect_kernel;
	int		 collect_kthreads;
	int		 collect_idle;
	int		 profile_self;		/* the daemon's own samples */
	int		 offcpu_states;		/* CONFIG_OFFCPU_* bits */
	long long	 offcpu_min_block_us;
	long long	 offcpu_max_block_us;	/* 0: no maximum */
	long long	 pid_map_entries;
	long long	 counts_map_entries;
	long long	 stack_map_entries;
	long long	 offcpu_map_entries;
	long long	 ringbuf_kb;
	int		 unwind;		/* enum config_unwind */
	long long	 unwind_depth;		/* frames */
	long long	 unwind_table_bytes;

	/* [symbols] */
	int		 unknown_symbol_module_offset;
	int		 unknown_symbol_address;
	long long	 symbol_cache_files;
	long long	 symbol_cache_rounds;
	long long	 symbol_cache_bytes;
	long long	 symbol_max_symbols;	/* per file */
	long long	 symbol_max_bytes;	/* of names, per file */
	long long	 symbol_max_debugdata;	/* bytes */
	int		 demangle;		/* enum config_demangle */
	char		*debug_dirs;		/* "/dir:/dir" */
	int		 perf_maps;
	int		 symbol_inlines;	/* DWARF's inlined frames */
	long long	 symbol_dwarf_bytes;	/* per file */
	char		*debuginfod_urls;	/* "": $DEBUGINFOD_URLS */
	char		*debuginfod_cache;	/* "": <output dir>/.debuginfod */
	long long	 debuginfod_max_bytes;	/* one file */
	long long	 debuginfod_cache_bytes;
	long long	 debuginfod_timeout;	/* seconds, one fetch */

	/* [python] */
	int		 python_enabled;
	long long	 python_depth;		/* frames */
	int		 python_lines;
	int		 python_path;		/* enum config_python_path */
	long long	 python_stack_map_entries;

	/* [jvm] */
	int		 jvm_enabled;
	/* [v8] */
	int		 v8_enabled;

	/* [output] */
	char		*output_dir;
	int		 pprof;
	int		 folded;
	int		 svg;
	long long	 retention_hours;	/* 0: keep forever */
	long long	 max_bytes;		/* 0: no limit */
	long long	 svg_hour_bytes;	/* last-hour.svg's sums */

	/* [metrics] */
	char		*metrics_listen;	/* host:port; "": no listener */
	long long	 metrics_service_ttl;	/* seconds; 0: forever */

	/* [pyroscope] */
	char		*pyroscope_url;		/* "": off */
	int		 pyroscope_api;		/* enum pyroscope_api */
	char		*pyroscope_basic_auth_user;
	char		*pyroscope_basic_auth_password;
	char		*pyroscope_basic_auth_password_file;
	char		*pyroscope_bearer_token_file;
	char		*pyroscope_tenant_id;
	char		*pyroscope_headers;	/* "Name: value | ..." */
	char		*pyroscope_tls_ca_file;
	char		*pyroscope_tls_cert_file;
	char		*pyroscope_tls_key_file;
	int		 pyroscope_tls_insecure_skip_verify;
	long long	 pyroscope_timeout;	/* seconds */
	char		*pyroscope_spool_dir;
	long long	 pyroscope_spool_max_bytes;
	long long	 pyroscope_backoff_min;	/* seconds */
	long long	 pyroscope_backoff_max;	/* seconds */
	long long	 pyroscope_max_request_bytes; /* obsolete, ignored */
	long long	 pyroscope_flush_timeout; /* seconds */
	long long	 pyroscope_max_inflight;
	long long	 pyroscope_max_age;	/* seconds; 0: no limit */
	long long	 pyroscope_max_profile_bytes;	/* 0: no limit */
	long long	 pyroscope_max_profile_samples;	/* 0: no limit */
	/* label.NAME = VALUE lines of [pyroscope] (pyroscope_conf.c) */
	char		**pyroscope_label_names;
	char		**pyroscope_label_values;
	size_t		 pyroscope_nlabels;
	/* header_file.NAME = path lines (push/pyroscope_secret.c) */
	char		**pyroscope_hfile_names;
	char		**pyroscope_hfile_paths;
	size_t		 pyroscope_nhfiles;

	/* [targets] and the [target "name"] sections (src/proc/target.c) */
	int		 targets_only;
	int		 label_pid;
	int		 label_thread_name;
	long long	 short_lived_ms;	/* 0: no short commands */
	char		*unknown_service;
	char		*drop_labels;		/* src/proc/relabel.c */
	char		*keep_labels;
	char		*rename_labels;
	struct target_conf *targets;
	size_t		 ntargets;
};

#endif
