#ifndef EBPFSPY_TARGET_H
#define EBPFSPY_TARGET_H

#include <sys/types.h>
#include <stddef.h>
#include <stdio.h>

/* Bounds of a configuration's targets: see target.c. */
#define TARGET_MAX		1024
#define TARGET_LABELS_MAX	64
#define TARGET_STR_(x)		#x
#define TARGET_STR(x)		TARGET_STR_(x)

struct cgroup_info;
struct config;
struct container_info;

struct target_label {
	char	*name;
	char	*value;
};

/* A [target "name"] section: match rules (ANDed) and labels. */
struct target_conf {
	char			*name;
	int			 line;
	char			*comm;		/* glob */
	char			*exe;		/* glob */
	char			*cgroup;	/* glob */
	char			*container_id;	/* prefix, >= 12 hex */
	long long		 pid;		/* 0: any */
	struct target_label	*labels;
	size_t			 nlabels;
	char			*drop_labels;	/* relabel.c; NULL: none */
	char			*keep_labels;
	char			*rename_labels;
	int			*seen;		/* line of each key seen */
};

/* What is known of a process, to match targets against. */
struct target_facts {
	pid_t				 pid;
	const char			*comm;
	const char			*exe;		/* NULL: none */
	const struct cgroup_info	*cg;
	const struct container_info	*ct;	/* its names; NULL: none */
	const char			*argv;	/* its cmdline; NULL: none */
	size_t				 argvlen;
	int				 self;	/* the daemon itself */
};

/* Where a process's service_name came from: see target.c. */
enum target_source {
	TARGET_SOURCE_NAMED,		/* a target, unit or container */
	TARGET_SOURCE_COMM,		/* its own comm */
	TARGET_SOURCE_NONE		/* nothing: [targets] unknown_service */
};

/* The labels of a process: sorted by name, with an identity string. */
struct target_labels {
	struct target_label	*v;
	size_t			 n;
	char			*key;		/* "name=value\n..." */
	const char		*service;	/* the service_name value */
	enum target_source	 source;
};

/*
 * The [target "name"] sections, for the parser (config_keys.c lists
 * it): each adds a target to the config, freed and dumped with it.
 */
extern const struct config_section target_sections;
int		 target_conf_equal(const struct config *,
		    const struct config *);
int		 target_name_is_valid(const char *);
int		 target_label_name_is_valid(const char *);

int		 target_conf_uses_exe(const struct config *);
struct target_labels *target_labels(const struct config *,
		    const struct target_facts *);
void		 target_labels_free(struct target_labels *);
const char	*target_labels_get(const struct target_labels *,
		    const char *);
/* The labels of what cannot be named: service_name unknown_service. */
struct target_labels *target_labels_unknown(const struct config *);
/* For the config table: NULL if a service name is good. */
const char	*target_service_check(const char *);

/* target_name.c: a process named by its program, see there. */
#define TARGET_NAME_MAX		64
#define TARGET_SELF_SERVICE	"ebpfspyd"
int		 target_name_wants_argv(const char *);
int		 target_name_derive(const char *, const char *, size_t,
		    char *, size_t);
void		 target_name_clean(const char *, size_t, char *, size_t);

#endif
