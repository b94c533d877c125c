#!/bin/sh
test_description='Pyroscope sink: delivery, labels, auth, ingest, rejects,
one series per request, retries without double counting, global labels

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

test_expect_success 'every round arrives once, one request per series' '
	write_conf <<-\EOF &&
	tenant_id = team-a
	basic_auth_user = alice
	basic_auth_password = s3cret
	headers = X-Extra: one | X-Other: two
	EOF
	driver_start -c push.conf -i 0.2 -r 4 -n 3 -t both &&
	driver_wait_exit &&
	test "$(driver_stat ok)" = 24 &&
	test "$(driver_stat dropped)" = 0 &&
	test "$(driver_stat spool_files)" = 0 &&
	test "$(mock_log_count "\"series\": 1, \"status\": 200")" = 24 &&
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
	test "$(mock_log_count "\"status\": 401")" = 6 &&
	test "$(driver_stat failed)" = 6 &&
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
	test "$(mock_log_count "\"status\": 400")" = 12 &&
	test "$(mock_log_count "\"n\": ")" = 12 &&
	test "$(driver_stat failed)" = 12 &&
	test "$(driver_stat retry)" = 0 &&
	test "$(driver_stat dropped)" = 12 &&
	grep "HTTP 400: .*simulated 400.*dropped 1 profiles" driver.err >said &&
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

test_expect_success 'requests go concurrently, at most max_inflight' '
	mock_stop && rm -f mock.rec mock.log && MOCK_PORT=0 &&
	mock_start &&
	mock_ctl "delay 0.3" &&
	write_conf <<-\EOF &&
	max_inflight = 3
	timeout = 30
	EOF
	driver_start -c push.conf -i 5 -r 1 -n 8 -t cpu &&
	driver_wait_exit &&
	mock_ctl &&
	test "$(driver_stat ok)" = 8 &&
	check_once 1 "svc0 svc1 svc2 svc3 svc4 svc5 svc6 svc7" process_cpu &&
	python3 -c "
import json
ev = []
for line in open(\"mock.log\"):
    e = json.loads(line)
    ev.append((e[\"time\"], 1))
    ev.append((e[\"done\"], -1))
cur = top = 0
for t, d in sorted(ev, key=lambda x: (x[0], x[1])):
    cur += d
    top = max(top, cur)
print(\"at most %d at once\" % top)
assert top == 3, top
"
'

# A series that fails once, in a round of several: retried alone.
retry_once () {
	rm -f mock.rec mock.log &&
	mock_ctl "fail-once svc1 $1" "retry-after 1" &&
	write_conf <<-\EOF &&
	backoff_min = 1
	EOF
	driver_start -c push.conf -i 0.5 -r 6 -n 3 -t both &&
	driver_wait_exit &&
	mock_ctl &&
	test "$(mock_log_count "\"status\": $1")" = 1 &&
	test "$(driver_stat retry)" = 1 &&
	test "$(driver_stat dropped)" = 0 &&
	test "$(driver_stat spool_files)" = 0 &&
	test "$(driver_stat ok)" = 36 &&
	check_once 6 "svc0 svc1 svc2" "process_cpu offcpu"
}

test_expect_success 'a 503 for one series: after the retry, each once' '
	retry_once 503
'

test_expect_success 'a 429 for one series: after the retry, each once' '
	retry_once 429
'

test_expect_success 'global labels go into every series' '
	rm -f mock.rec mock.log &&
	write_conf <<-\EOF &&
	label.cluster = prod-eu
	label.pod = global-pod
	EOF
	driver_start -c push.conf -i 0.2 -r 2 -n 2 -t both &&
	driver_wait_exit &&
	mock_series | cut -f 3,8 | sort -u >labels &&
	cat >expect <<-\EOF &&
	offcpu	cluster=prod-eu,host_name=box,pod=pod-0
	offcpu	cluster=prod-eu,host_name=box,pod=pod-1
	process_cpu	cluster=prod-eu,host_name=box,pod=pod-0
	process_cpu	cluster=prod-eu,host_name=box,pod=pod-1
	EOF
	test_cmp expect labels
'

test_expect_success 'global labels change on reload; a bad one keeps the old' '
	rm -f mock.rec mock.log &&
	write_conf <<-\EOF &&
	label.cluster = one
	EOF
	driver_start -c push.conf -i 0.2 -n 1 -t cpu &&
	wait_until "mock_series | grep -q cluster=one" &&
	write_conf <<-\EOF &&
	label.cluster = two
	EOF
	kill -s HUP $driver_pid_ &&
	wait_until "grep -q ^reloaded driver.out" &&
	wait_until "mock_series | grep -q cluster=two" &&
	write_conf <<-\EOF &&
	label.bad-name = three
	EOF
	kill -s HUP $driver_pid_ &&
	wait_until "grep -q \"label.bad-name: bad label name\" driver.err" &&
	n=$(driver_rounds) &&
	wait_until "test \$(driver_rounds) -ge $((n + 3))" &&
	driver_stop &&
	mock_series | tail -1 | grep cluster=two &&
	! mock_series | grep cluster=three
'

test_expect_success 'api = ingest: name=<service>{labels}, type from pprof' '
	rm -f mock.rec mock.log &&
	write_conf <<-\EOF &&
	api = ingest
	label.cluster = c1
	EOF
	driver_start -c push.conf -i 0.2 -r 2 -n 2 -t both &&
	driver_wait_exit &&
	test "$(mock_log_count "\"path\": \"/ingest\", .*\"status\": 200")" = 8 &&
	grep "name=svc0%7Bcluster%3Dc1%2Chost_name%3Dbox%2Cpod%3Dpod-0%7D&" mock.log &&
	python3 -c "
import json, collections
seen = collections.Counter()
for line in open(\"mock.rec\"):
    r = json.loads(line)
    s = r[\"series\"][0]
    lab = s[\"labels\"]
    # The service as sent, no .cpu/.offcpu suffix; the series name the
    # server guesses from the sample type: off-CPU is process_cpu too.
    assert lab[\"service_name\"] in (\"svc0\", \"svc1\"), lab
    assert lab[\"__name__\"] == \"process_cpu\", lab
    assert lab[\"cluster\"] == \"c1\", lab
    assert lab[\"pyroscope_spy\"] == \"ebpfspy\", lab
    assert s[\"spy_name\"] == \"ebpfspy\", s
    assert s[\"from\"] <= s[\"until\"], s
    assert s[\"from\"] <= s[\"time_nanos\"] // 10**9 <= s[\"until\"], s
    st = s[\"sample_type\"].split(\"/\")[0]
    if st == \"cpu\":
        assert s[\"sample_rate\"] == \"97\", s
    else:
        assert st == \"offcpu\" and s[\"sample_rate\"] is None, s
    seen[(lab[\"service_name\"], st, s[\"time_nanos\"])] += 1
assert len(seen) == 8 and set(seen.values()) == {1}, seen
"
'

# check_trimmed STACKS MIN MAX: each profile of the driver (STACKS stacks
# of 1 .. STACKS samples) arrived with MIN to MAX samples, its total kept.
check_trimmed () {
	python3 -c "
import json, sys
stacks, lo, hi = (int(x) for x in sys.argv[1:])
period = 10**9 // 97
for line in open(\"mock.rec\"):
    s = json.loads(line)[\"series\"][0]
    assert lo <= s[\"samples\"] <= hi, s[\"samples\"]
    assert s[\"total\"] == stacks * (stacks + 1) // 2 * period, s[\"total\"]
    print(\"%d samples kept\" % s[\"samples\"])
" "$@"
}

mock_restart () {
	mock_stop && rm -f mock.rec mock.log && MOCK_PORT=0 &&
	mock_start "$@"
}

test_expect_success 'above the sample limit: rejected whole by the server' '
	mock_restart --max-samples 100 --max-profile-bytes 20000 &&
	write_conf <<-\EOF &&
	max_profile_samples = 0
	max_profile_bytes = 0
	EOF
	driver_start -c push.conf -i 0.2 -r 1 -n 1 -s 300 -t cpu &&
	driver_wait_exit &&
	test "$(mock_log_count "samples count limit")" = 1 &&
	test "$(driver_stat failed)" = 1
'

test_expect_success 'above max_profile_samples: trimmed, the total kept' '
	rm -f mock.rec mock.log &&
	write_conf <<-\EOF &&
	max_profile_samples = 100
	EOF
	driver_start -c push.conf -i 0.2 -r 2 -n 1 -s 300 -t cpu &&
	driver_wait_exit &&
	test "$(mock_log_count "\"status\": 200")" = 2 &&
	test "$(driver_stat trimmed)" = 2 &&
	test "$(driver_stat trimmed_samples)" = 402 &&
	grep "svc0: cpu profile of 300 samples.*201 samples merged into one \"\[other\]\" sample" driver.err >said &&
	test_line_count = 1 said &&
	check_trimmed 300 100 100
'

test_expect_success 'above max_profile_bytes: trimmed to fit' '
	mock_restart --max-profile-bytes 20000 &&
	write_conf <<-\EOF &&
	max_profile_samples = 0
	max_profile_bytes = 20000
	EOF
	driver_start -c push.conf -i 0.2 -r 1 -n 1 -s 3000 -t cpu &&
	driver_wait_exit &&
	test "$(mock_log_count "\"status\": 200")" = 1 &&
	test "$(driver_stat trimmed)" = 1 &&
	check_trimmed 3000 2 2999
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
	grep "bad4.conf:2: \[pyroscope\] api: grpc: expected one of push ingest" err &&
	printf "[pyroscope]\nlabel.ok = 1\nlabel.9x = 2\nlabel.__a = 3\nlabel.ok = 4\nlabel.service_name = 5\nlabel.e =\n" >bad5.conf &&
	test_must_fail ebpfspyd -n -c bad5.conf 2>err &&
	grep "bad5.conf:3: \[pyroscope\] label.9x: bad label name" err &&
	grep "bad5.conf:4: \[pyroscope\] label.__a: label names starting with __ are reserved" err &&
	grep "bad5.conf:5: \[pyroscope\] label.ok: duplicate label" err &&
	grep "bad5.conf:6: \[pyroscope\] label.service_name: service_name is a target" err &&
	grep "bad5.conf:7: \[pyroscope\] label.e: empty value" err &&
	test_line_count = 5 err
'

test_expect_success 'stop the mock' '
	mock_stop
'

test_done
