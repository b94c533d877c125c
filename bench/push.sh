#!/bin/sh
# push.sh: what pushing to Pyroscope costs, on the loopback.
#
#   bench/push.sh [-n targets] [-s stacks] [-r rounds] [-i seconds]
#
# Runs t/helper/pyroscope_driver (the sink on a libev loop, as in the
# daemon, with synthetic profiles: -n targets of -s distinct stacks
# each, on- and off-CPU) against t/helper/mock_pyroscope.py, once with
# the push off and once on, and prints per round:
#   - the CPU time of the push: the difference between the two runs,
#     and the part spent inside pyroscope_round() (encoding);
#   - the bytes sent (request bodies) and requests;
#   - latency from the end of a round to the mock having the whole
#     request, and to its answer (median, 90th percentile, max); the
#     answer waits for the mock's checks, pure Python that decodes every
#     profile, far slower than a Pyroscope server (its own time is
#     printed too; rounds closer than it fall behind).
# Needs a build (EBPFSPY_BUILD_DIR, default ./build or .) where
# `make t/helper/pyroscope_driver' has run, and python3.
set -e

targets=50
stacks=200
rounds=20
interval=2
while getopts n:s:r:i: opt; do
	case $opt in
	n) targets=$OPTARG ;;
	s) stacks=$OPTARG ;;
	r) rounds=$OPTARG ;;
	i) interval=$OPTARG ;;
	*) echo "usage: $0 [-n targets] [-s stacks] [-r rounds] [-i seconds]" >&2
	   exit 1 ;;
	esac
done

src=$(cd "$(dirname "$0")/.." && pwd)
build=${EBPFSPY_BUILD_DIR:-}
if test -z "$build"; then
	if test -x "$src/build/t/helper/pyroscope_driver"; then
		build=$src/build
	else
		build=$src
	fi
fi
driver=$build/t/helper/pyroscope_driver
test -x "$driver" || {
	echo "$0: no $driver: run make t/helper/pyroscope_driver" >&2
	exit 1
}

tmp=$(mktemp -d /tmp/bench-push.XXXXXX)
mock_pid=
cleanup () {
	test -n "$mock_pid" && kill "$mock_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
cd "$tmp"

python3 "$src/t/helper/mock_pyroscope.py" --port-file port --record rec \
    --log log >mock.out 2>&1 &
mock_pid=$!
n=0
while ! test -s port; do
	n=$((n + 1))
	test $n -lt 600 || { echo "$0: the mock did not start" >&2; exit 1; }
	sleep 0.05
done
url=http://127.0.0.1:$(cat port)

printf '[pyroscope]\nspool_dir = %s/spool\n' "$tmp" >off.conf
# Long timeouts: the mock is slow, and retries (or what a stop leaves in
# the spool) would blur the figures.
printf '[pyroscope]\nurl = %s\nspool_dir = %s/spool\ntimeout = 120\n' \
    "$url" "$tmp" >on.conf
printf 'flush_timeout = 60\n' >>on.conf

# The CPU time (user + system) of a whole driver run: the push's work
# on the loop (curl, the spool) happens outside pyroscope_round().
run () {
	/usr/bin/time -f "%U %S" -o "$1.time" "$driver" -c "$1.conf" \
	    -n "$targets" -s "$stacks" -r "$rounds" -i "$interval" -t both \
	    >"$1.out" 2>"$1.err"
}

run off
run on

python3 - "$rounds" "$targets" <<'EOF'
import json, statistics, sys

rounds, targets = int(sys.argv[1]), int(sys.argv[2])

def cpu(name):
    u, s = open(name + ".time").read().split()
    return float(u) + float(s)

def inside(name):
    t = 0
    for line in open(name + ".out"):
        w = line.split()
        if w and w[0] == "round":
            t += int(w[w.index("cpu_us") + 1])
    return t / 1e6

stats = {}
for line in open("on.out"):
    if line.startswith("stats: "):
        w = line.split()[1:]
        stats = {w[i]: int(w[i + 1]) for i in range(0, len(w), 2)}

lat, got, mock = [], [], []
nreq = 0
for line in open("rec"):
    r = json.loads(line)
    nreq += 1
    mock.append(r["time"] - r["received"])
    for s in r["series"]:
        end = (s["time_nanos"] + s["duration_nanos"]) / 1e9
        lat.append(r["time"] - end)
        got.append(r["received"] - end)
lat.sort()
got.sort()

def pct(v, name):
    print("round end to %-13s median %8.1f ms, p90 %8.1f ms, max %8.1f ms"
          % (name, statistics.median(v) * 1e3,
             v[int(0.9 * (len(v) - 1))] * 1e3, v[-1] * 1e3))

push_cpu = (cpu("on") - cpu("off")) / rounds
enc_cpu = (inside("on") - inside("off")) / rounds
print("targets %d (cpu + offcpu: %d profiles a round), %d rounds"
      % (targets, 2 * targets, rounds))
print("cpu per round, push on minus off:   %8.2f ms" % (push_cpu * 1e3))
print("  of which in pyroscope_round():     %8.2f ms" % (enc_cpu * 1e3))
print("bytes sent per round:                %8.0f" %
      (stats.get("bytes", 0) / rounds))
print("requests per round:                  %8.2f" % (nreq / rounds))
print("profiles acknowledged:               %8d of %d" %
      (stats.get("profiles", 0), 2 * targets * rounds))
if stats.get("retry", 0) or stats.get("spool_files", 0):
    print("(%d failed attempts, %d requests left in the spool: the "
          "figures are not clean)" % (stats["retry"], stats["spool_files"]))
if lat:
    pct(got, "received:")
    pct(lat, "acknowledged:")
    print("the mock's checks per request: median %.1f ms" %
          (statistics.median(mock) * 1e3))
EOF
