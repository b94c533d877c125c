/* /proc/PID/cgroup: the path, systemd unit, container id and pod. */
#include <stdlib.h>
#include <string.h>

#include "proc/cgroup.h"
#include "fuzz.h"

static void
fuzz_cgroup_check(const char *s, size_t size)
{
	if (memchr(s, '\0', size) == NULL)
		abort();	/* every field is a C string */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cgroup_info	 ci;
	size_t			 i;

	memset(&ci, 0xa5, sizeof(ci));
	if (cgroup_parse((const char *)data, len, &ci) == 0) {
		fuzz_cgroup_check(ci.path, sizeof(ci.path));
		fuzz_cgroup_check(ci.unit, sizeof(ci.unit));
		fuzz_cgroup_check(ci.container_id, sizeof(ci.container_id));
		fuzz_cgroup_check(ci.runtime, sizeof(ci.runtime));
		fuzz_cgroup_check(ci.pod_uid, sizeof(ci.pod_uid));
		fuzz_cgroup_check(ci.qos_class, sizeof(ci.qos_class));
		/* A container id is hex, or nothing. */
		for (i = 0; ci.container_id[i] != '\0'; i++)
			if (strchr("0123456789abcdef",
			    ci.container_id[i]) == NULL)
				abort();
	}
	return 0;
}
