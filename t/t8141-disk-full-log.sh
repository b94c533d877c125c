#!/bin/sh
test_description='a full disk under the output directory: one line

The output directory is a 2 MB tmpfs, filled up, in the daemon'\''s own
mount namespace (as in t8000); a round runs every second.  While the
disk stays full, the log says so once, not once a failed write; the
failures are counted on /metrics; when space comes back, one line says
so, after ten seconds without a failure.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq UNSHARE 'unshare -m true && nsenter --version'
test_lazy_prereq CURL '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version
'

ebpfspyd () {
	exec unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=2m tmpfs out &&
		{ dd if=/dev/zero of=out/fill bs=64k 2>/dev/null; :; } &&
		exec ebpfspyd "$@"' ebpfspyd "$@"
}

SOCK=$TRASH_DIRECTORY/metrics.sock

# value SAMPLE: its value on /metrics now.
value () {
	curl -sS --unix-socket "$SOCK" http://ebpfspyd/metrics >m &&
	awk -v n="$1" '$1 == n { print $2; found = 1 }
	    END { exit !found }' m
}

rounds () {
	grep -E -c "^round [0-9]+ " "$DAEMON_LOG"
}

test_expect_success ROOT,BPF,UNSHARE,CURL 'six rounds on a full disk' '
	mkworkload burn b8141 &&
	mkdir out &&
	cat >ebpfspy.conf <<-EOF &&
	[daemon]
	collect_interval = 1
	[profile]
	sample_rate = 499
	[output]
	svg = yes
	[metrics]
	listen = unix:$SOCK
	EOF
	daemon_start -c ebpfspy.conf -o out || return 1
	./b8141 -t 7 >burn.out &
	burn=$!
	daemon_wait_log_count "^round [0-9]+ " 6 &&
	wait $burn &&
	n=$(rounds) &&
	failed=$(value ebpfspy_output_disk_full_writes_total) &&
	echo "$n rounds, $failed writes failed" &&
	test "$failed" -ge "$n" &&
	test "$(value ebpfspy_output_disk_full)" = 1
'

test_expect_success ROOT,BPF,UNSHARE 'one line says the disk is full' '
	grep "No space left on device" "$DAEMON_LOG" >full &&
	cat full &&
	test_line_count = 1 full &&
	grep "^output: disk full: .*: No space left on device; until a write succeeds" full
'

test_expect_success ROOT,BPF,UNSHARE,CURL 'space again: one line, the count' '
	nsenter -t "$(daemon_pid)" -m \
	    mount -o remount,size=64m "$TRASH_DIRECTORY/out" &&
	daemon_wait_log "^output: disk no longer full" &&
	n=$(rounds) &&
	daemon_wait_log_count "^round [0-9]+ " $((n + 2)) &&
	grep "^output: disk no longer full" "$DAEMON_LOG" >free &&
	test_line_count = 1 free &&
	test "$(value ebpfspy_output_disk_full)" = 0 &&
	failed=$(value ebpfspy_output_disk_full_writes_total) &&
	grep "; $((failed - 1)) more failed for want of space meanwhile\$" \
	    free &&
	test_line_count = 1 full &&
	daemon_stop
'

test_done
