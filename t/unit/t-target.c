/* Targets: parsing of [target "name"] sections, matching, labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/cgroup.h"
#include "config.h"
#include "proc/target.h"
#include "tap.h"

static char	 path[] = "/tmp/t-target.XXXXXX";

static struct config *
load(const char *text, struct config_errors *errs)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL)
		return NULL;
	fputs(text, f);
	fclose(f);
	memset(errs, 0, sizeof(*errs));
	return config_load(path, 0, errs);
}

static int
has_error(const struct config_errors *e, const char *want)
{
	size_t	 i;

	for (i = 0; i < e->n; i++) {
		if (strstr(e->v[i], want) != NULL)
			return 1;
	}
	for (i = 0; i < e->n; i++)
		printf("# error: %s\n", e->v[i]);
	return 0;
}

static const char *
service_of(const struct config *conf, pid_t pid, const char *comm,
    const char *exe, const char *cgtext)
{
	static char		 buf[256];
	struct cgroup_info	 cg;
	struct target_facts	 f = { pid, comm, exe, &cg };
	struct target_labels	*l;

	cgroup_parse(cgtext, strlen(cgtext), &cg);
	if ((l = target_labels(conf, &f)) == NULL)
		return "(none)";
	snprintf(buf, sizeof(buf), "%s", l->service);
	target_labels_free(l);
	return buf;
}

#define CID "3f4e1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"

int
main(void)
{
	struct config_errors	 errs;
	struct config		*conf;
	struct cgroup_info	 cg;
	struct target_facts	 f;
	struct target_labels	*l;
	const char		*text;
	int			 fd;

	if ((fd = mkstemp(path)) == -1)
		return 1;
	close(fd);

	conf = load(
	    "[targets]\n"
	    "label_pid = yes\n"
	    "[target \"web\"]\n"
	    "comm = nginx*\n"
	    "exe = /usr/sbin/*\n"
	    "label.env = prod\n"
	    "[target \"db\"]\n"
	    "cgroup = /system.slice/postgresql*.service\n"
	    "label.service_name = database\n"
	    "[target \"one\"]\n"
	    "pid = 4242\n"
	    "[target \"box\"]\n"
	    "container_id = 3f4e1b2c9a8d\n"
	    "[target \"any-nginx\"]\n"
	    "comm = nginx*\n", &errs);
	ok(conf != NULL, "a config with five targets loads");
	if (conf == NULL)
		return done_testing();
	is_int(conf->ntargets, 5, "five targets");
	is_str(conf->targets[0].name, "web", "in file order");
	ok(target_conf_uses_exe(conf), "a target matches on exe");
	is_int(conf->label_pid, 1, "[targets] label_pid");

	/* AND of rules: comm and exe. */
	is_str(service_of(conf, 10, "nginx", "/usr/sbin/nginx", "0::/\n"),
	    "web", "comm and exe match: web");
	is_str(service_of(conf, 10, "nginx", "/opt/nginx", "0::/\n"),
	    "any-nginx", "exe does not match: the next target");
	is_str(service_of(conf, 10, "postgres", "/usr/lib/postgresql/15/bin/"
	    "postgres", "0::/system.slice/postgresql@15-main.service\n"),
	    "database", "cgroup glob, label.service_name");
	is_str(service_of(conf, 4242, "anything", NULL, "0::/\n"), "one",
	    "pid");
	is_str(service_of(conf, 7, "app", "/app", "0::/system.slice/docker-"
	    CID ".scope\n"), "box", "container id prefix");
	is_str(service_of(conf, 7, "cron", "/usr/sbin/cron",
	    "0::/system.slice/cron.service\n"), "cron",
	    "default target: the systemd unit");
	is_str(service_of(conf, 7, "app", "/app", "0::/system.slice/"
	    "cri-containerd-0123456789abcdef0123456789abcdef0123456789abcdef"
	    "0123456789abcdef.scope\n"), "0123456789ab",
	    "default target: the container");
	is_str(service_of(conf, 7, "myprog", "/bin/myprog", "0::/\n"),
	    "myprog", "default target: the comm");
	is_str(service_of(conf, 28916, "[28916]", NULL, "0::/\n"),
	    "unknown", "a comm not read is no name: unknown_service");
	is_str(service_of(conf, 28916, "", NULL, "0::/\n"), "unknown",
	    "nor is an empty comm");
	is_str(service_of(conf, 7, "[x]", NULL, "0::/\n"), "[x]",
	    "a comm in brackets that is no pid is a name");
	free(conf->unknown_service);
	conf->unknown_service = strdup("other");
	is_str(service_of(conf, 28916, "[28916]", NULL, "0::/\n"), "other",
	    "[targets] unknown_service names it");
	l = target_labels_unknown(conf);
	is_str(l->key, "service_name=other\n", "the unknown labels");
	ok(l->source == TARGET_SOURCE_NONE, "say they name nothing");
	target_labels_free(l);

	/* Where the name came from: pids_target.c goes to the parent. */
	memset(&f, 0, sizeof(f));
	f.pid = 7;
	f.comm = "rm";
	cgroup_parse("0::/\n", 4, &cg);
	f.cg = &cg;
	l = target_labels(conf, &f);
	ok(l->source == TARGET_SOURCE_COMM, "named by its comm: source comm");
	target_labels_free(l);
	f.comm = "[7]";
	l = target_labels(conf, &f);
	ok(l->source == TARGET_SOURCE_NONE, "not named: source none");
	target_labels_free(l);
	text = "0::/system.slice/cron.service\n";
	cgroup_parse(text, strlen(text), &cg);
	f.comm = "rm";
	l = target_labels(conf, &f);
	ok(l->source == TARGET_SOURCE_NAMED, "named by its unit");
	target_labels_free(l);
	f.comm = "nginx";
	f.exe = "/usr/sbin/nginx";
	l = target_labels(conf, &f);
	ok(l->source == TARGET_SOURCE_NAMED, "named by a target");
	target_labels_free(l);

	/* Labels of a match. */
	text = "0::/kubepods.slice/kubepods-burstable.slice/"
	    "kubepods-burstable-pod11112222_3333_4444_5555_666677778888.slice/"
	    "cri-containerd-" CID ".scope\n";
	cgroup_parse(text, strlen(text), &cg);
	memset(&f, 0, sizeof(f));
	f.pid = 1;
	f.comm = "nginx";
	f.exe = "/usr/sbin/nginx";
	f.cg = &cg;
	l = target_labels(conf, &f);
	ok(l != NULL, "labels of a web process in a pod");
	is_str(target_labels_get(l, "service_name"), "web", "service_name");
	is_str(target_labels_get(l, "env"), "prod", "its own label");
	is_str(target_labels_get(l, "container_id"), CID, "container_id");
	is_str(target_labels_get(l, "pod_uid"),
	    "11112222-3333-4444-5555-666677778888", "pod_uid");
	is_str(target_labels_get(l, "qos_class"), "burstable", "qos_class");
	is_str(l->v[0].name, "container_id", "labels are sorted");
	target_labels_free(l);
	config_free(conf);

	/* targets_only. */
	conf = load("[targets]\ntargets_only = yes\n[target \"x\"]\n"
	    "comm = x\n", &errs);
	ok(conf != NULL, "targets_only loads");
	is_str(service_of(conf, 7, "x", NULL, "0::/\n"), "x", "x is taken");
	is_str(service_of(conf, 7, "y", NULL, "0::/\n"), "(none)",
	    "y is not profiled");
	ok(!target_conf_uses_exe(conf), "no target matches on exe");
	config_free(conf);

	/*
	 * Relabeling: the target's rules, then the global ones; renames,
	 * then keep, then drop; service_name always stays.
	 */
	conf = load("[targets]\ndrop_labels = pod_uid\n"
	    "rename_labels = qos_class=qos\n"
	    "[target \"web\"]\ncomm = nginx\nlabel.env = prod\n"
	    "label.team = a\ndrop_labels = container_id, team\n"
	    "[target \"db\"]\ncomm = pg\nlabel.env = prod\n"
	    "keep_labels = env qos\n"
	    "[target \"ren\"]\ncomm = ren\nlabel.old = 1\nlabel.new = 2\n"
	    "rename_labels = old=new\n", &errs);
	ok(conf != NULL, "relabeling loads");
	text = "0::/kubepods.slice/kubepods-burstable.slice/"
	    "kubepods-burstable-pod11112222_3333_4444_5555_666677778888.slice/"
	    "cri-containerd-" CID ".scope\n";
	cgroup_parse(text, strlen(text), &cg);
	memset(&f, 0, sizeof(f));
	f.pid = 1;
	f.comm = "nginx";
	f.cg = &cg;
	l = target_labels(conf, &f);
	is_str(l->key, "env=prod\nqos=burstable\nservice_name=web\n",
	    "web: its drops and the global drop and rename");
	target_labels_free(l);
	f.comm = "pg";
	l = target_labels(conf, &f);
	is_str(l->key, "env=prod\nservice_name=db\n",
	    "db: keep_labels names qos, the global rename comes after");
	target_labels_free(l);
	f.comm = "ren";
	l = target_labels(conf, &f);
	ok(target_labels_get(l, "old") == NULL, "renamed: the old name goes");
	is_str(target_labels_get(l, "new"), "1",
	    "and its value replaces the label of the new name");
	target_labels_free(l);
	f.comm = "other";
	l = target_labels(conf, &f);
	ok(target_labels_get(l, "container_id") != NULL &&
	    target_labels_get(l, "pod_uid") == NULL &&
	    target_labels_get(l, "qos") != NULL,
	    "the default target: the global rules only");
	target_labels_free(l);
	config_free(conf);
	conf = load("[targets]\ndrop_labels = service_name\n", &errs);
	ok(conf == NULL && has_error(&errs, ":2: [targets] drop_labels: "
	    "service_name: service_name is always kept"),
	    "service_name cannot be dropped");
	config_errors_clear(&errs);
	conf = load("[target \"x\"]\ncomm = x\nrename_labels = a\n", &errs);
	ok(conf == NULL && has_error(&errs, ":3: [target \"x\"] "
	    "rename_labels: expected OLD=NEW"), "a rename without =");
	config_errors_clear(&errs);
	conf = load("[target \"x\"]\ncomm = x\nkeep_labels = a-b\n", &errs);
	ok(conf == NULL && has_error(&errs, "bad label name"),
	    "a bad label name");
	config_errors_clear(&errs);

	/* Errors, each with its line. */
	conf = load("[target \"a\"]\ncomm = a\n[target \"a\"]\n", &errs);
	ok(conf == NULL && has_error(&errs, ":3: [target \"a\"]: duplicate "
	    "target"), "duplicate target");
	config_errors_clear(&errs);
	conf = load("[target \"bad name!\"]\n", &errs);
	ok(conf == NULL && has_error(&errs, ":1: [target \"bad name!\"]: "
	    "bad target name"), "bad target name");
	config_errors_clear(&errs);
	conf = load("[target \"a\"]\nlabel.9x = 1\nlabel.ok_1 = 2\n"
	    "label.__name__ = 3\n", &errs);
	ok(conf == NULL && has_error(&errs, ":2: [target \"a\"] label.9x: "
	    "bad label name"), "bad label name");
	ok(conf == NULL && has_error(&errs, ":4: [target \"a\"] "
	    "label.__name__: label names starting with __ are reserved"),
	    "reserved label name");
	is_int(errs.n, 2, "label.ok_1 is fine");
	config_errors_clear(&errs);
	conf = load("[target \"a\"]\ncomm = a\ncomm = b\nfoo = 1\npid = x\n"
	    "container_id = XYZ\n", &errs);
	ok(conf == NULL && has_error(&errs, ":3: [target \"a\"] comm: "
	    "duplicate key (first at line 2)"), "duplicate key");
	ok(has_error(&errs, ":4: [target \"a\"] foo: unknown key"),
	    "unknown key");
	ok(has_error(&errs, ":5: [target \"a\"] pid: expected a process id"),
	    "bad pid");
	ok(has_error(&errs, ":6: [target \"a\"] container_id: expected 12 "
	    "to 64 hex digits"), "bad container id");
	config_errors_clear(&errs);
	conf = load("cpu = no\n[profile]\n", &errs);
	ok(conf == NULL && has_error(&errs, ":1: key outside a section"),
	    "a key before any section is an error");
	config_errors_clear(&errs);

	unlink(path);
	return done_testing();
}
