#!/bin/sh
test_description='the metrics listener on a unix socket: root gets the
pages, other users cannot connect (mode 0600); the stale socket of a
dead daemon is replaced at start, anything else at the path is left
alone and refused; a reload moves the socket'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"

# CI (EBPFSPY_REQUIRE_BPF=1) installs curl: there, a missing one fails.
test_lazy_prereq CURL '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version
'
test_lazy_prereq SETPRIV 'setpriv --version && id nobody'

# The pages must be kept from other users by the socket's mode alone:
# its directory lets anyone through.
SOCK=$TRASH_DIRECTORY/run/metrics.sock

write_conf () {
	printf "[daemon]\ncollect_interval = 3600\n[metrics]\nlisten = %s\n" \
	    "$1" >ebpfspy.conf.new &&
	mv ebpfspy.conf.new ebpfspy.conf
}

# get SOCKET PATH FILE: the status code on stdout, the body in FILE.
get () {
	curl -sS -o "$3" -w "%{http_code}" --unix-socket "$1" "http://ebpfspyd$2"
}

as_nobody () {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

test_expect_success 'a unix socket needs an absolute path' '
	write_conf unix:run/metrics.sock &&
	test_expect_code 1 ebpfspyd -n -c ebpfspy.conf 2>err &&
	grep -F "listen: unix:run/metrics.sock: expected unix:/absolute/path" \
	    err &&
	write_conf "unix:$SOCK" &&
	ebpfspyd -n -c ebpfspy.conf
'

test_expect_success ROOT,BPF,CURL 'root gets /metrics on the socket' '
	mkdir -m 0755 run &&
	daemon_start -c ebpfspy.conf -o out &&
	grep "^metrics: listening on unix:$SOCK\$" "$DAEMON_LOG" &&
	test "$(get "$SOCK" /metrics m)" = 200 &&
	grep "^ebpfspy_build_info" m &&
	test "$(get "$SOCK" /debug/state s)" = 200 &&
	grep -F "\"metrics_listen\":\"unix:$SOCK\"" s
'

test_expect_success ROOT,BPF 'the socket is mode 0600, owned by root' '
	test -S "$SOCK" &&
	test "$(stat -c "%a %u" "$SOCK")" = "600 0"
'

test_expect_success ROOT,BPF,CURL,SETPRIV 'nobody cannot connect' '
	as_nobody test -S "$SOCK" &&
	test_must_fail as_nobody curl -sS -o nm --unix-socket "$SOCK" \
	    http://ebpfspyd/metrics 2>err &&
	cat err &&
	test_path_is_missing nm
'

test_expect_success ROOT,BPF,CURL 'a reload moves the socket; the old one goes' '
	sock2=$TRASH_DIRECTORY/run2/m.sock &&
	write_conf "unix:$sock2" &&
	daemon_signal HUP &&
	daemon_wait_log "^metrics: listening on unix:$sock2\$" &&
	test_path_is_missing "$SOCK" &&
	test "$(stat -c %a run2)" = 700 &&
	test "$(get run2/m.sock /metrics m2)" = 200 &&
	write_conf "unix:$SOCK" &&
	daemon_signal HUP &&
	daemon_wait_log_count "^metrics: listening on unix:$SOCK\$" 2 &&
	test_path_is_missing run2/m.sock &&
	test "$(get "$SOCK" /metrics m3)" = 200
'

test_expect_success ROOT,BPF 'the socket goes with the daemon' '
	daemon_stop &&
	test_path_is_missing "$SOCK"
'

test_expect_success ROOT,BPF,CURL,PYTHON3 'a dead daemon'"'"'s socket is replaced' '
	python3 -c "import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$SOCK" &&
	test -S "$SOCK" &&
	daemon_start -c ebpfspy.conf -o out &&
	grep "^metrics: removed the stale socket $SOCK\$" "$DAEMON_LOG" &&
	test "$(get "$SOCK" /metrics m)" = 200 &&
	daemon_stop
'

test_expect_success ROOT,BPF 'a file at the path is never removed' '
	echo precious >"$SOCK" &&
	daemon_start -c ebpfspy.conf -o out &&
	grep -F "metrics: $SOCK exists and is not a socket: not removed" \
	    "$DAEMON_LOG" &&
	! grep "^metrics: listening" "$DAEMON_LOG" &&
	echo precious >expect &&
	test_cmp expect "$SOCK" &&
	daemon_stop &&
	test_cmp expect "$SOCK"
'

test_done
