/*
 * The sched_switch program of off-CPU profiling (bpf/offcpu.bpf.h),
 * loaded only once the configuration turns off-CPU on.
 *
 * Its walk is as long as the on-CPU program's, and the kernel's
 * verifier takes as long over it: loaded with the rest, it was 337 of
 * the 790 ms of CPU a start-up took with off-CPU off (the default),
 * for nothing.  It is a second object of the same skeleton, of which
 * only that program loads, and whose maps are the session's own
 * (bpf_map__reuse_fd): it counts into the same maps and reads the same
 * knobs, .rodata as frozen.  Only the program is kept.  tp_btf where
 * the kernel takes it, else a raw tracepoint.  Once loaded it stays,
 * detached while off-CPU is off.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/profile.skel.h"
#include "util/log.h"
#include "session_int.h"

/*
 * Only its sched_switch program, over the maps of s: a descriptor of
 * the program, or -1.  The object goes once the program is loaded:
 * nothing of it but the program is used after.
 */
static int
session_offcpu_open(struct session *s, int use_btf)
{
	struct profile_bpf	*skel;
	struct bpf_program	*prog, *want;
	struct bpf_map		*map, *ours;
	int			 err, fd = -1;

	if ((skel = profile_bpf__open()) == NULL) {
		log_warn("open BPF skeleton for off-CPU");
		return -1;
	}
	want = use_btf ? skel->progs.offcpu_switch_btf :
	    skel->progs.offcpu_switch_raw;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == want);
	bpf_object__for_each_map(map, skel->obj) {
		ours = bpf_object__find_map_by_name(s->skel->obj,
		    bpf_map__name(map));
		if (ours == NULL) {
			log_warnx("off-CPU: no map %s", bpf_map__name(map));
			goto out;
		}
		if ((err = bpf_map__reuse_fd(map, bpf_map__fd(ours))) != 0) {
			errno = -err;
			log_warn("off-CPU: map %s", bpf_map__name(map));
			goto out;
		}
	}
	if ((err = profile_bpf__load(skel)) != 0)
		errno = -err;
	else if ((fd = fcntl(bpf_program__fd(want), F_DUPFD_CLOEXEC, 0)) ==
	    -1)
		log_warn("off-CPU: dup");
out:
	profile_bpf__destroy(skel);
	return fd;
}

static int
session_offcpu_load(struct session *s)
{
	if (s->offcpu_fd != -1)
		return 0;
	/* EBPFSPY_TEST_FAIL=offcpu_btf: as a kernel without tp_btf. */
	s->use_btf = !session_test_fail("offcpu_btf");
	if (!s->use_btf ||
	    (s->offcpu_fd = session_offcpu_open(s, 1)) == -1) {
		log_debug("tp_btf sched_switch did not load, trying raw_tp");
		s->use_btf = 0;
		s->offcpu_fd = session_offcpu_open(s, 0);
	}
	if (s->offcpu_fd == -1) {
		log_warn("load the off-CPU program");
		return -1;
	}
	return 0;
}

int
session_offcpu_attach(struct session *s)
{
	if (s->offcpu_link != -1)
		return 0;
	if (session_offcpu_load(s) == -1)
		return -1;
	session_maps_offcpu_forget(s);
	/* tp_btf knows its tracepoint from its load; raw_tp is told. */
	s->offcpu_link = bpf_raw_tracepoint_open(s->use_btf ? NULL :
	    "sched_switch", s->offcpu_fd);
	/*
	 * A test hook, for t/t2003: EBPFSPY_TEST_FAIL=offcpu_attach in the
	 * environment of the daemon, which root starts, makes this attach
	 * fail as a kernel that refuses it would.  Not documented.
	 */
	if (s->offcpu_link >= 0 && session_test_fail("offcpu_attach")) {
		close(s->offcpu_link);
		s->offcpu_link = -1;
		errno = EPERM;
	}
	if (s->offcpu_link < 0) {
		s->offcpu_link = -1;
		log_warn("attach off-CPU sched_switch program");
		return -1;
	}
	return 0;
}

void
session_offcpu_detach(struct session *s)
{
	if (s->offcpu_link != -1)
		close(s->offcpu_link);
	s->offcpu_link = -1;
}

void
session_offcpu_close(struct session *s)
{
	session_offcpu_detach(s);
	if (s->offcpu_fd != -1)
		close(s->offcpu_fd);
	s->offcpu_fd = -1;
}
