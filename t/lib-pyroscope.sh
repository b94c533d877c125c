# lib-pyroscope.sh: a mock Pyroscope server and the sink's driver for the
# t61xx tests.  Source it after test-lib.sh.
#
#   mock_start [args...]	start t/helper/mock_pyroscope.py (PYTHON3)
#				on $MOCK_PORT (0: any; then set), recording
#				to mock.rec, logging to mock.log, control
#				file mock.ctl; sets MOCK_URL
#   mock_stop			stop it (the port stays in $MOCK_PORT)
#   mock_ctl 'line'...		write the control file ("status 503",
#				"delay 20", "retry-after 2", "close");
#				mock_ctl alone: normal service
#   mock_series			the recorded series, one per line:
#				n api name service time_nanos duration
#				total labels (tab-separated)
#   mock_log_count ERE		lines of mock.log matching ERE
#   driver_start [args...]	start t/helper/pyroscope_driver, stdout to
#				driver.out, stderr to driver.err; wait for
#				its "ready"
#   driver_stop			SIGTERM it and wait for its exit
#   driver_wait_exit		wait for it to exit by itself (-r)
#   driver_stat NAME		a figure of its last "stats:" line
#   wait_until 'cmd' [secs]	poll cmd every 0.05 s until it succeeds
#
# Waits give up after $EBPFSPY_TEST_TIMEOUT seconds (60).

PYROSCOPE_TIMEOUT=${EBPFSPY_TEST_TIMEOUT:-60}
MOCK_PORT=${MOCK_PORT:-0}
mock_pid_=
driver_pid_=

wait_until () {
	wait_steps_=$((${2:-$PYROSCOPE_TIMEOUT} * 20))
	until eval "$1"; do
		wait_steps_=$((wait_steps_ - 1))
		if test $wait_steps_ -le 0; then
			echo >&2 "wait_until: '$1' still fails after" \
			    "${2:-$PYROSCOPE_TIMEOUT} s"
			return 1
		fi
		sleep 0.05
	done
}

mock_start () {
	rm -f mock.port
	test -f mock.ctl || : >mock.ctl
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/mock_pyroscope.py" \
	    --port "$MOCK_PORT" --port-file mock.port --record mock.rec \
	    --log mock.log --control mock.ctl "$@" \
	    </dev/null >>mock.out 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	mock_pid_=$!
	wait_until 'test -s mock.port' 10 || {
		cat >&2 mock.out
		return 1
	}
	MOCK_PORT=$(cat mock.port)
	MOCK_URL=http://127.0.0.1:$MOCK_PORT
}

mock_stop () {
	test -n "$mock_pid_" || return 0
	kill "$mock_pid_" 2>/dev/null
	wait "$mock_pid_" 2>/dev/null
	mock_pid_=
	return 0
}

mock_ctl () {
	: >mock.ctl.tmp
	for mock_l_; do
		echo "$mock_l_" >>mock.ctl.tmp
	done
	mv mock.ctl.tmp mock.ctl
}

mock_series () {
	test -f mock.rec || return 0
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/mock_pyroscope.py" --dump \
	    mock.rec
}

mock_log_count () {
	test -f mock.log || { echo 0; return 0; }
	grep -E -c -e "$1" mock.log
}

driver_start () {
	: >driver.out
	: >driver.err
	pyroscope_driver "$@" </dev/null >driver.out 2>driver.err 3>&- \
	    4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
	driver_pid_=$!
	wait_until 'grep -q "^ready" driver.out' 20 || {
		cat >&2 driver.err
		return 1
	}
}

driver_wait_exit () {
	test -n "$driver_pid_" || return 0
	wait "$driver_pid_"
	driver_status_=$?
	driver_pid_=
	return $driver_status_
}

driver_stop () {
	test -n "$driver_pid_" || return 0
	kill -s TERM "$driver_pid_" 2>/dev/null
	driver_wait_exit
}

driver_stat () {
	sed -n 's/^stats: //p' driver.out | tail -1 |
	awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}

driver_rounds () {
	grep -c '^round ' driver.out
}

pyroscope_kill_ () {
	test -n "$driver_pid_" && kill -s KILL "$driver_pid_" 2>/dev/null
	test -n "$mock_pid_" && kill "$mock_pid_" 2>/dev/null
	return 0
}

test_atexit pyroscope_kill_
