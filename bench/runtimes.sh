#!/bin/bash
# runtimes.sh: what walking Java (HotSpot) and Node.js (V8) stacks costs,
# and how many frames it names against the runtimes' own perf maps.
#
#   bench/runtimes.sh [build-dir]
#
# 1. BPF run time per sample: with kernel.bpf_stats_enabled=1,
#    on_cpu_sample's run_time_ns / run_cnt (bpftool prog show) at 999 Hz
#    over busy native processes (t/helper/burn, one per CPU), then busy
#    JVMs (t/helper/JvmWork) and busy nodes (t/helper/v8work.js hot), in
#    three turns each (medians).  Every sample of that time is in the
#    figure, the JVM's start-up and JIT threads included.
# 2. ebpfspyd's CPU per second and its RSS, at 97 Hz with rounds every
#    5 s, while 2 busy JVMs and 2 busy nodes run $BENCH_SECONDS (30) s:
#    the growth of its RSS from before they start to the end, per
#    runtime process; and its CPU in the steady state, from a third of
#    the run on (the runtimes' tables and symbols read by then).
# 3. Names found: of the samples of those JVMs and nodes, the share
#    whose every user frame is named (no [unknown...] frame, no
#    [truncated] root), by ebpfspyd with no flag on the programs, and by
#    the reference: [jvm] and [v8] off, java -XX:+PreserveFramePointer
#    with the perf map `jcmd PID Compiler.perfmap' writes, node
#    --perf-basic-prof --interpreted-frames-native-stack.
#
# Goals (issue 26): under 10 us per Java or Node sample and at most 3x
# the native one; under 0.5% of a core with 2 JVMs and 2 nodes; RSS
# growth under 2 MB per runtime process.  The JDK: $BENCH_JAVA_HOME, else
# Debian's openjdk-17.
BENCH_NAME=runtimes
. "$(dirname "$0")/lib-bench.sh"

SECS=${BENCH_SECONDS:-30}
WARM=$((SECS / 3))
NCPU=$(nproc)
JHOME=${BENCH_JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JAVA=$JHOME/bin/java
NODE=${BENCH_NODE:-/usr/bin/node}
V8WORK=$BENCH_REPO/t/helper/v8work.js

bench_need bpftool bpftool
test -x "$JAVA" || bench_die "no java at $JAVA: set BENCH_JAVA_HOME"
test -x "$NODE" || bench_die "no node at $NODE: set BENCH_NODE"
"$JHOME/bin/javac" -d "$BENCH_TMP/jvm" "$BENCH_REPO/t/helper/JvmWork.java" ||
    bench_die "javac failed"
bench_header "Java and Node.js stacks: BPF cost per sample, daemon CPU" \
    "and RSS, frames named; $("$JAVA" -version 2>&1 | head -1), node" \
    "$("$NODE" --version)"

bench_bpf_stats_on

# ebpfspyd at a rate, a round every INTERVAL s, [jvm] and [v8] on or
# off, its output under $BENCH_TMP/out-NAME.
daemon_start () {
	cat >"$BENCH_TMP/ebpfspy-$1.conf" <<EOF
[daemon]
collect_interval = $2
[profile]
sample_rate = $3
[jvm]
enabled = $4
[v8]
enabled = $4
EOF
	bench_run ebpfspyd "$EBPFSPYD" -d -c "$BENCH_TMP/ebpfspy-$1.conf" \
	    -o "$BENCH_TMP/out-$1"
	bench_wait_log "$BENCH_TMP/ebpfspyd.out" '^ready: ' 60 || {
		cat "$BENCH_TMP/ebpfspyd.out"
		bench_die "ebpfspyd did not get ready"
	}
}

rss_kb () {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

# ---- 1. BPF run time per sample
daemon_start bpf 5 999 yes
PROG=$(bench_prog_id "$BENCH_PID_ebpfspyd" on_cpu_sample)
test -n "$PROG" || bench_die "cannot find ebpfspyd's on_cpu_sample"
T=$((SECS / 3 + 1))
nat= jvm= v8= nat_n=0 jvm_n=0 v8_n=0
for turn in 1 2 3; do
	read -r ns n <<<"$(bench_prog_measure "$PROG" burn "$NCPU" "$BURN" \
	    -m split -t "$T")"
	nat="$nat $ns" nat_n=$((nat_n + n))
	read -r ns n <<<"$(bench_prog_measure "$PROG" java "$NCPU" "$JAVA" \
	    -cp "$BENCH_TMP/jvm" JvmWork "$T")"
	jvm="$jvm $ns" jvm_n=$((jvm_n + n))
	read -r ns n <<<"$(bench_prog_measure "$PROG" node "$NCPU" "$NODE" \
	    "$V8WORK" hot "$T")"
	v8="$v8 $ns" v8_n=$((v8_n + n))
done
nat_ns=$(bench_median $nat)
jvm_ns=$(bench_median $jvm)
v8_ns=$(bench_median $v8)
bench_stop ebpfspyd TERM

echo
echo "1. on_cpu_sample run time per sample (bpf_stats), 999 Hz, median of 3"
printf "   %-30s %9s %10s   %s\n" "" "ns/sample" "samples" "turns"
printf "   %-30s %9s %10s  %s\n" "native (burn)" "$nat_ns" "$nat_n" "$nat"
printf "   %-30s %9s %10s  %s\n" "Java (JvmWork)" "$jvm_ns" "$jvm_n" "$jvm"
printf "   %-30s %9s %10s  %s\n" "Node.js (v8work.js hot)" "$v8_ns" \
    "$v8_n" "$v8"
for r in "Java $jvm_ns" "Node.js $v8_ns"; do
	set -- $r
	awk -v w="$1" -v p="$2" -v n="$nat_ns" 'BEGIN {
		printf "   %s: %.1f us per sample (goal < 10 us): %s; " \
		    "%.1fx native (goal <= 3x): %s\n", w, p / 1000,
		    p < 10000 ? "met" : "MISSED", n ? p / n : 0,
		    n && p / n <= 3 ? "met" : "MISSED" }'
done

# ---- 2. and 3.: 2 JVMs and 2 nodes, ours then the reference
# runtimes NAME ENABLED JAVA-FLAGS NODE-FLAGS: the four workloads under
# a daemon, its CPU and RSS growth printed; the folded stacks of the
# workloads in $BENCH_TMP/NAME.folded.
runtimes () {
	local name=$1 on=$2 jflags=$3 nflags=$4 r0 r1 c0 c1 cw t0 t1 tw i
	daemon_start "$name" 5 97 "$on"
	bench_sleep 2
	r0=$(rss_kb "$BENCH_PID_ebpfspyd")
	c0=$(bench_cpu_ms "$BENCH_PID_ebpfspyd")
	t0=$(bench_now)
	for i in 1 2; do
		ln -sf "$JAVA" "$BENCH_TMP/j$name$i"
		ln -sf "$NODE" "$BENCH_TMP/n$name$i"
		bench_run "j$name$i" "$BENCH_TMP/j$name$i" $jflags \
		    -cp "$BENCH_TMP/jvm" JvmWork "$SECS"
		bench_run "n$name$i" "$BENCH_TMP/n$name$i" $nflags \
		    "$V8WORK" hot "$SECS"
	done
	# The steady state: from WARM s on, the runtimes' tables built and
	# their symbols read.
	bench_sleep "$WARM"
	cw=$(bench_cpu_ms "$BENCH_PID_ebpfspyd")
	tw=$(bench_now)
	if test "$on" = no; then
		# The JIT's perf map, written once the methods are hot.
		bench_sleep $((SECS - 3 - WARM))
		for i in 1 2; do
			eval "p=\$BENCH_PID_j$name$i"
			"$JHOME/bin/jcmd" "$p" Compiler.perfmap >/dev/null 2>&1
		done
	fi
	for i in 1 2; do
		bench_wait "j$name$i"
		bench_wait "n$name$i"
	done
	c1=$(bench_cpu_ms "$BENCH_PID_ebpfspyd")
	t1=$(bench_now)
	r1=$(rss_kb "$BENCH_PID_ebpfspyd")
	bench_stop ebpfspyd TERM
	for i in 1 2; do
		eval "rm -f /tmp/perf-\$BENCH_PID_j$name$i.map" \
		    "/tmp/perf-\$BENCH_PID_n$name$i.map"
	done
	awk -v c=$((c1 - c0)) -v t0="$t0" -v t1="$t1" -v r0="$r0" \
	    -v r1="$r1" -v n="$name" -v cs=$((c1 - cw)) -v tw="$tw" \
	    -v w="$WARM" 'BEGIN {
		printf "   %-10s %.2f ms of CPU per second (%.3f%% of a " \
		    "core); RSS %.1f -> %.1f MB, %+.2f MB per runtime " \
		    "process\n", n, c / (t1 - t0), c / (t1 - t0) / 10,
		    r0 / 1024, r1 / 1024, (r1 - r0) / 1024 / 4
		printf "   %-10s steady state (from %d s on): %.2f ms per " \
		    "second (%.3f%% of a core)\n", "", w, cs / (t1 - tw),
		    cs / (t1 - tw) / 10 }'
	cat "$BENCH_TMP"/out-"$name"/cpu/[jn]"$name"[12]/*.folded \
	    >"$BENCH_TMP/$name.folded" 2>/dev/null
}

echo
echo "2. ebpfspyd with 2 busy JVMs and 2 busy nodes, 97 Hz, $SECS s," \
    "rounds every 5 s"
runtimes ours yes "" ""
runtimes ref no "-XX:+PreserveFramePointer" \
    "--perf-basic-prof --interpreted-frames-native-stack"

echo
echo "3. samples with every user frame named (no [unknown...], no" \
    "[truncated])"
printf "   %-34s %10s %10s\n" "" "ebpfspyd" "reference"
for kind in j:Java n:Node.js; do
	k=${kind%%:*}
	for name in ours ref; do
		awk -v k="$k" -v n="$name" '
		    index($1, k n) == 1 {
			s += $NF
			if ($0 !~ /\[unknown/ && $0 !~ /\[truncated\]/)
				w += $NF
		    }
		    END { printf "%.1f %d\n", s ? 100 * w / s : 0, s }' \
		    "$BENCH_TMP/$name.folded" >"$BENCH_TMP/$k$name.share"
	done
	read -r o os <"$BENCH_TMP/${k}ours.share"
	read -r r rs <"$BENCH_TMP/${k}ref.share"
	printf "   %-34s %9s%% %9s%%   (%d and %d samples)\n" \
	    "${kind#*:}" "$o" "$r" "$os" "$rs"
done
