/* cgroup_parse against real-world /proc/PID/cgroup contents. */
#include <string.h>

#include "proc/cgroup.h"
#include "tap.h"

#define ID	"3f4e1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"
#define ID2	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

struct row {
	const char	*name;
	const char	*text;
	const char	*path, *unit, *id, *runtime, *pod, *qos;
};

static const struct row rows[] = {
	{ "v2 service", "0::/system.slice/nginx.service\n",
	    "/system.slice/nginx.service", "nginx", "", "", "", "" },
	{ "v2 login session: no unit, one per login",
	    "0::/user.slice/user-0.slice/session-5.scope\n",
	    "/user.slice/user-0.slice/session-5.scope", "", "", "", "", "" },
	{ "v2 lingering session", "0::/user.slice/session-c1.scope\n",
	    "/user.slice/session-c1.scope", "", "", "", "", "" },
	{ "v2 user manager's app scope",
	    "0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
	    "app-editor.scope\n",
	    "/user.slice/user-1000.slice/user@1000.service/app.slice/"
	    "app-editor.scope", "app-editor", "", "", "", "" },
	{ "systemd-run scope: no unit",
	    "0::/system.slice/run-r0123456789abcdef0123456789abcdef.scope\n",
	    "/system.slice/run-r0123456789abcdef0123456789abcdef.scope", "",
	    "", "", "", "" },
	{ "systemd-run service: no unit",
	    "0::/system.slice/run-u42.service\n",
	    "/system.slice/run-u42.service", "", "", "", "", "" },
	{ "systemd-run, newer names: no unit",
	    "0::/system.slice/run-p1234-i5678.service\n",
	    "/system.slice/run-p1234-i5678.service", "", "", "", "", "" },
	{ "a unit a user named run-something is one",
	    "0::/system.slice/run-backup.service\n",
	    "/system.slice/run-backup.service", "run-backup", "", "", "", "" },
	{ "nor is session-less a session",
	    "0::/system.slice/session-manager.service\n",
	    "/system.slice/session-manager.service", "session-manager", "", "",
	    "", "" },
	{ "v2 root", "0::/\n", "/", "", "", "", "", "" },
	{ "v2 docker", "0::/system.slice/docker-" ID ".scope\n",
	    "/system.slice/docker-" ID ".scope", "", ID, "docker", "", "" },
	{ "v2 podman", "0::/machine.slice/libpod-" ID ".scope/container\n",
	    "/machine.slice/libpod-" ID ".scope/container", "", ID, "podman",
	    "", "" },
	{ "v2 podman conmon",
	    "0::/machine.slice/libpod-conmon-" ID ".scope\n",
	    "/machine.slice/libpod-conmon-" ID ".scope", "", "", "", "", "" },
	{ "v2 cri-o",
	    "0::/kubepods.slice/kubepods-besteffort.slice/"
	    "kubepods-besteffort-pod1a2b3c4d_5e6f_7a8b_9c0d_1e2f3a4b5c6d.slice/"
	    "crio-" ID ".scope\n",
	    "/kubepods.slice/kubepods-besteffort.slice/"
	    "kubepods-besteffort-pod1a2b3c4d_5e6f_7a8b_9c0d_1e2f3a4b5c6d.slice/"
	    "crio-" ID ".scope", "", ID, "cri-o",
	    "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d", "besteffort" },
	{ "v2 containerd burstable",
	    "0::/kubepods.slice/kubepods-burstable.slice/"
	    "kubepods-burstable-pod9f8e7d6c_5b4a_3928_1706_f5e4d3c2b1a0.slice/"
	    "cri-containerd-" ID ".scope\n",
	    "/kubepods.slice/kubepods-burstable.slice/"
	    "kubepods-burstable-pod9f8e7d6c_5b4a_3928_1706_f5e4d3c2b1a0.slice/"
	    "cri-containerd-" ID ".scope", "", ID, "containerd",
	    "9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0", "burstable" },
	/*
	 * Seen from a pod of its own cgroup namespace (a DaemonSet on a
	 * cgroup v2 node): another pod's path is relative to ours.
	 */
	{ "v2 containerd, from another cgroup namespace",
	    "0::/../../kubepods-burstable-pod9f8e7d6c_5b4a_3928_1706_"
	    "f5e4d3c2b1a0.slice/cri-containerd-" ID ".scope\n",
	    "/../../kubepods-burstable-pod9f8e7d6c_5b4a_3928_1706_"
	    "f5e4d3c2b1a0.slice/cri-containerd-" ID ".scope", "", ID,
	    "containerd", "9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0",
	    "burstable" },
	{ "v2 containerd guaranteed",
	    "0::/kubepods.slice/"
	    "kubepods-pod11112222_3333_4444_5555_666677778888.slice/"
	    "cri-containerd-" ID ".scope\n",
	    "/kubepods.slice/"
	    "kubepods-pod11112222_3333_4444_5555_666677778888.slice/"
	    "cri-containerd-" ID ".scope", "", ID, "containerd",
	    "11112222-3333-4444-5555-666677778888", "guaranteed" },
	{ "v1 docker cgroupfs",
	    "12:pids:/docker/" ID "\n11:memory:/docker/" ID "\n"
	    "1:name=systemd:/docker/" ID "\n0::/\n",
	    "/docker/" ID, "", ID, "docker", "", "" },
	{ "v1 kubepods cgroupfs",
	    "11:cpu,cpuacct:/kubepods/burstable/"
	    "pod5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/" ID2 "\n"
	    "1:name=systemd:/kubepods/burstable/"
	    "pod5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/" ID2 "\n",
	    "/kubepods/burstable/pod5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/" ID2,
	    "", ID2, "kubernetes", "5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
	    "burstable" },
	{ "v1 kubepods guaranteed",
	    "1:name=systemd:/kubepods/"
	    "pod5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/" ID2 "\n",
	    "/kubepods/pod5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b/" ID2,
	    "", ID2, "kubernetes", "5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
	    "guaranteed" },
	{ "hybrid: v2 at the root, systemd v1 holds the unit",
	    "9:name=systemd:/system.slice/cron.service\n4:memory:/x\n0::/\n",
	    "/system.slice/cron.service", "cron", "", "", "", "" },
	{ "hybrid, all at the root", "9:name=systemd:/\n8:pids:/\n0::/\n",
	    "/", "", "", "", "", "" },
	{ "garbage", "no colons here\n::\n3:x\n\n", "/", "", "", "", "", "" },
	{ "short id is no container", "0::/docker/abc123\n", "/docker/abc123",
	    "", "", "", "", "" },
	{ "upper-case id is no container",
	    "0::/docker/3F4E1B2C9A8D7E6F5A4B3C2D1E0F9A8B7C6D5E4F3A2B1C0D9E8F7A6B5C4D3E2F\n",
	    "/docker/3F4E1B2C9A8D7E6F5A4B3C2D1E0F9A8B7C6D5E4F3A2B1C0D9E8F7A6B5C4D3E2F",
	    "", "", "", "", "" },
	{ "nested service in a slice",
	    "0::/system.slice/system-getty.slice/getty@tty1.service\n",
	    "/system.slice/system-getty.slice/getty@tty1.service",
	    "getty@tty1", "", "", "", "" },
	{ "no newline at the end", "0::/system.slice/ssh.service",
	    "/system.slice/ssh.service", "ssh", "", "", "", "" },
};

int
main(void)
{
	struct cgroup_info	 ci;
	char			 big[20000];
	size_t			 i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		ok(cgroup_parse(r->text, strlen(r->text), &ci) == 0,
		    "%s: parses", r->name);
		is_str(ci.path, r->path, "%s: path", r->name);
		is_str(ci.unit, r->unit, "%s: unit", r->name);
		is_str(ci.container_id, r->id, "%s: container id", r->name);
		is_str(ci.runtime, r->runtime, "%s: runtime", r->name);
		is_str(ci.pod_uid, r->pod, "%s: pod uid", r->name);
		is_str(ci.qos_class, r->qos, "%s: qos class", r->name);
	}

	/* A path longer than the buffer is cut, not overrun. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "0::/", 4);
	ok(cgroup_parse(big, sizeof(big), &ci) == 0, "huge path parses");
	is_int(strlen(ci.path), CGROUP_PATH_MAX - 1, "huge path is cut");

	/* Binary data. */
	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7919);
	ok(cgroup_parse(big, sizeof(big), &ci) == 0, "binary data parses");

	/* Our own cgroup, read from /proc. */
	ok(cgroup_read(1, &ci) == 0, "read /proc/1/cgroup");
	return done_testing();
}
