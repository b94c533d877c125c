#!/bin/sh
test_description='one ebpfspyd a pidfile, an output directory, a spool

The pidfile is locked from start to exit: a second ebpfspyd given the
same pidfile exits 1 with a message naming the first, before it loads
anything, and leaves the first one'"'"'s pidfile alone.  The lock is taken
on pidfile.lock, a file only root opens: nobody holding the pidfile
itself, as flock(1) can with read access, stops no start.  An output
directory is locked too: a second daemon with the same one exits 1 and
says why, and a reload to one another daemon holds keeps the previous
configuration.  A spool directory is locked by the daemon that opened it: a
second daemon with the same spool_dir keeps its undelivered profiles in
memory and says why.'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"

pidfile=$TRASH_DIRECTORY/ebpfspyd.pid
spool=$TRASH_DIRECTORY/spool

test_expect_success 'setup' '
	# Port 9 (discard) is closed here: every push fails and is spooled.
	cat >ebpfspy.conf <<-EOF
	[daemon]
	collect_interval = 1
	[pyroscope]
	url = http://127.0.0.1:9
	spool_dir = $spool
	EOF
'

test_expect_success ROOT,BPF 'the first daemon takes the pidfile and the spool' '
	daemon_start -c ebpfspy.conf -o "$TRASH_DIRECTORY/out1" -p "$pidfile" &&
	daemon_pid >expect &&
	test_cmp expect "$pidfile" &&
	burn -t 2 >/dev/null &&
	test_path_is_file "$spool/.lock"
'

test_expect_success ROOT,BPF 'a second one with the same pidfile exits 1 and says why' '
	test_expect_code 1 ebpfspyd -c ebpfspy.conf -o "$TRASH_DIRECTORY/out2" \
	    -p "$pidfile" >out 2>err &&
	first=$(daemon_pid) &&
	echo "ebpfspyd: another ebpfspyd is running (pid $first, pidfile $pidfile)" \
	    >expect &&
	test_cmp expect err &&
	test_must_be_empty out &&
	echo $first >expect &&
	test_cmp expect "$pidfile" &&
	test_path_is_missing "$TRASH_DIRECTORY/out2"
'

test_expect_success ROOT,BPF 'a second one with the same output directory exits 1' '
	test_expect_code 1 ebpfspyd -d -t 2 -c ebpfspy.conf \
	    -o "$TRASH_DIRECTORY/out1" -p "$TRASH_DIRECTORY/second.pid" \
	    >out 2>err &&
	echo "output directory $TRASH_DIRECTORY/out1: in use by another ebpfspyd" \
	    >expect &&
	test_cmp expect err &&
	daemon_is_alive_ "$(daemon_pid)"
'

test_expect_success ROOT,BPF 'a second one with the same spool does not use it' '
	ebpfspyd -d -v -t 3 -c ebpfspy.conf -o "$TRASH_DIRECTORY/out3" \
	    -p "$TRASH_DIRECTORY/second.pid" >second.log 2>&1 &&
	grep "^spool $spool: in use by another ebpfspyd\$" second.log &&
	daemon_is_alive_ "$(daemon_pid)"
'

test_expect_success ROOT,BPF 'the first stops: pidfile removed; the next start takes it' '
	daemon_stop &&
	test_path_is_missing "$pidfile" &&
	daemon_start -c ebpfspy.conf -o "$TRASH_DIRECTORY/out1" -p "$pidfile" &&
	daemon_pid >expect &&
	test_cmp expect "$pidfile" &&
	daemon_stop
'

test_expect_success ROOT,BPF 'a reload to a directory another daemon holds keeps its own' '
	cat >reload.conf <<-EOF &&
	[output]
	dir = $TRASH_DIRECTORY/mine
	EOF
	daemon_start -c reload.conf &&
	ebpfspyd -c ebpfspy.conf -o "$TRASH_DIRECTORY/theirs" \
	    -p "$TRASH_DIRECTORY/theirs.pid" &&
	test_when_finished "kill \$(cat \"$TRASH_DIRECTORY/theirs.pid\")" &&
	sed "s|/mine\$|/theirs|" reload.conf >new.conf &&
	mv new.conf reload.conf &&
	daemon_signal HUP &&
	daemon_wait_log "reload.conf: \[output\] dir: keeping the previous configuration" &&
	grep "^output directory $TRASH_DIRECTORY/theirs: in use by another ebpfspyd\$" \
	    "$DAEMON_LOG" &&
	daemon_stop
'

# nobody's flock on the pidfile a crashed daemon left: root's start
# must not wait for nobody to let go.
test_lazy_prereq NOBODY '
	test "$(id -u)" = 0 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups flock --version
'

test_atexit 'test -f "$TRASH_DIRECTORY/nobody.pid" &&
	kill "$(cat "$TRASH_DIRECTORY/nobody.pid")" 2>/dev/null; :'

test_expect_success ROOT,BPF,NOBODY 'a pidfile nobody holds stops no start' '
	daemon_start -c ebpfspy.conf -o "$TRASH_DIRECTORY/out1" -p "$pidfile" &&
	kill -KILL "$(daemon_pid)" &&
	test_expect_code 137 daemon_wait_exit &&
	test_path_is_file "$pidfile" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    flock -n "$pidfile" sleep 60 &
	echo $! >nobody.pid &&
	# Held once root cannot take it either.
	n=200 &&
	while flock -n "$pidfile" true; do
		test $n -gt 0 || return 1
		sleep 0.05
		n=$((n - 1))
	done &&
	daemon_start -c ebpfspy.conf -o "$TRASH_DIRECTORY/out1" -p "$pidfile" &&
	daemon_pid >expect &&
	test_cmp expect "$pidfile" &&
	# What is locked is a file nobody cannot open.
	test_must_fail setpriv --reuid=65534 --regid=65534 --clear-groups \
	    flock -n "$pidfile.lock" true &&
	daemon_stop &&
	test_path_is_missing "$pidfile" &&
	test_path_is_missing "$pidfile.lock"
'

test_done
