#!/bin/sh
test_description='signals, -t, the pidfile and daemonizing'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"

out=$TRASH_DIRECTORY/out
pidfile=$TRASH_DIRECTORY/ebpfspyd.pid

# A process that is neither gone nor a zombie.
is_alive () {
	test -r "/proc/$1/stat" &&
	! sed -e "s/^.*) \(.\).*$/\1/" "/proc/$1/stat" | grep -q Z
}

# wait_gone PID: wait (up to 30 s) for a process we did not start.
wait_gone () {
	wait_n_=600
	while is_alive "$1"; do
		test $wait_n_ -gt 0 || return 1
		sleep 0.05
		wait_n_=$((wait_n_ - 1))
	done
}

test_expect_success 'setup' '
	# No metrics listener: another test may hold its port, and a
	# daemon that is starting says so on the terminal.
	printf "[daemon]\ncollect_interval = 3600\n[metrics]\nlisten =\n" >ebpfspy.conf
'

test_expect_success ROOT,BPF 'the pidfile holds the pid once ready' '
	daemon_start -c ebpfspy.conf -o "$out" -p "$pidfile" &&
	daemon_pid >expect &&
	test_cmp expect "$pidfile" &&
	test_line_count = 1 "$pidfile" &&
	grep -c "^ready: " "$DAEMON_LOG" >count &&
	echo 1 >expect &&
	test_cmp expect count
'

test_expect_success ROOT,BPF 'SIGUSR1 logs the state and the daemon goes on' '
	daemon_signal USR1 &&
	daemon_wait_log "^state: bpf .*offcpu_long [0-9]+\$" &&
	grep "^state: config $TRASH_DIRECTORY/ebpfspy.conf, uptime [0-9.]*s," \
	    "$DAEMON_LOG" &&
	grep "^state: collect_interval 3600, sample_rate 97, cpu yes," \
	    "$DAEMON_LOG" &&
	grep "^state: bpf samples [0-9]* counted [0-9]*" "$DAEMON_LOG" &&
	daemon_signal USR1 &&
	daemon_wait_log_count "^state: bpf .*offcpu_long" 2
'

test_expect_success ROOT,BPF 'SIGTERM: a final round, exit 0, pidfile removed' '
	# Something to profile.  No round has run yet (collect_interval is
	# an hour): profiles in the output dir come from the final round.
	burn -t 2 >burn.out &&
	find "$out" -type f -name "*.pb.gz" >profiles &&
	test_must_be_empty profiles &&
	daemon_stop &&
	grep "^SIGTERM: stopping after a final round\$" "$DAEMON_LOG" &&
	grep "^exiting\$" "$DAEMON_LOG" &&
	test_path_is_missing "$pidfile" &&
	find "$out" -type f -name "*.pb.gz" >profiles &&
	test -s profiles
'

test_expect_success ROOT,BPF 'SIGINT stops it, even when started ignoring it' '
	# A shell starts background commands with SIGINT ignored; the
	# daemon must handle it all the same.
	saved_traps=$(trap) &&
	trap "" INT &&
	daemon_start -c ebpfspy.conf -o "$out"
	started=$?
	eval "$saved_traps" &&
	test $started = 0 &&
	daemon_signal INT &&
	daemon_wait_exit &&
	grep "^SIGINT: stopping after a final round\$" "$DAEMON_LOG" &&
	grep "^exiting\$" "$DAEMON_LOG"
'

test_expect_success ROOT,BPF '-t 2 runs two seconds and exits 0 by itself' '
	daemon_start -c ebpfspy.conf -o "$out" -t 2 -p "$pidfile" &&
	test_path_is_file "$pidfile" &&
	daemon_wait_exit 20 &&
	grep "^run time over: stopping after a final round\$" "$DAEMON_LOG" &&
	test_path_is_missing "$pidfile"
'

test_expect_success ROOT,BPF 'rounds run every collect_interval' '
	printf "[daemon]\ncollect_interval = 1\n" >fast.conf &&
	daemon_start -c fast.conf -o "$out" &&
	test_when_finished "daemon_stop" &&
	# Two rounds take two seconds; poll the state, for a slow machine.
	n=0 &&
	while test $n -lt 120; do
		daemon_signal USR1 &&
		sleep 0.25 &&
		grep -q "rounds [2-9][0-9]* " "$DAEMON_LOG" && break
		n=$((n + 1))
	done &&
	grep "rounds [2-9][0-9]* (0 failed)" "$DAEMON_LOG"
'

test_expect_success ROOT,BPF 'without -d: the parent exits 0 once ready' '
	ebpfspyd -c ebpfspy.conf -o "$out" -p "$pidfile" >out.log 2>&1 &&
	test_must_be_empty out.log &&
	# The pidfile is written before the parent is told.
	test_path_is_file "$pidfile" &&
	pid=$(cat "$pidfile") &&
	test_when_finished "kill $pid 2>/dev/null; wait_gone $pid" &&
	is_alive "$pid" &&
	# A session leader, in /, its stdio on /dev/null.
	sid=$(sed -e "s/^.*) //" "/proc/$pid/stat" | cut -d " " -f 4) &&
	test "$sid" = "$pid" &&
	echo / >expect &&
	readlink "/proc/$pid/cwd" >cwd &&
	test_cmp expect cwd &&
	for fd in 0 1 2; do
		readlink "/proc/$pid/fd/$fd" >"fd$fd" &&
		echo /dev/null >expect &&
		test_cmp expect "fd$fd" || return 1
	done &&
	kill -TERM "$pid" &&
	wait_gone "$pid" &&
	test_path_is_missing "$pidfile"
'

test_expect_success ROOT,BPF 'without -d: a pidfile that cannot be made: exit 1, why' '
	test_expect_code 1 ebpfspyd -c ebpfspy.conf -o "$out" \
	    -p "$TRASH_DIRECTORY/nodir/ebpfspyd.pid" >out.log 2>err.log &&
	test_must_be_empty out.log &&
	echo "ebpfspyd: pidfile $TRASH_DIRECTORY/nodir/ebpfspyd.pid: No such file or directory" >expect &&
	test_cmp expect err.log
'

# Without privileges the BPF programs do not load: run as nobody, where
# nobody can reach the binary under test.
test_lazy_prereq NOBODY '
	test "$(id -u)" = 0 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups ebpfspyd -V
'

test_expect_success NOBODY 'no BPF: a clear error, exit 1, never ready' '
	test_expect_code 1 setpriv --reuid=65534 --regid=65534 \
	    --clear-groups ebpfspyd -d -c ebpfspy.conf -o "$out" >out.log \
	    2>err.log &&
	test_must_be_empty out.log &&
	grep "^needs root, or CAP_BPF and CAP_PERFMON (uid 65534, without CAP_BPF and CAP_PERFMON)\$" err.log &&
	! grep "^ready: " err.log
'

test_expect_success NOBODY 'no BPF, without -d: the parent exits 1' '
	test_expect_code 1 setpriv --reuid=65534 --regid=65534 \
	    --clear-groups ebpfspyd -c ebpfspy.conf -o "$out" >out.log \
	    2>err.log &&
	test_must_be_empty out.log &&
	echo "ebpfspyd: needs root, or CAP_BPF and CAP_PERFMON (uid 65534, without CAP_BPF and CAP_PERFMON)" >expect &&
	test_cmp expect err.log
'

test_done
