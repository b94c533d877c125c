/*
 * The cgroup of a process, from /proc/PID/cgroup: its path, the systemd
 * unit it runs in, and the container and Kubernetes pod that the path
 * names.  The runtimes write their ids into the path:
 *
 *   systemd driver  .../docker-<id>.scope        docker
 *                   .../cri-containerd-<id>.scope containerd (CRI)
 *                   .../crio-<id>.scope          cri-o
 *                   .../libpod-<id>.scope        podman
 *   cgroupfs driver /docker/<id>                 docker
 *                   /kubepods/<qos>/pod<uid>/<id> Kubernetes
 *   pods            kubepods-<qos>-pod<uid_with_underscores>.slice
 *
 * A container id is 64 hex digits.  A Kubernetes pod without a QoS
 * level in its path is "guaranteed".  The unit is the innermost
 * x.service or x.scope but those of a login or a systemd-run command.  Monitor scopes (libpod-conmon-,
 * crio-conmon-) are not containers.
 *
 * On cgroup v2 the "0::" line is the path; on v1 (or hybrid, where v2
 * holds nothing) the name=systemd line, else the first with a path.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "proc.h"

static const struct {
	const char	*prefix;
	const char	*runtime;
} cgroup_scopes[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "cri-o" },
	{ "libpod-", "podman" },
};

static int
cgroup_is_id(const char *s, size_t len)
{
	size_t	 i;

	if (len != 64)
		return 0;
	for (i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)s[i]) ||
		    isupper((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

static void
cgroup_copy(char *dst, size_t size, const char *s, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* Does s hold only characters of set, and one at least? */
static int
cgroup_all_of(const char *s, size_t len, const char *set)
{
	size_t	 i;

	for (i = 0; i < len; i++) {
		if (strchr(set, s[i]) == NULL || s[i] == '\0')
			return 0;
	}
	return len > 0;
}

/*
 * Units systemd names after a login or a command, one each: logind's
 * session-<id>.scope and systemd-run's run-r<hex>, run-u<n> and
 * run-p<pid>-i<n>.  Named by them, every ssh login or systemd-run would
 * be a service; they are no service name, and what runs in them is
 * named as outside units (target.c).
 */
static int
cgroup_unit_is_instance(const char *s, size_t len)
{
	const char	*dash;

	/* logind's ids: 5, or c1 for sessions it makes itself. */
	if (len > 8 && memcmp(s, "session-", 8) == 0)
		return cgroup_all_of(s + 8, len - 8, "0123456789") ||
		    (s[8] == 'c' && cgroup_all_of(s + 9, len - 9,
		    "0123456789"));
	if (len < 6 || memcmp(s, "run-", 4) != 0)
		return 0;
	if (s[4] == 'r')
		return cgroup_all_of(s + 5, len - 5, "0123456789abcdef");
	if (s[4] == 'u')
		return cgroup_all_of(s + 5, len - 5, "0123456789");
	if (s[4] == 'p' && (dash = memmem(s + 5, len - 5, "-i", 2)) != NULL)
		return cgroup_all_of(s + 5, dash - s - 5, "0123456789") &&
		    cgroup_all_of(dash + 2, s + len - dash - 2, "0123456789");
	return 0;
}

/* One component of the path: a container, a pod, a unit? */
static void
cgroup_component(struct cgroup_info *ci, const char *s, size_t len,
    int last, int in_kubepods)
{
	size_t	 i, n;
	char	*p;

	/* <prefix><id>.scope */
	if (len > 6 && memcmp(s + len - 6, ".scope", 6) == 0) {
		for (i = 0; i < sizeof(cgroup_scopes) /
		    sizeof(cgroup_scopes[0]); i++) {
			n = strlen(cgroup_scopes[i].prefix);
			if (len == n + 64 + 6 && memcmp(s,
			    cgroup_scopes[i].prefix, n) == 0 &&
			    cgroup_is_id(s + n, 64)) {
				cgroup_copy(ci->container_id,
				    sizeof(ci->container_id), s + n, 64);
				snprintf(ci->runtime, sizeof(ci->runtime), "%s",
				    cgroup_scopes[i].runtime);
				return;
			}
		}
	}
	/* A bare id: cgroupfs driver, docker or Kubernetes. */
	if (cgroup_is_id(s, len)) {
		cgroup_copy(ci->container_id, sizeof(ci->container_id), s, 64);
		if (!in_kubepods)
			snprintf(ci->runtime, sizeof(ci->runtime), "docker");
		return;
	}
	/* kubepods-<qos>-pod<uid>.slice or pod<uid> */
	p = NULL;
	if (in_kubepods && len > 3 && memcmp(s, "pod", 3) == 0)
		p = (char *)s;
	else if (in_kubepods && (p = memmem(s, len, "-pod", 4)) != NULL)
		p++;
	if (p != NULL) {
		const char	*uid = p + 3;
		size_t		 ulen = len - (uid - s);

		if (ulen > 6 && memcmp(uid + ulen - 6, ".slice", 6) == 0)
			ulen -= 6;
		if (ulen >= 32 && ulen < sizeof(ci->pod_uid)) {
			cgroup_copy(ci->pod_uid, sizeof(ci->pod_uid), uid,
			    ulen);
			for (p = ci->pod_uid; *p != '\0'; p++) {
				if (*p == '_')
					*p = '-';
			}
		}
	}
	if (in_kubepods) {
		if (memmem(s, len, "besteffort", 10) != NULL)
			snprintf(ci->qos_class, sizeof(ci->qos_class),
			    "besteffort");
		else if (memmem(s, len, "burstable", 9) != NULL)
			snprintf(ci->qos_class, sizeof(ci->qos_class),
			    "burstable");
	}
	/* The innermost systemd unit: x.service or x.scope. */
	if (len > 8 && memcmp(s + len - 8, ".service", 8) == 0 &&
	    !cgroup_unit_is_instance(s, len - 8))
		cgroup_copy(ci->unit, sizeof(ci->unit), s, len - 8);
	else if (len > 6 && memcmp(s + len - 6, ".scope", 6) == 0 &&
	    !cgroup_unit_is_instance(s, len - 6))
		cgroup_copy(ci->unit, sizeof(ci->unit), s, len - 6);
	(void)last;
}

/* Pick the path to use out of the file's lines. */
static int
cgroup_pick(const char *buf, size_t len, const char **path, size_t *plen)
{
	const char	*line, *end, *c1, *c2, *best = NULL;
	size_t		 blen = 0;
	int		 rank, best_rank = 0;

	for (line = buf; line < buf + len; line = end + 1) {
		if ((end = memchr(line, '\n', buf + len - line)) == NULL)
			end = buf + len;
		if ((c1 = memchr(line, ':', end - line)) == NULL ||
		    (c2 = memchr(c1 + 1, ':', end - c1 - 1)) == NULL ||
		    c2 + 1 >= end || c2[1] != '/')
			continue;
		if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1)
			rank = 3;			/* v2 */
		else if (c2 - c1 - 1 == 12 && memcmp(c1 + 1, "name=systemd",
		    12) == 0)
			rank = 2;
		else
			rank = 1;
		/* A v2 line at the root says nothing on a hybrid system. */
		if (end - c2 - 1 == 1)
			rank = 0;
		if (rank > best_rank) {
			best = c2 + 1;
			blen = end - c2 - 1;
			best_rank = rank;
		}
	}
	if (best == NULL) {
		/* Everything at the root. */
		*path = "/";
		*plen = 1;
		return 0;
	}
	*path = best;
	*plen = blen;
	return 0;
}

int
cgroup_parse(const char *buf, size_t len, struct cgroup_info *ci)
{
	const char	*path, *s, *e;
	size_t		 plen;
	int		 in_kubepods = 0;

	memset(ci, 0, sizeof(*ci));
	if (cgroup_pick(buf, len, &path, &plen) == -1)
		return -1;
	cgroup_copy(ci->path, sizeof(ci->path), path, plen);
	for (s = path; s < path + plen; s = e + 1) {
		if ((e = memchr(s, '/', path + plen - s)) == NULL)
			e = path + plen;
		if (e == s)
			continue;
		if (e - s >= 8 && memcmp(s, "kubepods", 8) == 0)
			in_kubepods = 1;
		/* Monitors of podman and cri-o are not the container. */
		if (!(e - s > 7 && (memmem(s, e - s, "-conmon-", 8) != NULL)))
			cgroup_component(ci, s, e - s, e == path + plen,
			    in_kubepods);
	}
	if (in_kubepods && ci->pod_uid[0] != '\0' && ci->qos_class[0] == '\0')
		snprintf(ci->qos_class, sizeof(ci->qos_class), "guaranteed");
	if (in_kubepods && ci->container_id[0] != '\0' &&
	    ci->runtime[0] == '\0')
		snprintf(ci->runtime, sizeof(ci->runtime), "kubernetes");
	/* A container's scope is the container, not a unit. */
	if (ci->container_id[0] != '\0')
		ci->unit[0] = '\0';
	return 0;
}

int
cgroup_read(int pid, struct cgroup_info *ci)
{
	char	 buf[8192];
	ssize_t	 n;

	if ((n = proc_read_file(pid, "cgroup", buf, sizeof(buf))) < 0) {
		memset(ci, 0, sizeof(*ci));
		return -1;
	}
	return cgroup_parse(buf, n, ci);
}
