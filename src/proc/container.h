#ifndef EBPFSPY_CONTAINER_H
#define EBPFSPY_CONTAINER_H

#include <time.h>

struct cgroup_info;

#define CONTAINER_NAME_MAX	256

/* A container as its users name it; empty strings where unknown. */
struct container_info {
	char	name[CONTAINER_NAME_MAX];	/* docker/podman name, or the
						   Kubernetes container's */
	char	namespace[CONTAINER_NAME_MAX];	/* Kubernetes */
	char	pod[CONTAINER_NAME_MAX];	/* Kubernetes */
};

struct container_cache;

/*
 * Names of containers from the runtimes' own files under root ("/" on a
 * host; a fixture tree in tests), cached by container id.
 */
struct container_cache *container_cache_create(const char *);
void		 container_cache_free(struct container_cache *);
/* NULL when cg names no container; never fails otherwise. */
const struct container_info *container_lookup(struct container_cache *,
		    const struct cgroup_info *, time_t);
/* Lookups that read files, for tests and the state dump. */
unsigned long	 container_cache_reads(const struct container_cache *);

#endif
