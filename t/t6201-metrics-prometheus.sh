#!/bin/sh
test_description='a real Prometheus scrapes the daemon: the target is up
and the daemon'\''s metrics are stored'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"

# CI (EBPFSPY_REQUIRE_BPF=1) installs Prometheus and curl: there, a
# missing one fails the tests instead of skipping them.
test_lazy_prereq PROMETHEUS '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || prometheus --version
'
test_lazy_prereq CURL '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version
'

PROM_WAIT=${EBPFSPY_TEST_TIMEOUT:-60}
prom_pid=

free_port () {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# Prometheus on its own loopback port, its data in the trash directory.
prom_start () {
	prometheus --config.file=prometheus.yml \
	    --storage.tsdb.path="$TRASH_DIRECTORY/tsdb" \
	    --web.listen-address="127.0.0.1:$prom_port" \
	    </dev/null >prometheus.log 2>&1 &
	prom_pid=$!
}

prom_kill () {
	test -n "$prom_pid" || return 0
	kill -s TERM "$prom_pid" 2>/dev/null
	wait "$prom_pid" 2>/dev/null
	prom_pid=
}
test_atexit prom_kill

# query PROMQL: the value of the first series of an instant query, or
# nothing when there is none yet.
query () {
	curl -sS -G --data-urlencode "query=$1" \
	    "http://127.0.0.1:$prom_port/api/v1/query" >query.json &&
	python3 -c 'import json, sys
r = json.load(open("query.json"))
if r["status"] != "success":
    sys.exit(r.get("error", "query failed"))
for s in r["data"]["result"]:
    print(s["value"][1])
    break'
}

# wait_query PROMQL VALUE: poll every 0.2 s until the query gives VALUE;
# fail after $PROM_WAIT seconds, showing Prometheus's log.
wait_query () {
	wait_n_=$((PROM_WAIT * 5))
	while test "$(query "$1" 2>/dev/null)" != "$2"; do
		if ! kill -0 "$prom_pid" 2>/dev/null; then
			echo >&2 "prometheus exited:"
			cat >&2 prometheus.log
			return 1
		fi
		wait_n_=$((wait_n_ - 1))
		if test $wait_n_ -le 0; then
			echo >&2 "$1 is not $2 after $PROM_WAIT s:" \
			    "$(query "$1" 2>&1)"
			tail >&2 -n 20 prometheus.log
			return 1
		fi
		sleep 0.2
	done
}

test_expect_success ROOT,BPF,PROMETHEUS,CURL,PYTHON3 'start the daemon and Prometheus' '
	port=$(free_port) &&
	prom_port=$(free_port) &&
	printf "[daemon]\ncollect_interval = 1\n[metrics]\nlisten = %s\n" \
	    "127.0.0.1:$port" >ebpfspy.conf &&
	daemon_start -c ebpfspy.conf -o out &&
	cat >prometheus.yml <<-EOF &&
	global:
	  scrape_interval: 1s
	  scrape_timeout: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: ebpfspy
	    static_configs:
	      - targets: ["127.0.0.1:$port"]
	EOF
	prom_start
'

test_expect_success ROOT,BPF,PROMETHEUS,CURL,PYTHON3 'the target is up' '
	wait_query "up{job=\"ebpfspy\"}" 1
'

test_expect_success ROOT,BPF,PROMETHEUS,CURL,PYTHON3 'the daemon metrics are stored' '
	version=$(ebpfspyd -V | sed "s/^ebpfspyd //") &&
	wait_query "ebpfspy_build_info{job=\"ebpfspy\",version=\"$version\"}" 1 &&
	wait_query "ebpfspy_rounds_total{job=\"ebpfspy\"} > bool 0" 1 &&
	wait_query "count(ebpfspy_lost_total{job=\"ebpfspy\",cause=\"counts_map_full\"})" 1
'

test_expect_success ROOT,BPF,PROMETHEUS,CURL,PYTHON3 'the scrapes have no error' '
	curl -sS "http://127.0.0.1:$prom_port/api/v1/targets" >targets.json &&
	python3 -c "import json
t = json.load(open(\"targets.json\"))[\"data\"][\"activeTargets\"]
assert len(t) == 1, t
assert t[0][\"health\"] == \"up\", t
assert t[0][\"lastError\"] == \"\", t"
'

test_expect_success ROOT,BPF,PROMETHEUS,CURL 'stop both' '
	prom_kill &&
	daemon_stop
'

test_done
