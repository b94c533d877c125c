/*
 * Container names from the runtimes' files, in fixture trees laid out
 * as docker, podman, containerd and cri-o (under Kubernetes) lay them
 * out on a host, with cgroup v1 and v2 paths: the names, the labels
 * and service_name that follow, the cache (one read per container, a
 * miss tried again after a minute) and hostile contents.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc/cgroup.h"
#include "proc/container.h"
#include "config.h"
#include "proc/target.h"
#include "util/xmalloc.h"
#include "tap.h"

#define ID1 "3f4e1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define ID2 "aaaa1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define ID3 "bbbb1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define ID4 "cccc1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define ID5 "dddd1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define ID6 "eeee1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define ID7 "ffff1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define ID8 "12341b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define UID1 "0b2f7c3a-1d4e-4f5a-9b6c-7d8e9f0a1b2c"
#define UID1_ "0b2f7c3a_1d4e_4f5a_9b6c_7d8e9f0a1b2c"
#define UID2 "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"

static char	 root[] = "/tmp/t-container.XXXXXX";

/* Write a file under root, making its directories. */
static void
put(const char *rel, const char *text)
{
	char	*path, *p;
	FILE	*f;

	xasprintf(&path, "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			diag("mkdir failed");
		*p = '/';
	}
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) != 0)
		diag("cannot write a fixture");
	free(path);
}

/* The labels of a process in cgroup cgtext, "name=value\n" sorted. */
static char *
labels(struct container_cache *cc, const struct config *conf,
    const char *cgtext, time_t now)
{
	struct cgroup_info	 cg;
	struct target_facts	 f;
	struct target_labels	*l;
	char			*s;

	memset(&f, 0, sizeof(f));
	f.pid = 42;
	f.comm = "app";
	cgroup_parse(cgtext, strlen(cgtext), &cg);
	f.cg = &cg;
	f.ct = container_lookup(cc, &cg, now);
	if ((l = target_labels(conf, &f)) == NULL)
		return xstrdup("(none)");
	s = xstrdup(l->key);
	target_labels_free(l);
	return s;
}

static struct config *
conf_with(const char *text)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf;
	char			*path;

	xasprintf(&path, "%s/ebpfspy.conf", root);
	put("ebpfspy.conf", text);
	conf = config_load(path, 0, &errs);
	free(path);
	return conf;
}

int
main(void)
{
	struct container_cache	*cc;
	struct config		*conf, *tconf;
	char			*s, *cmd, big[2048];
	time_t			 now = 1700000000;
	unsigned long		 reads;

	if (mkdtemp(root) == NULL)
		return 1;
	conf = config_defaults();
	cc = container_cache_create(root);

	/* Docker, cgroup v2 with the systemd driver. */
	put("var/lib/docker/containers/" ID1 "/config.v2.json",
	    "{\"ID\":\"" ID1 "\",\"Name\":\"/web-1\",\"Config\":"
	    "{\"Image\":\"nginx:1.25\",\"Labels\":{\"Name\":\"not this\"}}}");
	s = labels(cc, conf, "0::/system.slice/docker-" ID1 ".scope\n", now);
	is_str(s, "container=web-1\ncontainer_id=" ID1 "\n"
	    "service_name=web-1\n", "docker (v2): named after the container");
	free(s);

	/* Docker, cgroup v1 with the cgroupfs driver. */
	s = labels(cc, conf, "12:pids:/docker/" ID1 "\n"
	    "1:name=systemd:/docker/" ID1 "\n", now);
	is_str(s, "container=web-1\ncontainer_id=" ID1 "\n"
	    "service_name=web-1\n", "docker (v1 cgroupfs): the same");
	free(s);

	/* Podman (rootful), cgroup v2. */
	put("var/lib/containers/storage/overlay-containers/containers.json",
	    "[{\"id\":\"" ID3 "\",\"names\":[\"other\"]},"
	    "{\"id\":\"" ID2 "\",\"names\":[\"db\",\"alias\"],"
	    "\"image\":\"1234\",\"metadata\":\"{\\\"image-name\\\":"
	    "\\\"docker.io/library/postgres:16\\\"}\"}]");
	s = labels(cc, conf, "0::/machine.slice/libpod-" ID2 ".scope\n", now);
	is_str(s, "container=db\ncontainer_id=" ID2 "\nservice_name=db\n",
	    "podman: its first name");
	free(s);

	/* containerd under Kubernetes, systemd driver, two containers. */
	put("var/log/pods/shop_cart-7d9f_" UID1 "/app/0.log", "x");
	put("var/log/pods/shop_cart-7d9f_" UID1 "/sidecar/0.log", "x");
	put("var/log/containers/cart-7d9f_shop_app-" ID3 ".log", "x");
	put("var/log/containers/cart-7d9f_shop_sidecar-" ID4 ".log", "x");
	s = labels(cc, conf, "0::/kubepods.slice/kubepods-burstable.slice/"
	    "kubepods-burstable-pod" UID1_ ".slice/cri-containerd-" ID3
	    ".scope\n", now);
	is_str(s, "container=app\ncontainer_id=" ID3 "\nnamespace=shop\n"
	    "pod=cart-7d9f\npod_uid=" UID1 "\nqos_class=burstable\n"
	    "service_name=shop/app\n",
	    "containerd (Kubernetes, v2): namespace/container");
	free(s);

	/* cri-o, cgroupfs driver (v1): the other container of the pod. */
	s = labels(cc, conf, "11:memory:/kubepods/burstable/pod" UID1 "/"
	    ID4 "\n1:name=systemd:/kubepods/burstable/pod" UID1 "/" ID4
	    "\n", now);
	is_str(s, "container=sidecar\ncontainer_id=" ID4 "\nnamespace=shop\n"
	    "pod=cart-7d9f\npod_uid=" UID1 "\nqos_class=burstable\n"
	    "service_name=shop/sidecar\n",
	    "cri-o (Kubernetes, v1 cgroupfs): the link names the container");
	free(s);

	/* A pod with one container and no /var/log/containers link. */
	put("var/log/pods/kube-system_coredns-5d78_" UID2 "/coredns/0.log",
	    "x");
	s = labels(cc, conf, "0::/kubepods.slice/kubepods-pod"
	    "9a8b7c6d_5e4f_4a3b_8c2d_1e0f9a8b7c6d.slice/crio-" ID5
	    ".scope\n", now);
	ok(strstr(s, "container=coredns\n") != NULL &&
	    strstr(s, "namespace=kube-system\n") != NULL &&
	    strstr(s, "service_name=kube-system/coredns\n") != NULL,
	    "a pod's only container directory names it");
	free(s);

	/* The pod's own cgroup (no container id): the pod's name. */
	s = labels(cc, conf, "0::/kubepods.slice/kubepods-burstable.slice/"
	    "kubepods-burstable-pod" UID1_ ".slice\n", now);
	ok(strstr(s, "service_name=shop/cart-7d9f\n") != NULL &&
	    strstr(s, "container=") == NULL,
	    "a pod's own cgroup: namespace/pod");
	free(s);

	/* Unknown: the short id, looked for again after a minute only. */
	s = labels(cc, conf, "0::/system.slice/docker-" ID6 ".scope\n", now);
	is_str(s, "container_id=" ID6 "\nservice_name=eeee1b2c9a8d\n",
	    "no files: the id's first 12 digits");
	free(s);
	reads = container_cache_reads(cc);
	s = labels(cc, conf, "0::/system.slice/docker-" ID6 ".scope\n",
	    now + 30);
	free(s);
	is_int(container_cache_reads(cc), reads, "a miss is not read again "
	    "within a minute");
	put("var/lib/docker/containers/" ID6 "/config.v2.json",
	    "{\"Name\":\"/late\"}");
	s = labels(cc, conf, "0::/system.slice/docker-" ID6 ".scope\n",
	    now + 61);
	ok(strstr(s, "service_name=late\n") != NULL && container_cache_reads(
	    cc) == reads + 1, "after a minute it is, and found");
	free(s);
	reads = container_cache_reads(cc);
	s = labels(cc, conf, "0::/system.slice/docker-" ID1 ".scope\n",
	    now + 3600);
	free(s);
	is_int(container_cache_reads(cc), reads, "a found name is kept");

	/* Hostile contents: bounded, printable, not JSON. */
	memset(big, 'x', sizeof(big));
	memcpy(big, "{\"Name\":\"/a\\tb\\nc", 17);
	memcpy(big + sizeof(big) - 3, "\"}", 3);
	put("var/lib/docker/containers/" ID7 "/config.v2.json", big);
	s = labels(cc, conf, "0::/system.slice/docker-" ID7 ".scope\n", now);
	ok(strstr(s, "service_name=a_b_cxxx") != NULL &&
	    strlen(strstr(s, "service_name=")) < CONTAINER_NAME_MAX + 20,
	    "control characters replaced, the name cut");
	free(s);
	put("var/lib/docker/containers/" ID8 "/config.v2.json", "{\"Name\":");
	s = labels(cc, conf, "0::/system.slice/docker-" ID8 ".scope\n", now);
	is_str(s, "container_id=" ID8 "\nservice_name=12341b2c9a8d\n",
	    "a broken file: the short id");
	free(s);

	/* A target's own service_name wins. */
	tconf = conf_with("[target \"front\"]\ncomm = app\n");
	s = labels(cc, tconf, "0::/system.slice/docker-" ID1 ".scope\n",
	    now);
	ok(strstr(s, "service_name=front\n") != NULL &&
	    strstr(s, "container=web-1\n") != NULL,
	    "a target names the service; the container label stays");
	free(s);
	config_free(tconf);

	ok(container_lookup(cc, NULL, now) == NULL, "no cgroup: none");

	/* A comm that could not be read ("[pid]") names no service. */
	{
		struct target_facts	 f;
		struct target_labels	*l;

		memset(&f, 0, sizeof(f));
		f.pid = 28916;
		f.comm = "[28916]";
		l = target_labels(conf, &f);
		is_str(l->service, "unknown", "a process known by its pid "
		    "only is the service unknown");
		target_labels_free(l);
		f.comm = "[kworker]";
		l = target_labels(conf, &f);
		is_str(l->service, "[kworker]", "a bracketed name stays");
		target_labels_free(l);
	}
	container_cache_free(cc);
	config_free(conf);
	xasprintf(&cmd, "rm -rf %s", root);
	if (system(cmd) != 0)
		diag("cannot remove the fixture tree");
	free(cmd);
	return done_testing();
}
