# lib-daemon.sh: run the ebpfspyd under test in the foreground (-d), in
# the background of a test script.  Source it after test-lib.sh.
#
#   daemon_start [args...]	start `ebpfspyd -d args...', its stdout and
#				stderr to $DAEMON_LOG, and wait for its
#				`ready: ' line
#   daemon_stop			SIGTERM, wait for the exit; returns the
#				daemon's exit status
#   daemon_wait_exit [secs]	wait for the daemon to exit by itself (-t);
#				returns its exit status
#   daemon_signal SIG		send SIG (HUP, USR1, ...)
#   daemon_wait_log 'ERE' [secs]
#				wait until a line of the log matches
#   daemon_wait_log_count 'ERE' N [secs]
#				wait until N lines of the log match
#   daemon_pid			print the daemon's pid
#
# Waits poll every 0.05 s up to $DAEMON_TIMEOUT seconds (30, or
# $EBPFSPY_TEST_TIMEOUT), and fail at once, showing the log, when the
# daemon has exited.  The daemon is killed when the script ends.
#
# A daemon built with ASan and UBSan (make check-sanitized) writes its
# reports to its stderr, the log: each log is searched when its daemon
# has exited or a new one starts, and a report found is copied to
# $TRASH_DIRECTORY/sanitizer.log, which test_done turns into a failed
# test -- also when the tests themselves passed.

DAEMON_LOG=$TRASH_DIRECTORY/daemon.log
DAEMON_TIMEOUT=${EBPFSPY_TEST_TIMEOUT:-30}
daemon_pid_=

# A zombie is dead: it waits for this shell to collect its status.
daemon_is_alive_ () {
	test -n "$1" && test -r "/proc/$1/stat" || return 1
	daemon_state_=$(sed -e 's/^.*) \(.\).*$/\1/' "/proc/$1/stat" \
	    2>/dev/null) || return 1
	test -n "$daemon_state_" && test "$daemon_state_" != Z
}

daemon_show_log_ () {
	echo >&2 "--- $DAEMON_LOG"
	cat >&2 "$DAEMON_LOG"
	echo >&2 "---"
}

# Keep what a sanitizer reported in the log of the last daemon.
daemon_sanitizer_check_ () {
	test -f "$DAEMON_LOG" || return 0
	grep -E -q "$TEST_SANITIZER_ERE" "$DAEMON_LOG" || return 0
	{
		echo "--- $DAEMON_LOG"
		cat "$DAEMON_LOG"
	} >>"$TRASH_DIRECTORY/sanitizer.log"
}

# Collect the exit status of the daemon, known to be dead.
daemon_reap_ () {
	wait "$daemon_pid_"
	daemon_status_=$?
	daemon_pid_=
	daemon_sanitizer_check_
	return $daemon_status_
}

daemon_start () {
	if daemon_is_alive_ "$daemon_pid_"; then
		echo >&2 "daemon_start: ebpfspyd already runs as pid" \
		    "$daemon_pid_"
		return 1
	fi
	# Emptied here, not by the background job: it may not have run yet
	# when we first look, and the log of the last daemon says ready.
	daemon_sanitizer_check_
	: >"$DAEMON_LOG" || return 1
	# No descriptor of the harness may stay open in the daemon.
	ebpfspyd -d "$@" </dev/null >>"$DAEMON_LOG" 2>&1 3>&- 4>&- 5>&- \
	    6>&- 7>&- 8>&- 9>&- &
	daemon_pid_=$!
	daemon_steps_=$((DAEMON_TIMEOUT * 20))
	while test $daemon_steps_ -gt 0; do
		grep -q '^ready: ' "$DAEMON_LOG" && return 0
		if ! daemon_is_alive_ "$daemon_pid_"; then
			grep -q '^ready: ' "$DAEMON_LOG" && return 0
			daemon_reap_
			echo >&2 "daemon_start: ebpfspyd $* exited with" \
			    "status $daemon_status_ before it was ready"
			daemon_show_log_
			return 1
		fi
		sleep 0.05
		daemon_steps_=$((daemon_steps_ - 1))
	done
	echo >&2 "daemon_start: ebpfspyd $* not ready after" \
	    "$DAEMON_TIMEOUT s"
	kill -KILL "$daemon_pid_" 2>/dev/null
	daemon_reap_
	daemon_show_log_
	return 1
}

daemon_pid () {
	test -n "$daemon_pid_" || {
		echo >&2 "daemon_pid: no daemon"
		return 1
	}
	echo "$daemon_pid_"
}

daemon_signal () {
	test -n "$daemon_pid_" || {
		echo >&2 "daemon_signal: no daemon"
		return 1
	}
	kill -s "${1#SIG}" "$daemon_pid_"
}

# daemon_wait_exit [secs]: the daemon's exit status; on a timeout kill it
# and fail.
daemon_wait_exit () {
	test -n "$daemon_pid_" || {
		echo >&2 "daemon_wait_exit: no daemon"
		return 1
	}
	daemon_steps_=$((${1:-$DAEMON_TIMEOUT} * 20))
	while daemon_is_alive_ "$daemon_pid_"; do
		if test $daemon_steps_ -le 0; then
			echo >&2 "daemon_wait_exit: ebpfspyd (pid" \
			    "$daemon_pid_) still runs after" \
			    "${1:-$DAEMON_TIMEOUT} s; killed"
			kill -KILL "$daemon_pid_" 2>/dev/null
			daemon_reap_
			daemon_show_log_
			return 1
		fi
		sleep 0.05
		daemon_steps_=$((daemon_steps_ - 1))
	done
	daemon_reap_
}

daemon_stop () {
	test -n "$daemon_pid_" || {
		echo >&2 "daemon_stop: no daemon"
		return 1
	}
	kill -s TERM "$daemon_pid_" 2>/dev/null
	daemon_wait_exit
}

# daemon_wait_log_count 'ERE' N [secs]: wait until at least N lines of the
# log match.
daemon_wait_log_count () {
	test $# -ge 2 || BUG "daemon_wait_log_count 'ERE' N [secs]"
	daemon_steps_=$((${3:-$DAEMON_TIMEOUT} * 20))
	while :; do
		daemon_n_=$(grep -E -c -e "$1" "$DAEMON_LOG")
		test "${daemon_n_:-0}" -ge "$2" && return 0
		if ! daemon_is_alive_ "$daemon_pid_"; then
			# A last line may have come just before the exit.
			daemon_n_=$(grep -E -c -e "$1" "$DAEMON_LOG")
			test "${daemon_n_:-0}" -ge "$2" && return 0
			echo >&2 "daemon_wait_log: ebpfspyd is not running;" \
			    "$daemon_n_ line(s) match '$1', wanted $2"
			daemon_show_log_
			return 1
		fi
		if test $daemon_steps_ -le 0; then
			echo >&2 "daemon_wait_log: $daemon_n_ line(s) match" \
			    "'$1' after ${3:-$DAEMON_TIMEOUT} s, wanted $2"
			daemon_show_log_
			return 1
		fi
		sleep 0.05
		daemon_steps_=$((daemon_steps_ - 1))
	done
}

daemon_wait_log () {
	test $# -ge 1 || BUG "daemon_wait_log 'ERE' [secs]"
	daemon_wait_log_count "$1" 1 ${2+"$2"}
}

# At exit (in a subshell: no wait), SIGTERM, then SIGKILL.
daemon_kill_ () {
	daemon_is_alive_ "$daemon_pid_" || return 0
	kill -s TERM "$daemon_pid_" 2>/dev/null
	daemon_steps_=200
	while daemon_is_alive_ "$daemon_pid_" && test $daemon_steps_ -gt 0
	do
		sleep 0.05
		daemon_steps_=$((daemon_steps_ - 1))
	done
	kill -s KILL "$daemon_pid_" 2>/dev/null
	daemon_sanitizer_check_
	return 0
}

test_atexit daemon_kill_
