#!/bin/sh
test_description='per-service series of /metrics: those of a service
without samples for [metrics] service_ttl seconds go, the others stay'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"
. "$TEST_DIRECTORY/lib-profile.sh"

test_lazy_prereq CURL '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version
'

# scrape FILE: /metrics into FILE.
scrape () {
	curl -sS -o "$1" "http://127.0.0.1:$port/metrics"
}

# has_service NAME FILE: FILE holds a series of service NAME.
has_service () {
	grep -q "^ebpfspy_service_frames_total{service_name=\"$1\"," "$2"
}

now () {
	date +%s.%N
}

test_expect_success 'service_ttl is checked' '
	printf "[metrics]\nservice_ttl = -1\n" >bad.conf &&
	test_expect_code 1 ebpfspyd -n -c bad.conf 2>err &&
	grep "bad.conf:2: \[metrics\] service_ttl: -1: out of range" err &&
	: >empty.conf &&
	ebpfspyd -n -v -c empty.conf >dump &&
	grep "^service_ttl = 600[[:space:]]" dump
'

test_expect_success ROOT,BPF,CURL,PYTHON3 'a service gone for service_ttl seconds loses its series' '
	port=$(python3 -c "import socket; s = socket.socket(); \
	    s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	mkworkload burn x6202 &&
	mkworkload burn y6202 &&
	: targets name them, whatever unit the test runs in &&
	cat >ebpfspy.conf <<-EOF &&
	[daemon]
	collect_interval = 1
	[metrics]
	listen = 127.0.0.1:$port
	service_ttl = 3
	[target "x6202"]
	comm = x6202
	[target "y6202"]
	comm = y6202
	EOF
	daemon_start -v -c ebpfspy.conf -o out &&
	{ ./y6202 -t 30 >y.out & } && y=$! &&
	test_when_finished "kill $y; wait $y || :" &&
	./x6202 -t 1.5 >x.out &&
	gone=$(now) &&
	n=$(grep -c "^round [0-9]*:" "$DAEMON_LOG") &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 1)) &&
	scrape m1 &&
	has_service x6202 m1 && has_service y6202 m1 &&
	i=0 &&
	while scrape m2 && has_service x6202 m2; do
		i=$((i + 1)) &&
		test $i -lt 200 || return 1
		sleep 0.1
	done &&
	after=$(python3 -c "print(round($(now) - $gone, 1))") &&
	echo "x6202 series gone $after s after it exited" &&
	python3 -c "import sys; sys.exit(not $after >= 3)" &&
	has_service y6202 m2 &&
	! grep "service_name=\"x6202\"" m2
'

test_done
