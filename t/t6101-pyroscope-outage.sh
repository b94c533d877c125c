#!/bin/sh
test_description='Pyroscope sink: outages, the spool, restarts, slow servers

The server answers 503, is down, answers 429 with Retry-After, drops
connections or answers after 20 s: no profile is lost or sent twice,
older ones arrive first, rounds go on, and what is pending at a stop
waits in the spool for the next start.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-pyroscope.sh"

if ! test_have_prereq PYTHON3; then
	skip_all='python3 is needed for the mock server'
	test_done
fi

write_conf () {
	{
		echo "[pyroscope]"
		echo "url = $MOCK_URL"
		echo "spool_dir = $TRASH_DIRECTORY/spool"
		echo "backoff_min = 1"
		echo "backoff_max = 1"
		cat
	} >push.conf
}

spool_files () {
	ls spool 2>/dev/null | grep -c '\.req$'
}

# The round starts the driver printed (all its runs so far, in order).
all_starts () {
	sed -n 's/^round [0-9]* start \([0-9]*\) .*/\1/p' driver.all
}

# Every round of driver.all arrived once, for each of the services, and
# for each service in the order of the rounds.
check_all_once () {
	mock_series | cut -f 3,4,5 | sort >arrived &&
	sort -u arrived >arrived.u &&
	test_cmp arrived.u arrived &&
	for s in $(all_starts); do
		for svc in $1; do
			printf 'process_cpu\t%s\t%s\n' "$svc" "$s"
		done
	done | sort >expect &&
	test_cmp expect arrived &&
	check_order "$1"
}

check_order () {
	for svc in $1; do
		mock_series | awk -F "\t" -v s="$svc" '$4 == s { print $5 }' \
		    >order.$svc &&
		sort -n order.$svc >sorted.$svc &&
		test_cmp sorted.$svc order.$svc || return 1
	done
}

driver_keep () {
	cat driver.out >>driver.all
}

test_expect_success 'setup' '
	mock_start &&
	write_conf </dev/null &&
	: >driver.all
'

test_expect_success '503 for a while: everything arrives once, in order' '
	mock_ctl "status 503" &&
	driver_start -c push.conf -i 0.3 -n 2 -t cpu &&
	wait_until "test \$(mock_log_count \"status.: 503\") -ge 3" &&
	wait_until "test \$(driver_rounds) -ge 6" &&
	test "$(spool_files)" -ge 3 &&
	mock_ctl &&
	n=$(driver_rounds) &&
	wait_until "test \$(driver_rounds) -ge $((n + 3))" &&
	wait_until "test \$(spool_files) = 0" &&
	driver_stop &&
	driver_keep &&
	test "$(driver_stat spool_files)" = 0 &&
	test "$(driver_stat dropped)" = 0 &&
	test "$(driver_stat failed)" = 0 &&
	test "$(driver_stat retry)" -ge 3 &&
	grep "HTTP 503" driver.err >said &&
	test_line_count = 1 said &&
	grep "delivering again after" driver.err &&
	check_all_once "svc0 svc1"
'

test_expect_success 'server down, then back on the same port' '
	mock_stop &&
	driver_start -c push.conf -i 0.3 -n 2 -t cpu &&
	wait_until "test \$(driver_rounds) -ge 4" &&
	test "$(spool_files)" -ge 3 &&
	mock_start &&
	n=$(driver_rounds) &&
	wait_until "test \$(driver_rounds) -ge $((n + 2))" &&
	wait_until "test \$(spool_files) = 0" &&
	driver_stop &&
	driver_keep &&
	grep "Connection refused\|Couldn.t connect" driver.err &&
	check_all_once "svc0 svc1"
'

test_expect_success 'connections dropped without an answer: retried' '
	mock_ctl close &&
	driver_start -c push.conf -i 0.3 -n 2 -t cpu &&
	wait_until "test \$(mock_log_count \"closed\") -ge 2" &&
	mock_ctl &&
	wait_until "test \$(spool_files) = 0 && test \$(driver_rounds) -ge 3" &&
	n=$(driver_rounds) &&
	wait_until "test \$(driver_rounds) -gt $n" &&
	driver_stop &&
	driver_keep &&
	check_all_once "svc0 svc1"
'

test_expect_success 'SIGTERM during an outage: all pending is in the spool' '
	mock_ctl "status 503" &&
	driver_start -c push.conf -i 0.3 -n 2 -t cpu &&
	wait_until "test \$(driver_rounds) -ge 4" &&
	driver_stop &&
	driver_keep &&
	rounds=$(driver_rounds) &&
	test "$(driver_stat spool_files)" = "$((2 * rounds))" &&
	test "$(spool_files)" = "$((2 * rounds))" &&
	test "$(driver_stat dropped)" = 0 &&
	grep "in the spool .*for later" driver.err
'

test_expect_success 'the next start replays the spool first' '
	mock_ctl &&
	driver_start -c push.conf -i 0.3 -r 2 -n 2 -t cpu &&
	grep "spool .*: [0-9]* requests, [0-9]* bytes to replay" driver.err &&
	driver_wait_exit &&
	driver_keep &&
	test "$(spool_files)" = 0 &&
	check_all_once "svc0 svc1"
'

test_expect_success '429 with Retry-After: the server decides the wait' '
	mock_ctl "status 429" "retry-after 2" &&
	driver_start -c push.conf -i 0.3 -n 2 -t cpu &&
	wait_until "grep -q \"HTTP 429\" driver.err" &&
	mock_ctl &&
	wait_until "test \$(spool_files) = 0 && grep -q \"delivering again\" driver.err" &&
	driver_stop &&
	driver_keep &&
	grep "HTTP 429: .*retrying in 2.0 s" driver.err &&
	check_all_once "svc0 svc1"
'

test_expect_success 'a redirect keeps the profiles and names where it points' '
	rm -f mock.rec && : >driver.all &&
	mock_ctl "status 307" "location https://pyroscope.example/ingest" &&
	driver_start -c push.conf -i 0.3 -n 2 -t cpu &&
	wait_until "grep -q \"HTTP 307\" driver.err" &&
	grep "HTTP 307: the url redirects to https://pyroscope.example/ingest (redirects are not followed: set \[pyroscope\] url to where it points); retrying" \
	    driver.err &&
	! grep "dropped" driver.err &&
	mock_ctl &&
	wait_until "test \$(spool_files) = 0 && grep -q \"delivering again\" driver.err" &&
	driver_stop &&
	driver_keep &&
	check_all_once "svc0 svc1"
'

# svc1 was not in the last run: check only svc0 from here on.
test_expect_success 'a full spool drops the oldest and counts them' '
	rm -f mock.rec mock.log && : >driver.all &&
	write_conf <<-\EOF &&
	spool_max_bytes = 4096
	EOF
	mock_ctl "status 503" &&
	driver_start -c push.conf -i 0.3 -n 1 -t cpu &&
	wait_until "test \$(driver_rounds) -ge 10" &&
	size=$(cat spool/*.req | wc -c) &&
	test "$size" -le 4096 &&
	mock_ctl &&
	n=$(driver_rounds) &&
	wait_until "test \$(driver_rounds) -ge $((n + 2))" &&
	wait_until "test \$(spool_files) = 0" &&
	driver_stop &&
	driver_keep &&
	grep "full (4096 bytes): dropping the oldest" driver.err >said &&
	test_line_count = 1 said &&
	all_starts >starts &&
	mock_series | cut -f 5 >got &&
	sort -u got >got.u &&
	test_cmp got.u got &&
	missing=$(( $(wc -l <starts) - $(wc -l <got) )) &&
	echo "$missing rounds dropped" &&
	test $missing -ge 2 &&
	tail -n $(wc -l <got) starts >expect &&
	test_cmp expect got &&
	test "$(driver_stat dropped)" = $missing
'

# The driver prints a line per round; while the server sits on a request
# for 20 s, those lines keep coming: the loop is not blocked.
test_expect_success 'a server that answers after 20 s does not hold rounds' '
	rm -f mock.rec mock.log && : >driver.all &&
	write_conf <<-\EOF &&
	timeout = 60
	EOF
	mock_ctl "delay 20" &&
	driver_start -c push.conf -i 1 -n 1 -t cpu &&
	wait_until "test \$(driver_rounds) -ge 2" &&
	mock_ctl &&
	wait_until "test -s mock.log" 40 &&
	wait_until "test \$(spool_files) = 0" &&
	n=$(driver_rounds) &&
	wait_until "test \$(driver_rounds) -gt $n" &&
	driver_stop &&
	driver_keep &&
	first=$(python3 -c "import json; print(int(json.loads(open(\"mock.log\").readline())[\"done\"] * 1e9))") &&
	sed -n "s/^round [0-9]* start [0-9]* end \([0-9]*\) .*/\1/p" \
	    driver.out >ends &&
	during=$(awk -v t=$first "\$1 < t" ends | wc -l) &&
	echo "$during rounds before the first answer" &&
	test $during -ge 10 &&
	check_all_once svc0
'

# The mock refuses profiles older than 3 s (the server's reject-older-than,
# 1 h by default): without max_age the replay after a longer outage is
# refused; with max_age = 2 the old ones are dropped before and counted.
age_outage () {
	rm -f mock.rec mock.log spool/*.req &&
	write_conf <<-EOF &&
	max_age = $1
	EOF
	mock_ctl "status 503" &&
	driver_start -c push.conf -i 0.3 -n 1 -p old -t cpu &&
	wait_until "test \$(driver_rounds) -ge 16" &&
	mock_ctl &&
	wait_until "test \$(spool_files) = 0" &&
	n=$(driver_rounds) &&
	wait_until "test \$(driver_rounds) -ge $((n + 2))" &&
	driver_stop
}

test_expect_success 'after a long outage the server refuses the oldest' '
	mock_stop && MOCK_PORT=0 &&
	mock_start --reject-older-than 3 &&
	age_outage 0 &&
	test "$(mock_log_count "outside of ingestion window")" -ge 3 &&
	test "$(driver_stat expired)" = 0
'

test_expect_success 'max_age: profiles too old are dropped, counted, said once' '
	age_outage 2 &&
	test "$(mock_log_count "outside of ingestion window")" = 0 &&
	expired=$(driver_stat expired) &&
	echo "$expired expired" &&
	test "$expired" -ge 3 &&
	test "$(driver_stat failed)" = 0 &&
	test "$(( $(driver_stat ok) + expired ))" = "$(driver_rounds)" &&
	grep "dropping profiles older than max_age (2 s" driver.err >said &&
	test_line_count = 1 said
'

test_expect_success 'stop the mock' '
	mock_stop
'

test_done
