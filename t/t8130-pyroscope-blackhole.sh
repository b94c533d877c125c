#!/bin/sh
test_description='Pyroscope push to a server that never answers

The server accepts and never answers (mock_pyroscope.py with a delay
far beyond the timeout).  The requests of a burst time out together;
the first starts the backoff, the others only join the spool.  The
sink used to name such a request in its log after handing it to the
spool, which had freed it: a use after free, at every burst.

Freed memory is poisoned (glibc'\''s MALLOC_PERTURB_, its cache off), so
that with a plain build the read shows as a request never sent; a
sanitized build (ASan, or valgrind when present) aborts at it.  The
daemon test runs whatever ebpfspyd is first on PATH, sanitized or not.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-pyroscope.sh"

# Not with a sanitized build: ASan and valgrind exclude each other.
test_lazy_prereq VALGRIND '
	valgrind --version &&
	! ldd "$(command -v pyroscope_driver)" | grep -q libasan
'

# Freed chunks filled with 0xa5 and not cached per thread: a request
# read after free has seq 0xa5a5a5a5a5a5a5a5.  ASan ignores both.
poison () {
	MALLOC_PERTURB_=165 GLIBC_TUNABLES=glibc.malloc.tcache_count=0 "$@"
}

# Every "request N: why" line of a retry names a request sent before.
check_named () {
	sed -n 's/.*sending request \([0-9]*\) .*/\1/p' "$1" | sort -u >sent &&
	sed -n 's/.*pyroscope: request \([0-9]*\): .*/\1/p' "$1" |
	    sort -u >named &&
	test -s named &&
	comm -13 sent named >unknown &&
	test_must_be_empty unknown &&
	! grep -E "AddressSanitizer|Invalid (read|write)|uninitialised" "$1"
}

write_conf () {
	{
		cat
		printf '[pyroscope]\nurl = %s\n' "$MOCK_URL"
		printf 'spool_dir = %s/spool\n' "$TRASH_DIRECTORY"
		printf 'timeout = 1\nbackoff_min = 1\nbackoff_max = 1\n'
		printf 'max_inflight = 4\nflush_timeout = 1\n'
	} >push.conf
}

test_expect_success PYTHON3 'start a server that never answers' '
	mock_start &&
	mock_ctl "delay 3600"
'

test_expect_success PYTHON3 'bursts of timeouts: no request read once kept' '
	write_conf </dev/null &&
	poison pyroscope_driver -v -c push.conf -i 0.5 -r 8 -n 4 -t cpu \
	    >driver.out 2>driver.err &&
	check_named driver.err &&
	test "$(driver_stat ok)" = 0 &&
	test "$(driver_stat dropped)" = 0
'

test_expect_success PYTHON3,VALGRIND 'the same under valgrind' '
	rm -rf spool &&
	valgrind -q --error-exitcode=99 pyroscope_driver -v -c push.conf \
	    -i 0.5 -r 8 -n 4 -t cpu >driver.out 2>driver.err &&
	check_named driver.err
'

# Only the first burst has requests side by side: after it the rounds
# wait in the spool and are replayed one at a time (which may not catch
# up under a slow, sanitized build).  So the daemon starts twice, each
# time with an empty spool, for two bursts.  A service has one request
# in flight at a time: three busy services (niced, for the tests beside
# this one) make the first round's burst three requests, two of them
# named when the first has started the backoff.  Before, the burst was
# whatever the machine ran: on a quiet one, a single service.
test_expect_success ROOT,BPF,PYTHON3 'the daemon: a burst of timeouts, twice' '
	write_conf <<-\EOF &&
	[daemon]
	collect_interval = 1
	[output]
	folded = no
	svg = no
	EOF
	mkdir -p out &&
	MALLOC_PERTURB_=165 GLIBC_TUNABLES=glibc.malloc.tcache_count=0 &&
	export MALLOC_PERTURB_ GLIBC_TUNABLES &&
	for b in b8130a b8130b b8130c; do
		cp "$(command -v burn)" $b &&
		{ nice -n 10 ./$b -t 120 >/dev/null & echo $! >>burn.pids; } ||
		return 1
	done &&
	test_when_finished "kill \$(cat burn.pids) 2>/dev/null; :" &&
	for run in 1 2; do
		rm -rf spool &&
		daemon_start -v -c push.conf -o out &&
		daemon_wait_log_count "pyroscope: request [0-9]+: " 2 40 &&
		daemon_stop &&
		check_named "$DAEMON_LOG" || return 1
	done &&
	unset MALLOC_PERTURB_ GLIBC_TUNABLES
'

test_expect_success PYTHON3 'cleanup' '
	mock_stop
'

test_done
