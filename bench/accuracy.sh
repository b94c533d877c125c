#!/bin/bash
# accuracy.sh: the split of t/helper/burn -m split (75% burn_a, 25% burn_b
# by construction) as ebpfspyd and `perf record -F 97 -g -p PID' measure
# it in the same run, side by side, and each tool's sample count against
# the CPU time burn reports (`cpu <ns>') times the sample rate.
#
#   bench/accuracy.sh [build-dir]
#
# burn runs for $BENCH_SECONDS (30) seconds under a name of its own, so
# that no other burn on the machine lands in its profile.
BENCH_NAME=accuracy
. "$(dirname "$0")/lib-bench.sh"

SECS=${BENCH_SECONDS:-30}
RATE=97

bench_need perf linux-perf
bench_header "on-CPU accuracy: burn -m split for $SECS s at $RATE Hz," \
    "ebpfspyd and perf at once"

COMM=burn$$
cp "$BURN" "$BENCH_TMP/$COMM" || bench_die "cannot copy $BURN"
cat >"$BENCH_TMP/ebpfspy.conf" <<EOF
[daemon]
collect_interval = 5
[profile]
cpu = yes
offcpu = no
sample_rate = $RATE
EOF
bench_run ebpfspyd "$EBPFSPYD" -d -c "$BENCH_TMP/ebpfspy.conf" \
    -o "$BENCH_TMP/out"
bench_wait_log "$BENCH_TMP/ebpfspyd.out" '^ready: ' 60 || {
	cat "$BENCH_TMP/ebpfspyd.out"
	bench_die "ebpfspyd did not get ready"
}

bench_run burn "$BENCH_TMP/$COMM" -m split -t "$SECS"
bench_run perf_record perf record -F "$RATE" -g -p "$BENCH_PID_burn" \
    -o "$BENCH_TMP/perf.data"
bench_wait burn
# perf record -p ends when its target has exited.
bench_wait perf_record
bench_stop ebpfspyd TERM

cpu_ns=$(awk '$1 == "cpu" { print $2 }' "$BENCH_TMP/burn.out")
if test -n "$cpu_ns"; then
	cpu_src="burn's own \`cpu <ns>'"
else
	# An older burn: take the exact rusage of the wrapper's child.
	cpu_ns=$(($(bench_total_cpu_ms burn) * 1000000))
	cpu_src="rusage of burn (this burn prints no \`cpu <ns>')"
fi

# Both tools as folded stacks, root first: "comm;f1;f2 count".
# ebpfspyd wrote one file per round: add them up.
cat "$BENCH_TMP"/out/cpu/"$COMM"/*.folded 2>/dev/null | awk '
	{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s); count[s] += v }
	END { for (s in count) print s, count[s] }' >"$BENCH_TMP/ebpfspyd.folded"
# perf script: a sample is a line with its comm (right-aligned), then
# one line per frame, leaf first, each starting with a tab.
perf script -i "$BENCH_TMP/perf.data" -F comm,ip,sym 2>/dev/null | awk '
	function flush() {
		if (comm == "")
			return
		s = comm
		for (i = n; i >= 1; i--)
			s = s ";" f[i]
		count[s]++
		comm = ""
	}
	/^\t/ { f[++n] = ($2 == "" ? "[unknown]" : $2); next }
	/^ *$/ { flush(); next }
	{ flush(); comm = $1; n = 0 }
	END { flush(); for (s in count) print s, count[s] }
' >"$BENCH_TMP/perf.folded"

# "a b other total complete": samples in burn_a, burn_b, elsewhere, all,
# and those whose stack reaches main.
split_of () {
	awk '{
		v = $NF; t += v
		if ($0 ~ /;burn_a(;| )/) a += v
		else if ($0 ~ /;burn_b(;| )/) b += v
		else o += v
		if ($0 ~ /;main;/) m += v
	} END { printf "%d %d %d %d %d\n", a, b, o, t, m }' "$1"
}
read -r ea eb eo et em < <(split_of "$BENCH_TMP/ebpfspyd.folded")
read -r pa pb po pt pm < <(split_of "$BENCH_TMP/perf.folded")
expected=$(echo "$cpu_ns $RATE" | awk '{ printf "%.0f", $1 * $2 / 1e9 }')

pc () { echo "$1 $2" | awk '{ if ($2 > 0) printf "%.1f%%", 100 * $1 / $2;
    else printf "n/a" }'; }
rt () { echo "$1 $2" | awk '{ if ($2 > 0) printf "%.3f", $1 / $2;
    else printf "n/a" }'; }

printf '%-28s %12s %12s %12s\n' "" ebpfspyd perf "by design"
printf '%-28s %12s %12s %12s\n' "burn_a" "$(pc "$ea" "$et")" \
    "$(pc "$pa" "$pt")" 75.0%
printf '%-28s %12s %12s %12s\n' "burn_b" "$(pc "$eb" "$et")" \
    "$(pc "$pb" "$pt")" 25.0%
printf '%-28s %12s %12s %12s\n' "elsewhere" "$(pc "$eo" "$et")" \
    "$(pc "$po" "$pt")" "~0%"
printf '%-28s %12s %12s %12s\n' "burn_a / (burn_a + burn_b)" \
    "$(pc "$ea" $((ea + eb)))" "$(pc "$pa" $((pa + pb)))" 75.0%
printf '%-28s %12s %12s %12s\n' "stacks reaching main" \
    "$(pc "$em" "$et")" "$(pc "$pm" "$pt")" 100%
printf '%-28s %12s %12s %12s\n' "samples" "$et" "$pt" "$expected"
printf '%-28s %12s %12s %12s\n' "samples / expected" \
    "$(rt "$et" "$expected")" "$(rt "$pt" "$expected")" 1.000
echo
echo "expected samples: CPU time of burn, $(echo "$cpu_ns" |
    awk '{ printf "%.3f", $1 / 1e9 }') s from $cpu_src, x $RATE Hz."
echo "ebpfspyd and perf sampled the same process at the same time."
echo
echo "most frequent stack of each:"
for t in ebpfspyd perf; do
	printf '  %-9s %s\n' "$t" "$(awk '$NF > m { m = $NF; s = $0 }
	    END { print s }' "$BENCH_TMP/$t.folded")"
done
