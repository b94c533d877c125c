#!/bin/bash
# soak.sh: ebpfspyd's memory over a long run with the flame graphs on.
#
#   bench/soak.sh [build-dir]
#
# The daemon runs with the default keys (conf/ebpfspy.conf) but for
# collect_interval = 1, an output directory of its own and a metrics
# port of its own; svg = yes is the default, so every round writes a
# .folded file per service and last-hour.svg sums the hour of them.
# The workload changes all the time: every SOAK_GEN seconds (10) a new
# program is generated and compiled, its 85 functions named after its
# generation (g<N>_l<level>_<k>, a tree of 4^3 call paths) and built
# with frame pointers, so that each generation brings stacks and names
# the daemon has never seen; SOAK_PROCS (2) of them run at a time, each
# for a second or two, under SOAK_COMMS (4) process names taken in
# turn, so the stacks land in a few services' directories.  The rest
# of the machine is profiled too (the default target).
#
# The daemon's RSS (VmRSS) is read every SOAK_STEP seconds (10) for
# SOAK_SECONDS (3600); the series is printed as it comes, then the
# verdict for the goal "RSS flat within 10% after the first ten minutes
# and below 40 MB" (MB = 10^6 bytes; flat: the highest sample after
# 600 s at most 10% above the lowest).  At the end a SIGUSR1 makes the
# daemon log what its last-hour sums hold, printed too.
#
# SOAK_ONLY=yes profiles the workload alone (targets_only = yes and a
# target per process name), so that what the rest of a shared machine
# does (hundreds of short-lived services an hour, each its own
# directory) does not move the figures.
#
# RSS counts the BPF maps the daemon maps (ring buffers, the unwind
# arrays: 17 MB with the default keys), kernel memory allocated when
# the maps are made, mapped or not; the verdict is given for RSS and for
# RSS less them, the daemon's own memory.
#
# SOAK_SVG_HOUR_BYTES sets [output] svg_hour_bytes, the memory of the
# hour's sums (default 4194304).
#
# SOAK_SECONDS, SOAK_STEP, SOAK_GEN, SOAK_PROCS, SOAK_COMMS change the
# run; SOAK_NAME (soakw) names the workload's processes, another one for
# a second run at the same time; BENCH_KEEP=1 keeps its directory.
BENCH_NAME=soak
. "$(dirname "$0")/lib-bench.sh"

SECONDS_=${SOAK_SECONDS:-3600}
STEP=${SOAK_STEP:-10}
GEN=${SOAK_GEN:-10}
PROCS=${SOAK_PROCS:-2}
COMMS=${SOAK_COMMS:-4}
NAME=${SOAK_NAME:-soakw}
bench_need gcc gcc

HOUR_BYTES=${SOAK_SVG_HOUR_BYTES:+, svg_hour_bytes = $SOAK_SVG_HOUR_BYTES}
bench_header "soak: RSS of ebpfspyd over $SECONDS_ s, collect_interval" \
    "= 1, svg = yes$HOUR_BYTES, a new workload program every $GEN s" \
    "$(test "${SOAK_ONLY:-no}" = yes && echo ", the workload alone")"

bench_conf_default "$BENCH_TMP/ebpfspy.conf"
PORT=$BENCH_PORT
sed -i 's/^collect_interval = .*/collect_interval = 1/' \
    "$BENCH_TMP/ebpfspy.conf"
if test -n "${SOAK_SVG_HOUR_BYTES:-}"; then
	grep -q '^svg_hour_bytes = ' "$BENCH_TMP/ebpfspy.conf" ||
	    bench_die "conf/ebpfspy.conf: no svg_hour_bytes line"
	sed -i "s/^svg_hour_bytes = .*/svg_hour_bytes = $SOAK_SVG_HOUR_BYTES/" \
	    "$BENCH_TMP/ebpfspy.conf"
fi
grep -q '^svg = yes' "$BENCH_TMP/ebpfspy.conf" ||
    bench_die "conf/ebpfspy.conf: svg is not on by default any more"
if test "${SOAK_ONLY:-no}" = yes; then
	sed -i 's/^targets_only = .*/targets_only = yes/' \
	    "$BENCH_TMP/ebpfspy.conf"
	for ((c = 0; c < COMMS; c++)); do
		printf '[target "%s%d"]\ncomm = %s%d_*\n' "$NAME" "$c" \
		    "$NAME" "$c"
		printf 'label.service_name = %s%d\n' "$NAME" "$c"
	done >>"$BENCH_TMP/ebpfspy.conf"
fi

# One generation: main -> g<N>_l1_<a> -> g<N>_l2_<b> -> g<N>_l3_<c>,
# a path chosen at random each time, the leaf spinning a while.
soak_gen () {
	local n=$1 src=$BENCH_TMP/gen/g$1.c a b c
	{
		echo '#pragma GCC optimize("O0", "no-omit-frame-pointer")'
		echo '#include <stdlib.h>'
		echo '#include <time.h>'
		echo 'static volatile unsigned long sink;'
		echo 'static double now(void) { struct timespec t;'
		echo '  clock_gettime(CLOCK_MONOTONIC, &t);'
		echo '  return t.tv_sec + t.tv_nsec / 1e9; }'
		for a in 0 1 2 3; do for b in 0 1 2 3; do for c in 0 1 2 3; do
			echo "__attribute__((noinline)) void g${n}_l3_$a$b$c(void)"
			echo '{ unsigned long i, x = sink;'
			echo '  for (i = 0; i < 20000; i++) x = x * 6364136223846793005UL + 1;'
			echo '  sink = x; }'
		done; done; done
		for a in 0 1 2 3; do for b in 0 1 2 3; do
			echo "__attribute__((noinline)) void g${n}_l2_$a$b(int c)"
			echo '{ switch (c) {'
			for c in 0 1 2 3; do
				echo "  case $c: g${n}_l3_$a$b$c(); break;"
			done
			echo '} }'
		done; done
		for a in 0 1 2 3; do
			echo "__attribute__((noinline)) void g${n}_l1_$a(int b, int c)"
			echo '{ switch (b) {'
			for b in 0 1 2 3; do
				echo "  case $b: g${n}_l2_$a$b(c); break;"
			done
			echo '} }'
		done
		echo 'int main(int argc, char **argv) {'
		echo '  double end = now() + (argc > 1 ? atof(argv[1]) : 1);'
		echo "  srand($n ^ (unsigned)time(NULL));"
		echo '  while (now() < end) {'
		echo '    int r = rand();'
		echo "    switch (r & 3) {"
		for a in 0 1 2 3; do
			echo "    case $a: g${n}_l1_$a((r >> 2) & 3, (r >> 4) & 3); break;"
		done
		echo '  } }'
		echo '  return 0; }'
	} >"$src"
	gcc -O2 -o "$BENCH_TMP/gen/g$n" "$src" 2>"$BENCH_TMP/gen/g$n.err"
}

# The workload: a new generation every GEN s; PROCS programs at a time,
# each a copy named $NAME<i>_<p> so that the service is the comm.
soak_workload () {
	local gen=0 i=0 t next=0 cur
	mkdir -p "$BENCH_TMP/gen"
	while :; do
		t=$(cut -d. -f1 /proc/uptime)
		if test "$t" -ge "$next"; then
			soak_gen $gen && cur=$gen
			rm -f "$BENCH_TMP/gen/g$((gen - 2))" \
			    "$BENCH_TMP/gen/g$((gen - 2)).c"
			gen=$((gen + 1))
			next=$((t + GEN))
		fi
		for ((p = 0; p < PROCS; p++)); do
			cp "$BENCH_TMP/gen/g$cur" \
			    "$BENCH_TMP/gen/$NAME$((i % COMMS))_$p" 2>/dev/null
			"$BENCH_TMP/gen/$NAME$((i % COMMS))_$p" \
			    "1.$((RANDOM % 10))" &
		done
		wait
		i=$((i + 1))
	done
}
export -f soak_gen soak_workload
export BENCH_TMP GEN PROCS COMMS NAME

bench_start_daemon "$BENCH_TMP/ebpfspy.conf"
DPID=$BENCH_PID_ebpfspyd
bench_run workload bash -c soak_workload

rss_kb () {
	local k v
	while read -r k v _; do
		test "$k" = VmRSS: && { echo "$v"; return; }
	done 2>/dev/null <"/proc/$DPID/status"
	echo 0
}

# The part of RSS that is BPF maps mapped (ring buffers, the unwind
# arrays): kernel memory, the same size mapped or not, fixed at start.
bpf_kb () {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { bpf = $6 == "anon_inode:bpf-map" }
	    bpf && $1 == "Rss:" { kb += $2 }
	    END { print kb + 0 }' "/proc/$DPID/smaps" 2>/dev/null || echo 0
}

echo "seconds  RSS KiB  last-hour files  services  BPF maps KiB"
start=$(bench_now)
: >"$BENCH_TMP/series"
t=0
while :; do
	kill -0 "$DPID" 2>/dev/null || {
		echo "ebpfspyd exited:"; tail -n 20 "$BENCH_TMP/ebpfspyd.out"
		exit 1
	}
	r=$(rss_kb)
	nf=$(find "$BENCH_TMP/out" -name '*.folded' -newermt "-3600 seconds" \
	    2>/dev/null | wc -l)
	ns=$(ls -d "$BENCH_TMP"/out/*/* 2>/dev/null | wc -l)
	b=$(bpf_kb)
	printf '%7d %8d %16d %9d %13d\n' "$t" "$r" "$nf" "$ns" "$b"
	echo "$t $r $b" >>"$BENCH_TMP/series"
	test "$t" -ge "$SECONDS_" && break
	# Steps on the clock from the start, whatever a step cost.
	t=$((t + STEP))
	now=$(bench_now)
	bench_sleep "$(echo "$start $t $now" | awk '{ d = $1 + $2 - $3;
	    print (d > 0 ? d : 0) }')"
done

kill -USR1 "$DPID"
bench_wait_log "$BENCH_TMP/ebpfspyd.out" '^heap: ' 10 &&
    grep 'flame graphs: ' "$BENCH_TMP/ebpfspyd.out" | tail -n 1 |
    sed 's/^/daemon: /'
grep '^heap: \|^stack names: ' "$BENCH_TMP/ebpfspyd.out" | tail -n 2 |
    sed 's/^/daemon: /'
grep -i 'last-hour\|flame graph' "$BENCH_TMP/ebpfspyd.out" | sort | uniq -c |
    sort -rn | head -n 5 | sed 's/^/daemon log: /'
bench_stop workload TERM
bench_stop ebpfspyd TERM

# verdict FILE WHAT: the goal's figures for the series "seconds KiB".
verdict () {
	awk -v what="$2" '
	# 0: /proc/PID/status could not be read that time; left out.
	$2 > 0 { n_++; t[n_] = $1; r[n_] = $2 }
	END {
		NR = n_
		lo = -1; hi = 0; n = 0; peak = 0
		for (i = 1; i <= NR; i++) {
			if (r[i] > peak) peak = r[i]
			if (t[i] < 600)
				continue
			n++
			if (lo < 0 || r[i] < lo) lo = r[i]
			if (r[i] > hi) hi = r[i]
		}
		printf "%s at start %.1f MB, at 600 s %s, at the end %.1f MB, " \
		    "peak %.1f MB\n", what, r[1] * 1.024 / 1000,
		    (n ? sprintf("%.1f MB", r[NR - n + 1] * 1.024 / 1000) : "-"),
		    r[NR] * 1.024 / 1000, peak * 1.024 / 1000
		if (n < 2) {
			print "goal (flat within 10% after 600 s, below 40 MB): " \
			    "not measured, the run ended before 600 s + a step"
			exit
		}
		flat = (hi - lo) * 100 / lo
		printf "after 600 s: %d samples, %.1f to %.1f MB, spread %.1f%%\n",
		    n, lo * 1.024 / 1000, hi * 1.024 / 1000, flat
		# A short run can look flat: say how fast it still grows.
		for (i = 1; i < NR && t[i] < 600; i++)
			;
		if (NR > i)
			printf "growth from 600 s to the end: %+.1f MB in %d s " \
			    "(%+.2f MB per 10 min)\n",
			    (r[NR] - r[i]) * 1.024 / 1000, t[NR] - t[i],
			    (r[NR] - r[i]) * 1.024 / 1000 * 600 / (t[NR] - t[i])
		printf "goal flat within 10%%: %s; below 40 MB: %s\n",
		    (flat <= 10 ? "met" : "MISSED"),
		    (hi * 1.024 < 40000 ? "met" : "MISSED")
	}' "$1"
}

echo
verdict "$BENCH_TMP/series" RSS
# The BPF maps' pages are the kernel's, allocated when the maps are
# made, mapped or not: the daemon's own memory is the rest.
echo
awk '{ print $1, ($2 > 0 ? $2 - $3 : 0) }' "$BENCH_TMP/series" \
    >"$BENCH_TMP/series-own"
verdict "$BENCH_TMP/series-own" "RSS less the BPF maps"
