#!/bin/sh
test_description='Pyroscope sink: delivery, labels, auth, ingest, rejects

t/helper/pyroscope_driver runs the sink on a libev loop as the daemon
does, with synthetic profiles (svcN, labels pod and host.name), against
t/helper/mock_pyroscope.py, which checks requests as Pyroscope does.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-pyroscope.sh"

if ! test_have_prereq PYTHON3; then
	skip_all='python3 is needed for the mock server'
	test_done
fi

# write_conf [key = value lines...]: [pyroscope] pointing at the mock.
write_conf () {
	{
		echo "[pyroscope]"
		echo "url = $MOCK_URL"
		echo "spool_dir = $TRASH_DIRECTORY/spool"
		cat
	} >push.conf
}

# Each round's profiles arrived once: one line per (type, service,
# round start) for rounds x services x types, no duplicate.
check_once () {
	mock_series | cut -f 3,4,5 | sort >arrived &&
	sort -u arrived >arrived.u &&
	test_cmp arrived.u arrived &&
	sed -n 's/^round [0-9]* start \([0-9]*\) .*/\1/p' driver.out >starts &&
	for s in $(cat starts); do
		for svc in $2; do
			for t in $3; do
				printf '%s\t%s\t%s\n' "$t" "$svc" "$s"
			done
		done
	done | sort >expect &&
	test_line_count = "$1" starts &&
	test_cmp expect arrived
}

test_expect_success 'start the mock, with tenant, basic auth and a header' '
	mock_start --tenant team-a --basic "alice:s3cret" \
	    --header "X-Extra: one"
'

test_expect_success 'every round arrives once, as one request' '
	write_conf <<-\EOF &&
	tenant_id = team-a
	basic_auth_user = alice
	basic_auth_password = s3cret
	headers = X-Extra: one | X-Other: two
	EOF
	driver_start -c push.conf -i 0.2 -r 4 -n 3 -t both &&
	driver_wait_exit &&
	test "$(driver_stat ok)" = 4 &&
	test "$(driver_stat dropped)" = 0 &&
	test "$(driver_stat spool_files)" = 0 &&
	test "$(mock_log_count "\"status\": 200")" = 4 &&
	check_once 4 "svc0 svc1 svc2" "process_cpu offcpu"
'

test_expect_success 'series carry sorted, valid labels and the right types' '
	mock_series | cut -f 3,8 | sort -u >labels &&
	cat >expect <<-\EOF &&
	offcpu	host_name=box,pod=pod-0
	offcpu	host_name=box,pod=pod-1
	offcpu	host_name=box,pod=pod-2
	process_cpu	host_name=box,pod=pod-0
	process_cpu	host_name=box,pod=pod-1
	process_cpu	host_name=box,pod=pod-2
	EOF
	test_cmp expect labels &&
	python3 -c "
import json, sys
for line in open(\"mock.rec\"):
    r = json.loads(line)
    assert r[\"tenant\"] == \"team-a\", r[\"tenant\"]
    assert r[\"user_agent\"].startswith(\"ebpfspy/\"), r[\"user_agent\"]
    for s in r[\"series\"]:
        order = s[\"label_order\"]
        assert order == sorted(order), order
        assert order[0] == \"__name__\", order
        want = {\"process_cpu\": \"cpu/nanoseconds\",
                \"offcpu\": \"offcpu/nanoseconds\"}[s[\"labels\"][\"__name__\"]]
        assert s[\"sample_type\"] == want, s[\"sample_type\"]
        assert len(s[\"id\"]) == 36, s[\"id\"]
"
'

test_expect_success 'a wrong password is rejected: dropped, said once' '
	write_conf <<-\EOF &&
	tenant_id = team-a
	basic_auth_user = alice
	basic_auth_password = wrong
	headers = X-Extra: one
	EOF
	: >mock.log &&
	driver_start -c push.conf -i 0.2 -r 3 -n 2 -t cpu &&
	driver_wait_exit &&
	test "$(mock_log_count "\"status\": 401")" = 3 &&
	test "$(driver_stat failed)" = 3 &&
	test "$(driver_stat retries)" = 0 &&
	test "$(driver_stat dropped)" = 6 &&
	grep "HTTP 401: .*bad basic auth" driver.err >said &&
	test_line_count = 1 said
'

test_expect_success 'a 400 is not retried, logged once with the message' '
	mock_stop && rm -f mock.rec mock.log && MOCK_PORT=0 &&
	mock_start &&
	mock_ctl "status 400" &&
	write_conf </dev/null &&
	driver_start -c push.conf -i 0.2 -r 3 -n 2 -t both &&
	driver_wait_exit &&
	test "$(mock_log_count "\"status\": 400")" = 3 &&
	test "$(mock_log_count "\"n\": ")" = 3 &&
	test "$(driver_stat failed)" = 3 &&
	test "$(driver_stat retry)" = 0 &&
	test "$(driver_stat dropped)" = 12 &&
	grep "HTTP 400: .*simulated 400.*dropped 4 profiles" driver.err >said &&
	test_line_count = 1 said &&
	test_path_is_missing mock.rec
'

test_expect_success 'after a reject, delivery goes on' '
	mock_ctl &&
	driver_start -c push.conf -i 0.2 -r 2 -n 1 -t cpu &&
	driver_wait_exit &&
	test "$(driver_stat ok)" = 2 &&
	check_once 2 svc0 process_cpu
'

test_expect_success 'a bearer token from a file' '
	mock_stop && rm -f mock.rec mock.log && MOCK_PORT=0 &&
	mock_start --bearer tok-123 &&
	printf "tok-123\n" >token &&
	write_conf <<-EOF &&
	bearer_token_file = $TRASH_DIRECTORY/token
	EOF
	driver_start -c push.conf -i 0.2 -r 2 -n 1 -t cpu &&
	driver_wait_exit &&
	test "$(driver_stat ok)" = 2
'

test_expect_success 'large rounds are split into several requests' '
	mock_stop && rm -f mock.rec mock.log && MOCK_PORT=0 &&
	mock_start &&
	write_conf <<-\EOF &&
	max_request_bytes = 65536
	EOF
	driver_start -c push.conf -i 0.5 -r 2 -n 8 -s 1500 -t cpu &&
	driver_wait_exit &&
	requests=$(mock_log_count "\"status\": 200") &&
	echo "$requests requests" &&
	test "$requests" -gt 2 &&
	test "$(driver_stat failed)" = 0 &&
	check_once 2 "svc0 svc1 svc2 svc3 svc4 svc5 svc6 svc7" process_cpu &&
	python3 -c "
import json
several = 0
for line in open(\"mock.rec\"):
    r = json.loads(line)
    if len(r[\"series\"]) > 1:
        several += 1
        assert r[\"bytes\"] < 65536 + 4096, r[\"bytes\"]
assert several > 0
"
'

test_expect_success 'api = ingest: one request per profile, legacy names' '
	rm -f mock.rec mock.log &&
	write_conf <<-\EOF &&
	api = ingest
	EOF
	driver_start -c push.conf -i 0.2 -r 2 -n 2 -t both &&
	driver_wait_exit &&
	test "$(mock_log_count "\"path\": \"/ingest\", .*\"status\": 200")" = 8 &&
	check_once 2 "svc0 svc1" "process_cpu offcpu" &&
	python3 -c "
import json
for line in open(\"mock.rec\"):
    r = json.loads(line)
    s = r[\"series\"][0]
    assert s[\"spy_name\"] == \"ebpfspy\", s
    assert s[\"from\"] <= s[\"until\"], s
    assert s[\"from\"] <= s[\"time_nanos\"] // 10**9 <= s[\"until\"], s
    if s[\"labels\"][\"__name__\"] == \"process_cpu\":
        assert s[\"sample_rate\"] == \"97\", s
    else:
        assert s[\"sample_rate\"] is None, s
"
'

test_expect_success 'off by default; a reload turns it on' '
	rm -f mock.rec mock.log &&
	cat >off.conf <<-EOF &&
	[pyroscope]
	spool_dir = $TRASH_DIRECTORY/spool
	EOF
	write_conf </dev/null &&
	driver_start -c off.conf -i 0.2 -n 1 -t cpu &&
	wait_until "test \$(driver_rounds) -ge 2" &&
	test_path_is_missing mock.log &&
	cp push.conf off.conf &&
	kill -s HUP $driver_pid_ &&
	wait_until "grep -q ^reloaded driver.out" &&
	n=$(driver_rounds) &&
	wait_until "test \$(driver_rounds) -ge $((n + 2))" &&
	driver_stop &&
	test "$(driver_stat ok)" -ge 2 &&
	grep "pushing to $MOCK_URL" driver.err
'

test_expect_success 'a bad url or headers is a config error at its line' '
	cat >bad.conf <<-\EOF &&
	[pyroscope]
	url = ftp://example.com
	headers = Bad Name: x
	EOF
	test_must_fail ebpfspyd -n -c bad.conf 2>err &&
	grep "bad.conf:2: \[pyroscope\] url: ftp://example.com: expected an http:// or https:// URL" err &&
	grep "bad.conf:3: \[pyroscope\] headers: .*invalid character in a header name" err &&
	printf "[pyroscope]\nurl = http://\n" >bad2.conf &&
	test_must_fail ebpfspyd -n -c bad2.conf 2>err &&
	grep "bad2.conf:2: \[pyroscope\] url: http://: no host in URL" err &&
	printf "[pyroscope]\nurl = http://h:4040/x?y\n" >bad3.conf &&
	test_must_fail ebpfspyd -n -c bad3.conf 2>err &&
	grep "query or fragment" err &&
	printf "[pyroscope]\napi = grpc\n" >bad4.conf &&
	test_must_fail ebpfspyd -n -c bad4.conf 2>err &&
	grep "bad4.conf:2: \[pyroscope\] api: grpc: expected one of push ingest" err
'

test_expect_success 'stop the mock' '
	mock_stop
'

test_done
