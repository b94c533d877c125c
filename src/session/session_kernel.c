/*
 * The kernel floor: what the BPF programs need, probed before they are
 * loaded, so that an old kernel gets one clear message rather than a
 * verifier log.  Features, not version numbers, are probed: distribution
 * kernels carry them back.
 *
 *   ring buffer maps		5.8
 *   bpf_get_current_task_btf	5.11
 *   bpf_task_pt_regs		5.15	(the walker's user registers)
 *   bpf_loop			5.17	(the walker, the Python walker)
 *
 * 5.17 is therefore the floor by version, but the version is not what
 * is judged: a distribution kernel older by number (RHEL 9's 5.14) with
 * bpf_loop carried back runs; see ebpfspyd(8).
 */
#include <sys/utsname.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "session.h"
#include "session_int.h"

#define SESSION_KERNEL_FLOOR	"5.17"

static const struct {
	enum bpf_func_id	 id;
	const char		*name;
	const char		*since;
} session_kernel_helpers[] = {
	{ BPF_FUNC_get_current_task_btf, "bpf_get_current_task_btf", "5.11" },
	{ BPF_FUNC_task_pt_regs, "bpf_task_pt_regs", "5.15" },
	{ BPF_FUNC_loop, "bpf_loop", "5.17" },
};

/*
 * A test asks that a step fail as an older kernel's would, by naming it
 * in EBPFSPY_TEST_FAIL in the environment of the daemon, which root
 * starts: offcpu_attach (t/t2003), offcpu_btf (t/t2002),
 * probe_bpf_loop (t/t0102).  Not documented.
 */
int
session_test_fail(const char *step)
{
	const char	*v;

	return (v = getenv("EBPFSPY_TEST_FAIL")) != NULL &&
	    strcmp(v, step) == 0;
}

int
session_kernel_check(void)
{
	struct utsname	 u;
	const char	*release = "?";
	size_t		 i;
	int		 r;

	if (uname(&u) == 0)
		release = u.release;
	if ((r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL)) <= 0) {
		log_warnx("kernel %s has no BPF ring buffer (Linux 5.8): "
		    "ebpfspyd needs Linux %s or later", release,
		    SESSION_KERNEL_FLOOR);
		return -1;
	}
	for (i = 0; i < sizeof(session_kernel_helpers) /
	    sizeof(session_kernel_helpers[0]); i++) {
		r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT,
		    session_kernel_helpers[i].id, NULL);
		if (r > 0 && !(session_kernel_helpers[i].id == BPF_FUNC_loop &&
		    session_test_fail("probe_bpf_loop")))
			continue;
		log_warnx("kernel %s has no BPF helper %s (Linux %s): "
		    "ebpfspyd needs Linux %s or later", release,
		    session_kernel_helpers[i].name,
		    session_kernel_helpers[i].since, SESSION_KERNEL_FLOOR);
		return -1;
	}
	return 0;
}
