/*
 * Targets: what to profile and what to call it.  A [target "name"]
 * section holds match rules, combined with AND, and labels; the first
 * target in file order whose rules all match a process takes it.
 *
 *   comm = GLOB          the process's comm (15 characters at most)
 *   exe = GLOB           the path of /proc/PID/exe
 *   cgroup = GLOB        its cgroup path (v2, else the name=systemd one)
 *   container_id = HEX   a prefix of its container id, 12 digits at least
 *   pid = N              its process id
 *   label.NAME = VALUE   a label; label.service_name names the service
 *   drop_labels, keep_labels, rename_labels
 *                        relabeling of its processes' labels (relabel.c)
 *
 * GLOB is a shell pattern (fnmatch(3) without flags) matched against the
 * whole string: '*' matches any characters, '/' included.  A target
 * without label.service_name is its own name.  Processes in a container
 * also get container_id and, where the path shows them, pod_uid and
 * qos_class; where the runtime's files name them (container.c),
 * Kubernetes' namespace, pod and container, and a Docker or Podman
 * container's name as container.  A process no target takes goes to the
 * default target -- service_name is its systemd unit, else for a pod
 * "<namespace>/<container>" (the pod's name when the container is not
 * known), else the Docker or Podman name, else the container id's
 * first 12 digits, else its program (target_name.c: its comm, a shell's
 * script, an interpreter's script; or none, for a helper like sleep)
 * -- unless targets_only is set: then it is not profiled at all.  The
 * daemon itself, when it profiles itself, is TARGET_SELF_SERVICE unless
 * a target takes it.  A comm the daemon could not read ("[pid]")
 * is never a name: then the labels say so (TARGET_SOURCE_NONE), and
 * service_name is [targets] unknown_service.  Where a process named by
 * its comm or by nothing really goes -- its parent's service when it is
 * a short command -- is src/round/pids_target.c's to say: it needs the
 * process table.
 *
 * Every process is matched against the targets in order, and a reload
 * checks the names for duplicates: both are linear in the number of
 * targets, so it is bounded (TARGET_MAX, and TARGET_LABELS_MAX labels a
 * target) rather than letting a generated file of 80,000 sections hold
 * the loop for seconds.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "config/config.h"
#include "container.h"
#include "relabel.h"
#include "target.h"
#include "util/xmalloc.h"

enum target_key {
	TARGET_COMM,
	TARGET_EXE,
	TARGET_CGROUP,
	TARGET_CONTAINER_ID,
	TARGET_PID,
	TARGET_NKEYS
};

static const char *const target_keys[TARGET_NKEYS] = {
	"comm", "exe", "cgroup", "container_id", "pid"
};

int
target_name_is_valid(const char *s)
{
	if (*s == '\0' || strlen(s) > 128)
		return 0;
	for (; *s != '\0'; s++) {
		if (!isalnum((unsigned char)*s) && strchr("_.-", *s) == NULL)
			return 0;
	}
	return 1;
}

/* Prometheus and Pyroscope label names: [a-zA-Z_][a-zA-Z0-9_]*. */
int
target_label_name_is_valid(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (s++; *s != '\0'; s++) {
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	}
	return 1;
}

/* A [target "name"] section starts: its keys that follow go to it. */
static int
target_conf_add(struct config *conf, const char *name, int line,
    const char **err)
{
	struct target_conf	*t;
	size_t			 i;

	if (!target_name_is_valid(name)) {
		*err = "bad target name: letters, digits, '_', '.' and '-'";
		return -1;
	}
	if (conf->ntargets >= TARGET_MAX) {
		*err = "too many targets (at most " TARGET_STR(TARGET_MAX) ")";
		return -1;
	}
	for (i = 0; i < conf->ntargets; i++) {
		if (strcmp(conf->targets[i].name, name) == 0) {
			*err = "duplicate target";
			return -1;
		}
	}
	conf->targets = xreallocarray(conf->targets, conf->ntargets + 1,
	    sizeof(*conf->targets));
	t = &conf->targets[conf->ntargets++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->line = line;
	t->seen = xcalloc(TARGET_NKEYS, sizeof(*t->seen));
	return 0;
}

static const char *
target_label_set(struct target_conf *t, const char *name, const char *value)
{
	size_t	 i;

	if (!target_label_name_is_valid(name))
		return "bad label name: [a-zA-Z_][a-zA-Z0-9_]* expected";
	if (strncmp(name, "__", 2) == 0)
		return "label names starting with __ are reserved";
	if (t->nlabels >= TARGET_LABELS_MAX)
		return "too many labels (at most " TARGET_STR(TARGET_LABELS_MAX)
		    ")";
	for (i = 0; i < t->nlabels; i++) {
		if (strcmp(t->labels[i].name, name) == 0)
			return "duplicate key";
	}
	t->labels = xreallocarray(t->labels, t->nlabels + 1,
	    sizeof(*t->labels));
	t->labels[t->nlabels].name = xstrdup(name);
	t->labels[t->nlabels].value = xstrdup(value);
	t->nlabels++;
	return NULL;
}

/* Set one key of the target last added; NULL or a message. */
static const char *
target_conf_set(struct config *conf, const char *key, const char *value,
    int line, char *buf, size_t len)
{
	struct target_conf	 *t = &conf->targets[conf->ntargets - 1];
	const char		 *msg;
	char			**sp = NULL, *end;
	long long		  ll;
	size_t			  i, n;
	int			  k;

	if (strncmp(key, "label.", 6) == 0)
		return target_label_set(t, key + 6, value);
	if (strcmp(key, "drop_labels") == 0)
		sp = &t->drop_labels;
	else if (strcmp(key, "keep_labels") == 0)
		sp = &t->keep_labels;
	else if (strcmp(key, "rename_labels") == 0)
		sp = &t->rename_labels;
	if (sp != NULL) {
		if (*sp != NULL)
			return "duplicate key";
		msg = sp == &t->rename_labels ? relabel_check_renames(value) :
		    relabel_check_names(value);
		if (msg != NULL)
			return msg;
		*sp = xstrdup(value);
		return NULL;
	}
	for (k = 0; k < TARGET_NKEYS; k++) {
		if (strcmp(key, target_keys[k]) == 0)
			break;
	}
	if (k == TARGET_NKEYS)
		return "unknown key";
	if (t->seen[k] != 0) {
		snprintf(buf, len, "duplicate key (first at line %d)",
		    t->seen[k]);
		return buf;
	}
	t->seen[k] = line;
	switch (k) {
	case TARGET_COMM:
		sp = &t->comm;
		break;
	case TARGET_EXE:
		sp = &t->exe;
		break;
	case TARGET_CGROUP:
		sp = &t->cgroup;
		break;
	case TARGET_CONTAINER_ID:
		n = strlen(value);
		if (n < 12 || n > 64)
			return "expected 12 to 64 hex digits";
		for (i = 0; i < n; i++) {
			if (!isxdigit((unsigned char)value[i]) ||
			    isupper((unsigned char)value[i]))
				return "expected lower-case hex digits";
		}
		sp = &t->container_id;
		break;
	case TARGET_PID:
		ll = strtoll(value, &end, 10);
		if (*value == '\0' || *end != '\0' || ll < 1 ||
		    ll > 4194304)
			return "expected a process id (1 to 4194304)";
		t->pid = ll;
		return NULL;
	}
	if (*value == '\0')
		return "empty pattern";
	*sp = xstrdup(value);
	return NULL;
}

static void
target_conf_free(struct config *conf)
{
	struct target_conf	*t;
	size_t			 i, j;

	for (i = 0; i < conf->ntargets; i++) {
		t = &conf->targets[i];
		free(t->name);
		free(t->comm);
		free(t->exe);
		free(t->cgroup);
		free(t->container_id);
		free(t->drop_labels);
		free(t->keep_labels);
		free(t->rename_labels);
		for (j = 0; j < t->nlabels; j++) {
			free(t->labels[j].name);
			free(t->labels[j].value);
		}
		free(t->labels);
		free(t->seen);
	}
	free(conf->targets);
	conf->targets = NULL;
	conf->ntargets = 0;
}

static void
target_conf_dump(const struct config *conf, FILE *f)
{
	const struct target_conf	*t;
	size_t				 i, j;

	for (i = 0; i < conf->ntargets; i++) {
		t = &conf->targets[i];
		fprintf(f, "\n[target \"%s\"]\n", t->name);
		if (t->comm != NULL)
			fprintf(f, "comm = %s\n", t->comm);
		if (t->exe != NULL)
			fprintf(f, "exe = %s\n", t->exe);
		if (t->cgroup != NULL)
			fprintf(f, "cgroup = %s\n", t->cgroup);
		if (t->container_id != NULL)
			fprintf(f, "container_id = %s\n", t->container_id);
		if (t->pid != 0)
			fprintf(f, "pid = %lld\n", t->pid);
		for (j = 0; j < t->nlabels; j++)
			fprintf(f, "label.%s = %s\n", t->labels[j].name,
			    t->labels[j].value);
		if (t->drop_labels != NULL)
			fprintf(f, "drop_labels = %s\n", t->drop_labels);
		if (t->keep_labels != NULL)
			fprintf(f, "keep_labels = %s\n", t->keep_labels);
		if (t->rename_labels != NULL)
			fprintf(f, "rename_labels = %s\n", t->rename_labels);
	}
}

const struct config_section target_sections = {
	NULL, "target \"", "\"", target_conf_add, target_conf_set,
	target_conf_dump, target_conf_free
};

static int
target_str_equal(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Do two configs have the same targets, in the same order? */
int
target_conf_equal(const struct config *a, const struct config *b)
{
	const struct target_conf	*x, *y;
	size_t				 i, j;

	if (a->ntargets != b->ntargets)
		return 0;
	for (i = 0; i < a->ntargets; i++) {
		x = &a->targets[i];
		y = &b->targets[i];
		if (!target_str_equal(x->name, y->name) ||
		    !target_str_equal(x->comm, y->comm) ||
		    !target_str_equal(x->exe, y->exe) ||
		    !target_str_equal(x->cgroup, y->cgroup) ||
		    !target_str_equal(x->container_id, y->container_id) ||
		    !target_str_equal(x->drop_labels, y->drop_labels) ||
		    !target_str_equal(x->keep_labels, y->keep_labels) ||
		    !target_str_equal(x->rename_labels, y->rename_labels) ||
		    x->pid != y->pid || x->nlabels != y->nlabels)
			return 0;
		for (j = 0; j < x->nlabels; j++) {
			if (!target_str_equal(x->labels[j].name,
			    y->labels[j].name) ||
			    !target_str_equal(x->labels[j].value,
			    y->labels[j].value))
				return 0;
		}
	}
	return 1;
}

/*
 * Does any target match on exe?  If none does, the caller need not read
 * /proc/PID/exe (a readlink for every new process it looks at).
 */
int
target_conf_uses_exe(const struct config *conf)
{
	size_t	 i;

	for (i = 0; i < conf->ntargets; i++) {
		if (conf->targets[i].exe != NULL)
			return 1;
	}
	return 0;
}

static int
target_matches(const struct target_conf *t, const struct target_facts *f)
{
	const struct cgroup_info	*cg = f->cg;

	if (t->pid != 0 && t->pid != f->pid)
		return 0;
	if (t->comm != NULL && (f->comm == NULL ||
	    fnmatch(t->comm, f->comm, 0) != 0))
		return 0;
	if (t->exe != NULL && (f->exe == NULL ||
	    fnmatch(t->exe, f->exe, 0) != 0))
		return 0;
	if (t->cgroup != NULL && (cg == NULL ||
	    fnmatch(t->cgroup, cg->path, 0) != 0))
		return 0;
	if (t->container_id != NULL && (cg == NULL ||
	    strncmp(cg->container_id, t->container_id,
	    strlen(t->container_id)) != 0))
		return 0;
	return 1;
}

static void
target_labels_add(struct target_labels *l, const char *name,
    const char *value)
{
	size_t	 i;

	for (i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].name, name) == 0)
			return;		/* the first one set wins */
	}
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n].name = xstrdup(name);
	l->v[l->n].value = xstrdup(value);
	l->n++;
}

/*
 * A comm the daemon could not read stands as "[pid]": never a service
 * name, or every process that exits before it is read becomes a
 * service, a directory and a series of its own.  Nor is an empty one.
 */
static int
target_comm_is_name(const char *comm)
{
	size_t	 n;

	if (comm == NULL || *comm == '\0')
		return 0;
	n = strlen(comm);
	return !(comm[0] == '[' && comm[n - 1] == ']' && n > 2 &&
	    strspn(comm + 1, "0123456789") == n - 2);
}

static void	target_labels_key(struct target_labels *);

static int
target_label_cmp(const void *a, const void *b)
{
	const struct target_label	*x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * The labels of a process, or NULL when targets_only is set and no
 * target takes it.
 */
struct target_labels *
target_labels(const struct config *conf, const struct target_facts *f)
{
	const struct target_conf	*t = NULL;
	const struct cgroup_info	*cg = f->cg;
	const struct container_info	*ct = f->ct;
	struct target_labels		*l;
	char				 shortid[16], *podsvc;
	char				 name[TARGET_NAME_MAX + 1];
	size_t				 i;

	for (i = 0; i < conf->ntargets; i++) {
		if (target_matches(&conf->targets[i], f)) {
			t = &conf->targets[i];
			break;
		}
	}
	if (t == NULL && conf->targets_only)
		return NULL;
	l = xcalloc(1, sizeof(*l));
	if (t != NULL) {
		for (i = 0; i < t->nlabels; i++)
			target_labels_add(l, t->labels[i].name,
			    t->labels[i].value);
		target_labels_add(l, "service_name", t->name);
	} else if (f->self)
		target_labels_add(l, "service_name", TARGET_SELF_SERVICE);
	else if (cg != NULL && cg->unit[0] != '\0')
		target_labels_add(l, "service_name", cg->unit);
	else if (ct != NULL && ct->namespace[0] != '\0') {
		xasprintf(&podsvc, "%s/%s", ct->namespace,
		    ct->name[0] != '\0' ? ct->name : ct->pod);
		target_labels_add(l, "service_name", podsvc);
		free(podsvc);
	} else if (ct != NULL && ct->name[0] != '\0')
		target_labels_add(l, "service_name", ct->name);
	else if (cg != NULL && cg->container_id[0] != '\0') {
		/* The short id docker shows: the first 12 digits. */
		snprintf(shortid, sizeof(shortid), "%.12s", cg->container_id);
		target_labels_add(l, "service_name", shortid);
	} else if (target_comm_is_name(f->comm) && target_name_derive(f->comm,
	    f->argv, f->argvlen, name, sizeof(name)) == 0) {
		target_labels_add(l, "service_name", name);
		l->source = TARGET_SOURCE_COMM;
	} else {
		target_labels_add(l, "service_name", conf->unknown_service);
		l->source = TARGET_SOURCE_NONE;
	}
	if (cg != NULL && cg->container_id[0] != '\0')
		target_labels_add(l, "container_id", cg->container_id);
	if (cg != NULL && cg->pod_uid[0] != '\0')
		target_labels_add(l, "pod_uid", cg->pod_uid);
	if (cg != NULL && cg->qos_class[0] != '\0')
		target_labels_add(l, "qos_class", cg->qos_class);
	/* Alloy's names for them. */
	if (ct != NULL && ct->namespace[0] != '\0')
		target_labels_add(l, "namespace", ct->namespace);
	if (ct != NULL && ct->pod[0] != '\0')
		target_labels_add(l, "pod", ct->pod);
	if (ct != NULL && ct->name[0] != '\0')
		target_labels_add(l, "container", ct->name);
	/* The target's relabeling, then the global one. */
	if (t != NULL)
		relabel_apply(l, t->drop_labels, t->keep_labels,
		    t->rename_labels);
	relabel_apply(l, conf->drop_labels, conf->keep_labels,
	    conf->rename_labels);

	target_labels_key(l);
	return l;
}

/* Sort the labels and make their identity string. */
static void
target_labels_key(struct target_labels *l)
{
	size_t	 i, len;
	char	*p;

	qsort(l->v, l->n, sizeof(*l->v), target_label_cmp);
	for (i = 0, len = 1; i < l->n; i++)
		len += strlen(l->v[i].name) + strlen(l->v[i].value) + 2;
	l->key = p = xmalloc(len);
	for (i = 0; i < l->n; i++) {
		p += sprintf(p, "%s=%s\n", l->v[i].name, l->v[i].value);
		if (strcmp(l->v[i].name, "service_name") == 0)
			l->service = l->v[i].value;
	}
	*p = '\0';
}

struct target_labels *
target_labels_unknown(const struct config *conf)
{
	struct target_labels	*l;

	l = xcalloc(1, sizeof(*l));
	target_labels_add(l, "service_name", conf->unknown_service);
	l->source = TARGET_SOURCE_NONE;
	target_labels_key(l);
	return l;
}

/*
 * [targets] unknown_service: a directory of the output and an
 * application of Pyroscope, so a name, not a path.
 */
const char *
target_service_check(const char *s)
{
	const char	*c;

	if (*s == '\0')
		return "empty service name";
	if (strlen(s) > 128)
		return "service name too long (128 characters at most)";
	if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return "not a service name";
	for (c = s; *c != '\0'; c++) {
		if (*c == '/' || iscntrl((unsigned char)*c))
			return "a service name holds no '/' nor control "
			    "characters";
	}
	return NULL;
}

void
target_labels_free(struct target_labels *l)
{
	size_t	 i;

	if (l == NULL)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].value);
	}
	free(l->v);
	free(l->key);
	free(l);
}

const char *
target_labels_get(const struct target_labels *l, const char *name)
{
	size_t	 i;

	for (i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].name, name) == 0)
			return l->v[i].value;
	}
	return NULL;
}
