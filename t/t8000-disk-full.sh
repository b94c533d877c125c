#!/bin/sh
test_description='a full disk under the output directory

The output directory is a 2 MB tmpfs, filled up, in the daemon'\''s own
mount namespace; SVG flame graphs are on and a round runs every second.
Every profile write fails with ENOSPC: the daemon keeps going, round
after round, and stops cleanly (-v: each failure on a debug line;
t8141 checks the one warning without).  A failing last fflush of
an SVG used to free its names twice and abort the daemon.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq UNSHARE 'unshare -m true'

# daemon_start runs "ebpfspyd": here, in a mount namespace of its own
# where out is a full 2 MB tmpfs.  exec keeps the daemon's pid the one
# daemon_start waits for and signals.
ebpfspyd () {
	exec unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=2m tmpfs out &&
		{ dd if=/dev/zero of=out/fill bs=64k 2>/dev/null; :; } &&
		exec ebpfspyd "$@"' ebpfspyd "$@"
}

test_expect_success ROOT,BPF,UNSHARE 'rounds go on while the disk is full' '
	mkworkload burn b8000 &&
	mkdir out &&
	cat >ebpfspy.conf <<-\EOF &&
	[daemon]
	collect_interval = 1
	[profile]
	sample_rate = 499
	[output]
	svg = yes
	EOF
	daemon_start -v -c ebpfspy.conf -o out &&
	./b8000 -t 4 >burn.out &&
	daemon_wait_log_count "write .*/\.latest\.svg\..*: No space left on device" 3 &&
	daemon_wait_log_count "write .*/\.last-hour\.svg\..*: No space left on device" 3 &&
	daemon_stop &&
	! grep -i "double free\|corrupted\|AddressSanitizer" daemon.log
'

test_expect_success ROOT,BPF,UNSHARE 'nothing was written to the host directory' '
	test_path_is_dir out &&
	test -z "$(ls -A out)"
'

test_done
