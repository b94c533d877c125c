#ifndef EBPFSPY_CGROUP_H
#define EBPFSPY_CGROUP_H

#include <stddef.h>

#define CGROUP_PATH_MAX		1024
#define CGROUP_ID_MAX		65	/* 64 hex digits and a NUL */
#define CGROUP_NAME_MAX		256

/* What /proc/PID/cgroup tells of a process. */
struct cgroup_info {
	char	path[CGROUP_PATH_MAX];		/* v2, else name=systemd */
	char	unit[CGROUP_NAME_MAX];		/* "nginx" of nginx.service */
	char	container_id[CGROUP_ID_MAX];
	char	runtime[16];			/* docker, containerd, ... */
	char	pod_uid[40];			/* Kubernetes pod, dashed */
	char	qos_class[16];			/* guaranteed, burstable, ... */
};

int	cgroup_parse(const char *, size_t, struct cgroup_info *);
int	cgroup_read(int, struct cgroup_info *);

#endif
