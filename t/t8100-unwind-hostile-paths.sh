#!/bin/sh
test_description='a user who replaces a mapped file'"'"'s path neither
hangs the daemon nor makes it open a file of its choice

An unprivileged process maps a file, unlinks it and puts a FIFO, or a
symbolic link to a file only root may read, at its path, then moves
the end of its mapping to and fro so that /proc/PID/map_files has no
entry of the range the daemon read in its maps.  The unwind side must
not open the path then: an open() of the FIFO blocked the whole daemon
(no rounds, no /metrics, SIGTERM ignored), one through the link opened
the root-only file as root.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-nobody.sh"

rounds () {
	grep -E "^round [0-9]+ done" "$DAEMON_LOG" | wc -l
}

# start: the daemon, killed after the test if it hung.
start () {
	daemon_start -c ebpfspy.conf -o out &&
	test_when_finished "kill -KILL $(daemon_pid) 2>/dev/null || :"
}

# alive_for N: N more rounds, one a second, come in 2 s each at most,
# and /metrics answers between them.
alive_for () {
	n=$(rounds) &&
	daemon_wait_log_count "^round [0-9]+ done" $((n + $1)) $((2 * $1)) &&
	curl -sS --max-time 5 -o metrics.out -w "%{http_code}" \
	    "http://127.0.0.1:$PORT/metrics" >code.out &&
	test "$(cat code.out)" = 200 &&
	grep "^ebpfspy_rounds_total " metrics.out
}

test_expect_success ROOT,NOBODY,PYTHON3 'a directory of the user, a file only root reads' '
	nobody_setup &&
	mkdir -m 700 secret &&
	echo key >secret/key &&
	chmod 600 secret/key &&
	! as_nobody cat secret/key &&
	nobody_conf
'
PORT=$(cat port 2>/dev/null)

# remap MODE NAME [TARGET]: the user's process, for 8 s, in the
# background; its pid in $RPID.
remap () {
	as_nobody cp home/uwremap "home/$2" &&
	(cd home &&
	    as_nobody ./uwremap "$1" "./$2" 8 ${3:+"$3"} >"../$2.ready") &
	RPID=$!
	test_when_finished "kill $RPID 2>/dev/null || :"
	workload_wait "$2.ready"
}

test_expect_success ROOT,BPF,NOBODY,CURL,PYTHON3 'a FIFO at the path: rounds, /metrics and SIGTERM as ever' '
	start &&
	alive_for 2 &&
	remap fifo libfifo.so &&
	alive_for 6 &&
	wait $RPID &&
	alive_for 2 &&
	daemon_stop
'

test_expect_success ROOT,BPF,NOBODY,CURL,PYTHON3 'a link to a root-only file: never opened' '
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/inotify_open.py" \
	    secret/key opens.out >watch.ready &
	WPID=$! &&
	test_when_finished "kill $WPID 2>/dev/null || :" &&
	workload_wait watch.ready &&
	start &&
	remap link liblink.so "$TRASH_DIRECTORY/secret/key" &&
	alive_for 6 &&
	wait $RPID &&
	daemon_stop &&
	kill $WPID && wait $WPID &&
	echo "opens of secret/key: $(cat opens.out)" &&
	test "$(cat opens.out)" = 0
'

test_done
