#!/bin/bash
# unwind-cost.sh: what walking user stacks with .eh_frame tables costs
# the BPF program per on-CPU sample, against frame pointers.
#
#   bench/unwind-cost.sh [build-dir]
#
# With kernel.bpf_stats_enabled=1 the kernel times every run of a
# program: on_cpu_sample's run_time_ns / run_cnt (bpftool prog show) at
# 999 Hz while one copy per CPU of a workload runs for $BENCH_SECONDS
# (20) s, in three turns (medians: the machine's load moves), with
# [profile] unwind = fp and = dwarf, for two workloads:
#
#   fpless  t/helper/fpless, built -O2 -g without frame pointers:
#           main -> sort_phase -> qsort_r -> msort_with_tmp (recursive)
#           -> compare_keys, main -> hash_phase -> hash_block; some 8 to
#           20 frames under _start.  fp loses them; dwarf walks them.
#   fp      t/helper/burn -m split, built with frame pointers: both
#           walks find the same 5 frames.
#
# Every sample taken in that time is in the figure, the idle task's and
# other processes' too: on a busy machine they are few.  The tables are
# built before the measured turns (a first, unmeasured run warms them).
# Goal: dwarf at most 2x fp's cost on the same workload, and under
# 10 us per sample.
BENCH_NAME=unwind-cost
. "$(dirname "$0")/lib-bench.sh"

SECS=${BENCH_SECONDS:-20}
NCPU=$(nproc)
FPLESS=$BUILD_DIR/t/helper/fpless

bench_need bpftool bpftool
test -x "$FPLESS" || bench_die "$FPLESS not found: build it" \
    "(make check TESTS=)"
bench_header "user stack walks: BPF cost per on-CPU sample, dwarf" \
    "against fp, 999 Hz, $SECS s per workload and mode"

bench_bpf_stats_on

# ebpfspyd with [profile] unwind = $1.
daemon_start () {
	cat >"$BENCH_TMP/ebpfspy-$1.conf" <<EOF
[daemon]
collect_interval = 5
[profile]
sample_rate = 999
unwind = $1
EOF
	bench_run ebpfspyd "$EBPFSPYD" -d -c "$BENCH_TMP/ebpfspy-$1.conf" \
	    -o "$BENCH_TMP/out-$1"
	bench_wait_log "$BENCH_TMP/ebpfspyd.out" '^ready: ' 60 || {
		cat "$BENCH_TMP/ebpfspyd.out"
		bench_die "ebpfspyd did not get ready"
	}
	PROG=$(bench_prog_id "$BENCH_PID_ebpfspyd" on_cpu_sample)
	test -n "$PROG" || bench_die "cannot find ebpfspyd's on_cpu_sample"
}

# The unwind counters of the daemon's state (SIGUSR1).
unwind_counters () {
	local n
	n=$(grep -c '^state: end$' "$BENCH_TMP/ebpfspyd.out")
	kill -USR1 "$BENCH_PID_ebpfspyd"
	bench_wait_log_count_ "$((n + 1))"
	grep '^unwind: ' "$BENCH_TMP/ebpfspyd.out" | tail -2
}

bench_wait_log_count_ () {
	local i=0
	while test "$(grep -c '^state: end$' "$BENCH_TMP/ebpfspyd.out")" \
	    -lt "$1"; do
		i=$((i + 1))
		test $i -lt 200 || return 1
		bench_sleep 0.05
	done
}

declare -A RES
for mode in fp dwarf; do
	daemon_start $mode
	# Warm: the tables of the workloads' files.
	bench_prog_measure "$PROG" warm 1 "$FPLESS" -t 1 >/dev/null
	bench_prog_measure "$PROG" warm 1 "$BURN" -m split -t 1 >/dev/null
	fl= fp=
	for turn in 1 2 3; do
		read -r ns n <<<"$(bench_prog_measure "$PROG" fpless "$NCPU" \
		    "$FPLESS" -t "$((SECS / 3 + 1))")"
		fl="$fl $ns"
		read -r ns n <<<"$(bench_prog_measure "$PROG" burn "$NCPU" \
		    "$BURN" -m split -t "$((SECS / 3 + 1))")"
		fp="$fp $ns"
	done
	RES[$mode,fpless]=$(bench_median $fl)
	RES[$mode,fpless_turns]=$fl
	RES[$mode,fp]=$(bench_median $fp)
	RES[$mode,fp_turns]=$fp
	if test $mode = dwarf; then
		echo
		echo "   daemon state after the dwarf turns:"
		unwind_counters | sed 's/^/   /'
	fi
	bench_stop ebpfspyd TERM
done

echo
echo "on_cpu_sample run time per sample (bpf_stats), 999 Hz, median of 3"
printf "   %-34s %10s %10s %7s\n" "workload" "fp ns" "dwarf ns" "ratio"
for w in fpless fp; do
	awk -v f="${RES[fp,$w]}" -v d="${RES[dwarf,$w]}" -v w="$w" 'BEGIN {
		name = w == "fp" ? "burn (frame pointers)" : \
		    "fpless (-O2 -g, no frame pointers)"
		printf "   %-34s %10d %10d %6.2fx\n", name, f, d, f ? d / f : 0 }'
	echo "      turns: fp${RES[fp,${w}_turns]}; dwarf${RES[dwarf,${w}_turns]}"
done
awk -v f="${RES[fp,fp]}" -v d="${RES[dwarf,fpless]}" \
    -v df="${RES[dwarf,fp]}" 'BEGIN {
	printf "   goal: dwarf <= 2x fp on the same workload (%.2fx): %s; " \
	    "under 10 us (%.1f us on fpless): %s\n", f ? df / f : 0,
	    df <= 2 * f ? "met" : "MISSED", d / 1000,
	    d < 10000 ? "met" : "MISSED" }'
