/*
 * Containers named as their users name them, without asking any API:
 * the daemon runs on the host and reads the files the runtimes keep
 * there, found through the container id and pod UID that the cgroup
 * path gave (cgroup.c).
 *
 *   docker      /var/lib/docker/containers/<id>/config.v2.json: "Name"
 *               ("/web-1")
 *   podman      /var/lib/containers/storage/overlay-containers/
 *               containers.json: the entry of <id>, its first "names"
 *               (rootful podman only)
 *   Kubernetes  /var/log/pods/<namespace>_<pod>_<uid>/, the kubelet's
 *   (containerd, log directory of the pod, found by its UID; the
 *   cri-o)      container's name from /var/log/containers/
 *               <pod>_<namespace>_<container>-<id>.log, else the pod's
 *               only container directory
 *
 * These are host files, written by root daemons, but their contents
 * come from whoever created the container: sizes are bounded, names
 * made printable and cut at CONTAINER_NAME_MAX.  A lookup reads files
 * once per container; one that found nothing (a container too new to
 * have its files) is tried again after CONTAINER_RETRY seconds.  The
 * cache is bounded: the entry looked at longest ago goes first.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cgroup.h"
#include "container.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define CONTAINER_CACHE_MAX	1024
#define CONTAINER_RETRY		60		/* seconds */
#define CONTAINER_JSON_MAX	(16 << 20)	/* bytes of one file */

struct container_ent {
	char			 key[CGROUP_ID_MAX + 8];
	time_t			 looked;	/* last read of the files */
	time_t			 used;
	int			 found;
	struct container_info	 info;
};

struct container_cache {
	char			*root;
	struct container_ent	*v;
	size_t			 n;
	unsigned long		 reads;
};

struct container_cache *
container_cache_create(const char *root)
{
	struct container_cache	*cc;
	size_t			 len;

	cc = xcalloc(1, sizeof(*cc));
	cc->root = xstrdup(root != NULL ? root : "");
	len = strlen(cc->root);
	while (len > 0 && cc->root[len - 1] == '/')
		cc->root[--len] = '\0';
	cc->v = xcalloc(CONTAINER_CACHE_MAX, sizeof(*cc->v));
	return cc;
}

void
container_cache_free(struct container_cache *cc)
{
	if (cc == NULL)
		return;
	free(cc->v);
	free(cc->root);
	free(cc);
}

unsigned long
container_cache_reads(const struct container_cache *cc)
{
	return cc->reads;
}

/* Copy a name made printable and bounded; "" stays "". */
static void
container_copy(char *dst, const char *s, size_t len)
{
	size_t	 i;

	if (len >= CONTAINER_NAME_MAX)
		len = CONTAINER_NAME_MAX - 1;
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		dst[i] = c <= 0x20 || c >= 0x7f ? '_' : c;
	}
	dst[len] = '\0';
}

/* A whole file of at most CONTAINER_JSON_MAX bytes, parsed. */
static json_object *
container_json(struct container_cache *cc, const char *rel)
{
	struct stat	 sb;
	json_object	*obj = NULL;
	char		*path, *buf = NULL;
	ssize_t		 n;
	size_t		 got = 0;
	int		 fd;

	xasprintf(&path, "%s%s", cc->root, rel);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1) {
		if (errno != ENOENT)
			log_debug("container: open %s: %s", path,
			    strerror(errno));
		goto out;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > CONTAINER_JSON_MAX) {
		log_debug("container: %s: not a file of at most %d bytes",
		    path, CONTAINER_JSON_MAX);
		goto out;
	}
	buf = xmalloc(sb.st_size + 1);
	while (got < (size_t)sb.st_size &&
	    (n = read(fd, buf + got, sb.st_size - got)) > 0)
		got += n;
	buf[got] = '\0';
	if ((obj = json_tokener_parse(buf)) == NULL)
		log_debug("container: %s: not JSON", path);
out:
	if (fd != -1)
		close(fd);
	free(buf);
	free(path);
	return obj;
}

/* A string member of obj, or NULL. */
static const char *
container_json_str(json_object *obj, const char *key)
{
	json_object	*v;

	if (obj == NULL || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int
container_docker(struct container_cache *cc, const char *id,
    struct container_info *ci)
{
	json_object	*obj;
	const char	*name;
	char		*rel;

	xasprintf(&rel, "/var/lib/docker/containers/%s/config.v2.json", id);
	obj = container_json(cc, rel);
	free(rel);
	if (obj == NULL)
		return -1;
	if ((name = container_json_str(obj, "Name")) != NULL) {
		name += *name == '/';
		container_copy(ci->name, name, strlen(name));
	}
	json_object_put(obj);
	return ci->name[0] != '\0' ? 0 : -1;
}

static int
container_podman(struct container_cache *cc, const char *id,
    struct container_info *ci)
{
	json_object	*all, *e, *names;
	const char	*s;
	size_t		 i, n;

	all = container_json(cc,
	    "/var/lib/containers/storage/overlay-containers/containers.json");
	if (all == NULL)
		return -1;
	n = json_object_is_type(all, json_type_array) ?
	    json_object_array_length(all) : 0;
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(all, i);
		if ((s = container_json_str(e, "id")) == NULL ||
		    strcmp(s, id) != 0)
			continue;
		if (json_object_object_get_ex(e, "names", &names) &&
		    json_object_is_type(names, json_type_array) &&
		    json_object_array_length(names) > 0 &&
		    (s = json_object_get_string(json_object_array_get_idx(
		    names, 0))) != NULL)
			container_copy(ci->name, s, strlen(s));
		break;
	}
	json_object_put(all);
	return ci->name[0] != '\0' ? 0 : -1;
}

/*
 * The container's name from the kubelet's /var/log/containers links,
 * <pod>_<namespace>_<container>-<id>.log, else the pod directory's
 * only container directory.
 */
static void
container_k8s_name(struct container_cache *cc, const char *poddir,
    const char *id, struct container_info *ci)
{
	DIR		*d;
	struct dirent	*de;
	char		*path, prefix[2 * CONTAINER_NAME_MAX + 2], suffix[80];
	size_t		 len, plen, slen, n = 0;

	if (*id != '\0') {
		xasprintf(&path, "%s/var/log/containers", cc->root);
		d = opendir(path);
		free(path);
		snprintf(prefix, sizeof(prefix), "%s_%s_", ci->pod,
		    ci->namespace);
		snprintf(suffix, sizeof(suffix), "-%s.log", id);
		plen = strlen(prefix);
		slen = strlen(suffix);
		while (d != NULL && (de = readdir(d)) != NULL) {
			len = strlen(de->d_name);
			if (len <= plen + slen ||
			    strncmp(de->d_name, prefix, plen) != 0 ||
			    strcmp(de->d_name + len - slen, suffix) != 0)
				continue;
			container_copy(ci->name, de->d_name + plen,
			    len - plen - slen);
			break;
		}
		if (d != NULL)
			closedir(d);
		if (ci->name[0] != '\0')
			return;
	}
	xasprintf(&path, "%s/var/log/pods/%s", cc->root, poddir);
	d = opendir(path);
	free(path);
	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		if (n++ == 0)
			container_copy(ci->name, de->d_name,
			    strlen(de->d_name));
	}
	if (d != NULL)
		closedir(d);
	if (n != 1)
		ci->name[0] = '\0';
}

static int
container_k8s(struct container_cache *cc, const struct cgroup_info *cg,
    struct container_info *ci)
{
	DIR		*d;
	struct dirent	*de;
	char		*path, *u1, *u2, *poddir = NULL;
	size_t		 len, ulen = strlen(cg->pod_uid);

	xasprintf(&path, "%s/var/log/pods", cc->root);
	d = opendir(path);
	free(path);
	if (d == NULL)
		return -1;
	/* <namespace>_<pod>_<uid>: neither name may hold a '_'. */
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len <= ulen + 1 || de->d_name[len - ulen - 1] != '_' ||
		    strcmp(de->d_name + len - ulen, cg->pod_uid) != 0)
			continue;
		if ((u1 = strchr(de->d_name, '_')) == NULL ||
		    (u2 = strchr(u1 + 1, '_')) == NULL ||
		    u2 != de->d_name + len - ulen - 1 || u1 == de->d_name ||
		    u2 == u1 + 1)
			continue;
		container_copy(ci->namespace, de->d_name, u1 - de->d_name);
		container_copy(ci->pod, u1 + 1, u2 - u1 - 1);
		poddir = xstrdup(de->d_name);
		break;
	}
	closedir(d);
	if (poddir == NULL)
		return -1;
	container_k8s_name(cc, poddir, cg->container_id, ci);
	free(poddir);
	return 0;
}

static struct container_ent *
container_slot(struct container_cache *cc, const char *key)
{
	struct container_ent	*e, *old = NULL;
	size_t			 i;

	for (i = 0; i < cc->n; i++) {
		if (strcmp(cc->v[i].key, key) == 0)
			return &cc->v[i];
		if (old == NULL || cc->v[i].used < old->used)
			old = &cc->v[i];
	}
	if (cc->n < CONTAINER_CACHE_MAX)
		e = &cc->v[cc->n++];
	else
		e = old;
	memset(e, 0, sizeof(*e));
	snprintf(e->key, sizeof(e->key), "%s", key);
	return e;
}

const struct container_info *
container_lookup(struct container_cache *cc, const struct cgroup_info *cg,
    time_t now)
{
	struct container_ent	*e;
	char			 key[sizeof(e->key)];
	int			 fresh;

	if (cg == NULL || (cg->container_id[0] == '\0' &&
	    cg->pod_uid[0] == '\0'))
		return NULL;
	/* A pod's own cgroup (no container) is known by its UID. */
	if (cg->container_id[0] != '\0')
		snprintf(key, sizeof(key), "%s", cg->container_id);
	else
		snprintf(key, sizeof(key), "pod:%s", cg->pod_uid);
	e = container_slot(cc, key);
	fresh = e->looked == 0;
	e->used = now;
	if (!fresh && (e->found || now - e->looked < CONTAINER_RETRY))
		return &e->info;
	e->looked = now;
	cc->reads++;
	memset(&e->info, 0, sizeof(e->info));
	if (cg->pod_uid[0] != '\0')
		e->found = container_k8s(cc, cg, &e->info) == 0;
	else if (strcmp(cg->runtime, "docker") == 0)
		e->found = container_docker(cc, cg->container_id,
		    &e->info) == 0;
	else if (strcmp(cg->runtime, "podman") == 0)
		e->found = container_podman(cc, cg->container_id,
		    &e->info) == 0;
	return &e->info;
}
