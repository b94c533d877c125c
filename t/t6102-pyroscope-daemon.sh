#!/bin/sh
test_description='ebpfspyd pushes to Pyroscope: delivery, outage, restart

The daemon profiles a workload with a round a second and pushes to the
mock server: every profile the files sink writes arrives once, with
the same time; during an outage the rounds wait in the spool, a stop
leaves them there and the next start delivers them; a server that
takes 30 s to answer does not hold the rounds.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-pyroscope.sh"

write_conf () {
	{
		printf '[daemon]\ncollect_interval = 1\n'
		printf '[output]\nfolded = no\nsvg = no\n'
		printf '[pyroscope]\nurl = %s\n' "$MOCK_URL"
		printf 'spool_dir = %s/spool\n' "$TRASH_DIRECTORY"
		printf 'backoff_min = 1\nbackoff_max = 1\n'
		cat
	} >ebpfspy.conf
}

spool_files () {
	ls spool 2>/dev/null | grep -c '\.req$'
}

# "process_cpu<TAB>b6102<TAB>time_nanos" of every pprof file written.
written () {
	for f in out/cpu/b6102/*.pb.gz; do
		test -f "$f" || continue
		t=$(python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" \
		    --summary "$f" | sed -n "s/^time_nanos: //p") || return 1
		printf 'process_cpu\tb6102\t%s\n' "$t"
	done | sort
}

# Every profile of b6102 written to out/ arrived once, and in order.
check_arrived () {
	written >expect &&
	test -s expect &&
	mock_series | awk -F "\t" '$4 == "b6102"' | cut -f 3,4,5 >order &&
	sort order >arrived &&
	test_cmp expect arrived &&
	cut -f 3 order >times &&
	sort -n times >times.sorted &&
	test_cmp times.sorted times
}

workload_start () {
	./b6102 -t 120 >burn.out &
	burn_pid=$!
	workload_wait burn.out
}

test_expect_success ROOT,BPF,PYTHON3 'setup' '
	mkworkload burn b6102 &&
	mock_start &&
	write_conf </dev/null &&
	workload_start
'

test_expect_success ROOT,BPF,PYTHON3 'every round reaches the server once' '
	daemon_start -v -c ebpfspy.conf -o out &&
	wait_until "test \$(mock_log_count \"status.: 200\") -ge 3" &&
	daemon_stop &&
	check_arrived
'

test_expect_success ROOT,BPF,PYTHON3 'an outage: rounds wait in the spool; a stop keeps them' '
	mock_ctl "status 503" &&
	daemon_start -v -c ebpfspy.conf -o out &&
	daemon_wait_log_count "round [0-9]+:" 4 &&
	daemon_stop &&
	test "$(spool_files)" -ge 3 &&
	grep "HTTP 503" "$DAEMON_LOG" &&
	grep "in the spool .*for later" "$DAEMON_LOG"
'

test_expect_success ROOT,BPF,PYTHON3 'the next start delivers them, oldest first' '
	mock_ctl &&
	daemon_start -v -c ebpfspy.conf -o out &&
	wait_until "test \$(spool_files) = 0" &&
	n=$(mock_log_count "status.: 200") &&
	wait_until "test \$(mock_log_count \"status.: 200\") -gt $n" &&
	daemon_stop &&
	test "$(spool_files)" = 0 &&
	check_arrived
'

# One request at a time: the first, held 30 s by the server, keeps the
# others queued, so that nothing may arrive before it is answered
# (with more in flight, the series of services that came since would
# go out beside it and be answered at once).
test_expect_success ROOT,BPF,PYTHON3 'a server that answers after 30 s does not hold rounds' '
	write_conf <<-\EOF &&
	timeout = 60
	max_inflight = 1
	EOF
	: >mock.log &&
	mock_ctl "delay 30" &&
	daemon_start -v -c ebpfspy.conf -o out &&
	daemon_wait_log_count "round [0-9]+:" 2 &&
	mock_ctl &&
	daemon_wait_log_count "round [0-9]+:" 8 &&
	test_must_be_empty mock.log &&
	wait_until "test -s mock.log" 50 &&
	wait_until "test \$(spool_files) = 0" &&
	n=$(mock_log_count "status.: 200") &&
	wait_until "test \$(mock_log_count \"status.: 200\") -gt $n" &&
	daemon_stop &&
	check_arrived
'

test_expect_success ROOT,BPF,PYTHON3 'cleanup' '
	kill $burn_pid &&
	wait $burn_pid;
	mock_stop
'

test_done
