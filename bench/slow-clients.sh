#!/bin/bash
# slow-clients.sh: the metrics listener while slow clients trickle.
#
#   bench/slow-clients.sh [build-dir]
#
# The daemon runs with the default keys (conf/ebpfspy.conf) but for an
# output directory and a metrics port of its own.  SLOW_CLIENTS (200)
# slow connections come from SLOW_SOURCES (25) addresses, 127.0.1.1 and
# up, through t/helper/slow_clients.py: each sends a request line, then
# a header line a second, never ending its request; a source opens its
# share again as soon as the server has closed them, for SLOW_SECONDS
# (60).  Meanwhile a probe GETs /metrics every half second (curl, 5 s
# timeout), each started on time whatever the others take, and each
# from an address of its own (127.0.2.1 and up), so that the server's
# bound on connections a client does not refuse probes that pile up.  Printed: the probes answered (200) and
# not, their latency, and what the slow sources saw (connections held
# 1.5 s after they were made, how long until the server closed them).
#
# SLOW_CLIENTS, SLOW_SOURCES, SLOW_SECONDS change the run; BENCH_KEEP=1
# keeps its directory.
BENCH_NAME=slow-clients
. "$(dirname "$0")/lib-bench.sh"

CLIENTS=${SLOW_CLIENTS:-200}
SOURCES=${SLOW_SOURCES:-25}
SECS=${SLOW_SECONDS:-60}
SLOW=$BENCH_REPO/t/helper/slow_clients.py
bench_need python3 python3
bench_need curl curl
test -r "$SLOW" || bench_die "$SLOW not found"

bench_header "slow clients: $CLIENTS slow connections from $SOURCES" \
    "addresses for $SECS s, /metrics probed twice a second"

bench_conf_default "$BENCH_TMP/ebpfspy.conf"
PORT=$BENCH_PORT
bench_start_daemon "$BENCH_TMP/ebpfspy.conf"
curl -s -m 5 -o /dev/null "http://127.0.0.1:$PORT/metrics" ||
    bench_die "the metrics listener does not answer"

# A source: its share of connections, again and again.
slow_source () {
	local end=$(($(cut -d. -f1 /proc/uptime) + $3))
	while test "$(cut -d. -f1 /proc/uptime)" -lt "$end"; do
		python3 "$SLOW" --port "$PORT" --n "$2" --source "$1" \
		    --probe-source 127.0.0.2 --duration 12
	done
}
export -f slow_source
export PORT SLOW
per=$(((CLIENTS + SOURCES - 1) / SOURCES))
for ((i = 1; i <= SOURCES; i++)); do
	bench_run "slow$i" bash -c "slow_source 127.0.1.$i $per $SECS"
done

# Each probe on its own, so that a slow answer delays no other probe.
start=$(bench_now)
probes=
n=0
while echo "$start $(bench_now) $SECS" | awk '{ exit !($2 - $1 < $3) }'; do
	n=$((n + 1))
	curl -s -o /dev/null -m 5 --interface "127.0.2.$((n % 250 + 1))" \
	    -w '%{http_code} %{time_total}\n' \
	    "http://127.0.0.1:$PORT/metrics" >"$BENCH_TMP/probe.$n" &
	probes="$probes $!"
	bench_sleep 0.5
done
for p in $probes; do
	wait "$p"
done
cat "$BENCH_TMP"/probe.* >"$BENCH_TMP/probes"
for ((i = 1; i <= SOURCES; i++)); do
	bench_wait "slow$i"
done

awk '{ n++; if ($1 == 200) { ok++; t[ok] = $2 } }
	END {
		printf "probes: %d sent, %d answered 200, %d not\n", n, ok,
		    n - ok
		if (ok == 0)
			exit
		asort(t)
		printf "latency of those answered: median %.3f s, max %.3f s\n",
		    t[int((ok + 1) / 2)], t[ok]
	}' "$BENCH_TMP/probes"
cat "$BENCH_TMP"/slow*.out | awk '
	$1 == "held" { runs++; held += $2 }
	$1 == "closed" { closed++; if ($2 > cmax) cmax = $2; csum += $2 }
	$1 == "still_open" { still += $2 }
	END {
		printf "slow sources: %d runs, %.1f connections held a run " \
		    "(1.5 s in), all closed by the server in %d runs " \
		    "(mean %.1f s, max %.1f s), %d left open at 12 s\n",
		    runs, (runs ? held / runs : 0), closed,
		    (closed ? csum / closed : 0), cmax, still
	}'
curl -s -m 5 "http://127.0.0.1:$PORT/metrics" |
    grep '^ebpfspy_http_requests_total' | grep -v ' 0$' | sed 's/^/  /'
kill -0 "$BENCH_PID_ebpfspyd" 2>/dev/null && echo "ebpfspyd still running" ||
    echo "ebpfspyd DIED"
bench_stop ebpfspyd TERM
