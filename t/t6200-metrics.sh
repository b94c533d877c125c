#!/bin/sh
test_description='the metrics listener: /metrics and /debug/state of a
profiling daemon agree with what it did; promtool accepts the page;
other paths and methods are refused; a reload moves the listener'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"
. "$TEST_DIRECTORY/lib-profile.sh"

# CI (EBPFSPY_REQUIRE_BPF=1) installs curl and promtool: there, a missing
# one fails the tests that use it instead of skipping them.
test_lazy_prereq CURL '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version
'
test_lazy_prereq PROMTOOL '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || promtool --version
'

# free_port: a loopback TCP port nobody listens on now.
free_port () {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# write_conf INTERVAL LISTEN: the whole configuration, renamed into place
# so that the daemon's inotify watch sees one complete file.
write_conf () {
	printf "[daemon]\ncollect_interval = %s\n[metrics]\nlisten = %s\n" \
	    "$1" "$2" >ebpfspy.conf.new &&
	mv ebpfspy.conf.new ebpfspy.conf
}

# fetch PORT PATH FILE [curl options]: the status code on stdout, the
# body in FILE, the headers in FILE.head.
fetch () {
	fetch_port_=$1 fetch_path_=$2 fetch_out_=$3
	shift 3
	curl -sS -o "$fetch_out_" -D "$fetch_out_.head" -w "%{http_code}" \
	    "$@" "http://127.0.0.1:$fetch_port_$fetch_path_"
}

# value SAMPLE FILE: the value of the sample line "SAMPLE value".
value () {
	awk -v n="$1" '$1 == n { print $2; found = 1 } END { exit !found }' \
	    "$2"
}

# json_get FILE KEY.KEY...: a value of a JSON document.
json_get () {
	python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k]
print(json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None
    else v)' "$1" "$2"
}

rounds_logged () {
	grep -E -c "^round [0-9]+:" "$DAEMON_LOG"
}

test_expect_success 'a bad listen address is a configuration error' '
	printf "[metrics]\nlisten = 127.0.0.1\n" >bad.conf &&
	test_expect_code 1 ebpfspyd -n -c bad.conf >n.out 2>err &&
	echo "bad.conf:2: [metrics] listen: 127.0.0.1: expected host:port" \
	    >expect &&
	test_cmp expect err &&
	printf "[metrics]\nlisten = [::1]:99999\n" >bad.conf &&
	test_expect_code 1 ebpfspyd -n -c bad.conf 2>err &&
	grep "listen: \[::1\]:99999: bad port" err &&
	printf "[metrics]\nlisten =\n" >off.conf &&
	ebpfspyd -n -c off.conf
'

test_expect_success ROOT,BPF,CURL,PYTHON3 'start with rounds every second' '
	port=$(free_port) &&
	mkworkload burn b6200 &&
	write_conf 1 "127.0.0.1:$port" &&
	daemon_start -v -c ebpfspy.conf -o out &&
	grep "^metrics: listening on 127.0.0.1:$port\$" "$DAEMON_LOG" &&
	test "$(fetch $port /metrics m0)" = 200 &&
	grep -F "Content-Type: text/plain; version=0.0.4; charset=utf-8" \
	    m0.head
'

test_expect_success ROOT,BPF,CURL,PYTHON3 'the rounds counter follows the rounds logged' '
	daemon_wait_log_count "^round [0-9]+:" 2 &&
	before=$(rounds_logged) &&
	test "$(fetch $port /metrics m1)" = 200 &&
	after=$(rounds_logged) &&
	n=$(value ebpfspy_rounds_total m1) &&
	echo "logged $before..$after, counter $n" &&
	test "$before" -ge 2 && test "$n" -ge "$before" &&
	test "$n" -le "$after" &&
	test "$(value ebpfspy_round_duration_seconds_count m1)" = "$n"
'

test_expect_success ROOT,BPF,CURL,PYTHON3 'a CPU workload is counted' '
	./b6200 -t 2 >burn.out &&
	n=$(rounds_logged) &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 1)) &&
	test "$(fetch $port /metrics m2)" = 200 &&
	cpu=$(value "ebpfspy_samples_total{type=\"cpu\"}" m2) &&
	bpf=$(value ebpfspy_bpf_samples_total m2) &&
	alive=$(value "ebpfspy_pids{state=\"alive\"}" m2) &&
	echo "samples $cpu of $bpf, $alive pids alive" &&
	test "$cpu" -gt 0 && test "$bpf" -ge "$cpu" && test "$alive" -gt 0 &&
	test "$(value "ebpfspy_frames_total{result=\"named\"}" m2)" -gt 0 &&
	test "$(value "ebpfspy_service_frames_total{service_name=\"b6200\",result=\"known\"}" m2)" -gt 0 &&
	test "$(value "ebpfspy_cache_entries{cache=\"symbol_tables\"}" m2)" \
	    -gt 0 &&
	ls out/cpu/b6200/*.folded
'

# Rounds stop (collect_interval = 3600): from then on the counters can
# be compared with the log and the files exactly.
test_expect_success ROOT,BPF,CURL,PYTHON3 'with rounds stopped, the counters equal what was done' '
	write_conf 3600 "127.0.0.1:$port" &&
	daemon_wait_log_count "^(reloaded |reload failed)" 1 &&
	grep "^reloaded " "$DAEMON_LOG" &&
	test "$(fetch $port /metrics m3)" = 200 &&
	test "$(fetch $port /debug/state s3)" = 200 &&
	n=$(rounds_logged) &&
	test "$(value ebpfspy_rounds_total m3)" = "$n" &&
	last=$(sed -n "s/^round \([0-9]*\):.*/\1/p" "$DAEMON_LOG" | tail -n 1) &&
	test "$last" = "$n" &&
	test "$(json_get s3 last_round.number)" = "$n" &&
	test "$(value ebpfspy_reloads_total m3)" = 1 &&
	cat out/cpu/*/*.folded | awk "{ s += \$NF } END { print s }" >folded &&
	value "ebpfspy_samples_total{type=\"cpu\"}" m3 >counted &&
	test_cmp folded counted
'

test_expect_success ROOT,BPF,CURL,PYTHON3 '/debug/state is valid JSON with the state' '
	python3 -m json.tool s3 >/dev/null &&
	grep -F "Content-Type: application/json" s3.head &&
	test "$(json_get s3 pids.alive)" -gt 0 &&
	test "$(json_get s3 config.metrics_listen)" = "127.0.0.1:$port" &&
	test "$(json_get s3 config.collect_interval)" = 3600 &&
	test "$(json_get s3 bpf.maps.pid_config.max_entries)" = 32768 &&
	test "$(json_get s3 bpf.maps.counts.max_entries)" = 65536 &&
	e=$(json_get s3 bpf.maps.pid_config.entries) &&
	test "$e" -gt 0 && test "$e" -le 32768 &&
	test "$(json_get s3 bpf.counters.samples)" -gt 0 &&
	test "$(json_get s3 caches.symbol_tables.entries)" -gt 0 &&
	test "$(json_get s3 caches.stacks.entries)" -gt 0 &&
	rss=$(json_get s3 memory.resident_bytes) &&
	heap=$(json_get s3 memory.heap.in_use_bytes) &&
	echo "resident $rss, heap in use $heap" &&
	test "$rss" -gt 4000000 && test "$heap" -gt 100000 &&
	test "$heap" -lt "$rss" &&
	json_get s3 last_round.time | grep -E "^[0-9]{4}-[0-9]{2}-[0-9]{2}T"
'

# bpf_maps_rss: "KiB of each bpf-map mapping" of the daemon, largest first.
bpf_maps_rss () {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { bpf = $6 == "anon_inode:bpf-map" }
	    bpf && $1 == "Rss:" { print $2 }' "/proc/$(daemon_pid)/smaps" |
	    sort -rn
}

test_expect_success ROOT,BPF,CURL 'each ring buffer is mapped once' '
	# The stack ring (2 MiB at the default stack_map_entries) maps as
	# 4 MiB and a page: libbpf maps its data twice over, for records
	# that wrap.  A second mapping of it was 4 MB of RSS for nothing.
	bpf_maps_rss >maps &&
	cat maps | tr "\n" " " && echo &&
	test "$(grep -c "^4100$" maps)" = 1 &&
	test "$(awk "{ s += \$1 } END { print s }" maps)" -lt 16384
'

test_expect_success ROOT,BPF,CURL,PROMTOOL 'promtool check metrics accepts the page' '
	promtool check metrics <m3 >lint 2>&1 &&
	test_must_be_empty lint
'

test_expect_success ROOT,BPF,CURL 'other paths are 404, other methods 405' '
	test "$(fetch $port / r)" = 404 &&
	test "$(fetch $port /metrics/x r)" = 404 &&
	test "$(fetch $port /debug r)" = 404 &&
	test "$(fetch $port /metrics r -X POST --data x)" = 405 &&
	grep -F "Allow: GET, HEAD" r.head &&
	test "$(fetch $port /debug/state r -X DELETE)" = 405 &&
	test "$(fetch $port /metrics r -I)" = 200 &&
	grep "^HTTP/1.1 200" r &&
	! grep "^ebpfspy_" r
'

test_expect_success ROOT,BPF,CURL,PYTHON3 'slow clients: bounded per client, cut after 5 s' '
	# 40 connections from 127.0.0.1 that never finish their request:
	# at most 8 are kept (one address), a client from another address
	# is served meanwhile, and all are cut within the 5 s a request may
	# take (plus the timer), not after the 10 s idle timeout they never
	# reach, as they send a line every second.
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/slow_clients.py" --port $port \
	    --n 40 --duration 12 >slow &&
	cat slow &&
	held=$(sed -n "s/^held //p" slow) &&
	test "$held" -le 8 &&
	grep "^probe_other 200\$" slow &&
	closed=$(sed -n "s/^closed //p" slow) &&
	test -n "$closed" &&
	awk -v t="$closed" "BEGIN { exit !(t <= 8) }" &&
	grep "^probe_same 200\$" slow
'

test_expect_success ROOT,BPF,CURL,PYTHON3 'slow clients from many addresses: probes still answered' '
	# 8 connections from each of 5 addresses (40, over the 32 slots),
	# each opened again as soon as the server cuts it: the slots would
	# stay full, a probe finding none free until the next cut, up to
	# 5 s.  The oldest incomplete connection gives way to a new one, so
	# every probe from a sixth address is answered within 2 s.
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/slow_clients.py" --port $port \
	    --n 8 --source 127.0.3.1,127.0.3.2,127.0.3.3,127.0.3.4,127.0.3.5 \
	    --keep --probes 12 --probe-timeout 2 --probe-source 127.0.3.9 \
	    --duration 8 >slow-many &&
	cat slow-many &&
	held=$(sed -n "s/^held //p" slow-many) &&
	test "$held" -ge 24 &&
	grep "^probes 12 12\$" slow-many &&
	test "$(fetch $port /metrics r)" = 200
'

test_expect_success ROOT,BPF,CURL 'a reload with a bad address keeps the listener' '
	write_conf 3600 "127.0.0.1" &&
	daemon_wait_log_count "^(reloaded |reload failed)" 2 &&
	grep -F "ebpfspy.conf:4: [metrics] listen: 127.0.0.1: expected host:port" \
	    "$DAEMON_LOG" &&
	test "$(fetch $port /metrics r)" = 200
'

test_expect_success ROOT,BPF,CURL,PYTHON3 'a reload to another port moves the listener' '
	port2=$(free_port) &&
	write_conf 3600 "127.0.0.1:$port2" &&
	daemon_wait_log_count "^(reloaded |reload failed)" 3 &&
	grep "^metrics: listening on 127.0.0.1:$port2\$" "$DAEMON_LOG" &&
	test "$(fetch $port2 /metrics r)" = 200 &&
	test "$(value ebpfspy_reloads_total r)" = 2 &&
	test_expect_code 7 curl -sS -o /dev/null "http://127.0.0.1:$port/metrics"
'

test_expect_success ROOT,BPF,CURL 'an empty listen closes it; stop' '
	write_conf 3600 "" &&
	daemon_wait_log_count "^(reloaded |reload failed)" 4 &&
	test_expect_code 7 curl -sS -o /dev/null \
	    "http://127.0.0.1:$port2/metrics" &&
	daemon_stop
'

test_done
