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
# [profile] unwind = fp and = auto (tables, as dwarf: every file of
# these workloads has one), for two workloads:
#
#   fpless  t/helper/fpless, built -O2 -g without frame pointers:
#           main -> sort_phase -> qsort_r -> msort_with_tmp (recursive)
#           -> compare_keys, main -> hash_phase -> hash_block; some 8 to
#           20 frames under _start.  fp loses them; tables walk them.
#   fp      t/helper/burn -m split, built with frame pointers: both
#           walks find the same 5 frames.
#
# Only the workloads are profiled (targets_only, a target for each), so
# that the walks timed are theirs and not those of whatever else runs
# on the machine.  Two figures: the program's run time per run
# (bpf_stats: every sample, the quick return of other processes'
# included; the share of the workloads' is printed), and the time the
# program spends walking and storing a user stack (unwind_ustack_ns /
# unwind_ustacks of the daemon's state, timed inside the program: the
# part that changes with the mode, whatever the load).  The tables are
# built before the measured turns (a first, unmeasured run warms them).
# Goal: tables at most 2x fp's cost on the same workload, and under
# 10 us per sample.
BENCH_NAME=unwind-cost
. "$(dirname "$0")/lib-bench.sh"

SECS=${BENCH_SECONDS:-20}
NCPU=$(nproc)
FPLESS=$BUILD_DIR/t/helper/fpless

bench_need bpftool bpftool
test -x "$FPLESS" || bench_die "$FPLESS not found: build it" \
    "(make check TESTS=)"
bench_header "user stack walks: BPF cost per on-CPU sample, tables" \
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
[targets]
targets_only = yes
[target "fpless"]
comm = fpless
[target "burn"]
comm = burn
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

# Ask for the daemon's state (SIGUSR1) and wait for it.
state_dump () {
	local n
	n=$(grep -c '^state: end$' "$BENCH_TMP/ebpfspyd.out")
	kill -USR1 "$BENCH_PID_ebpfspyd"
	bench_wait_log_count_ "$((n + 1))"
}

# "counted ustacks ustack_ns" of the daemon's state: samples of the
# workloads, user stacks stored and the time their walks took.
counters () {
	state_dump
	tail -n 80 "$BENCH_TMP/ebpfspyd.out" | awk '
	    { for (i = 1; i < NF; i++) {
		w = $i; sub(/,$/, "", w); v = $(i + 1); sub(/,$/, "", v)
		if (w == "counted") c = v
		if (w == "unwind_ustacks") u = v
		if (w == "unwind_ustack_ns") n = v } }
	    END { print c + 0, u + 0, n + 0 }'
}

# NAME N CMD...: "ns_per_run ns_per_user_stack" over the run.
measure () {
	local c0 u0 n0 c1 u1 n1 t0 r0 t1 r1
	read -r c0 u0 n0 <<<"$(counters)"
	read -r t0 r0 <<<"$(bench_prog_stats "$PROG")"
	bench_prog_measure "$PROG" "$@" >/dev/null
	read -r t1 r1 <<<"$(bench_prog_stats "$PROG")"
	read -r c1 u1 n1 <<<"$(counters)"
	awk -v t=$((t1 - t0)) -v r=$((r1 - r0)) -v u=$((u1 - u0)) \
	    -v n=$((n1 - n0)) -v c=$((c1 - c0)) 'BEGIN {
		printf "%.0f %.0f %.0f\n", r ? t / r : 0, u ? n / u : 0,
		    r ? 100 * c / r : 0 }'
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
for mode in fp auto; do
	daemon_start $mode
	# Warm: the tables of the workloads' files.
	bench_prog_measure "$PROG" warm 1 "$FPLESS" -t 1 >/dev/null
	bench_prog_measure "$PROG" warm 1 "$BURN" -m split -t 1 >/dev/null
	fl= fp=
	ln -sf "$FPLESS" "$BENCH_TMP/fpless"
	ln -sf "$BURN" "$BENCH_TMP/burn"
	for w in fpless fp; do
		runs= walks= turns=
		for turn in 1 2 3; do
			if test $w = fpless; then
				read -r run walk share <<<"$(measure fpless \
				    "$NCPU" "$BENCH_TMP/fpless" \
				    -t "$((SECS / 3 + 1))")"
			else
				read -r run walk share <<<"$(measure burn \
				    "$NCPU" "$BENCH_TMP/burn" -m split \
				    -t "$((SECS / 3 + 1))")"
			fi
			runs="$runs $run" walks="$walks $walk"
			turns="$turns $run/$walk/$share%"
		done
		RES[$mode,$w]=$(bench_median $runs)
		RES[$mode,${w}_walk]=$(bench_median $walks)
		RES[$mode,${w}_turns]=$turns
	done
	if test $mode = auto; then
		echo
		echo "   daemon state after the auto turns:"
		state_dump
		grep '^unwind: ' "$BENCH_TMP/ebpfspyd.out" | tail -2 |
		    sed 's/^/   /'
	fi
	bench_stop ebpfspyd TERM
done

echo
echo "on_cpu_sample, 999 Hz, median of 3 turns: run time per run"
echo "(bpf_stats, every sample) and user stack walk per stack (timed in"
echo "the program)"
printf "   %-34s %8s %8s %6s %8s %8s %6s\n" "workload" "fp run" "auto run" \
    "ratio" "fp walk" "auto" "ratio"
for w in fpless fp; do
	awk -v f="${RES[fp,$w]}" -v d="${RES[auto,$w]}" \
	    -v fw="${RES[fp,${w}_walk]}" -v dw="${RES[auto,${w}_walk]}" \
	    -v w="$w" 'BEGIN {
		name = w == "fp" ? "burn (frame pointers)" : \
		    "fpless (-O2 -g, no frame pointers)"
		printf "   %-34s %8d %8d %5.2fx %8d %8d %5.2fx\n", name, f, d,
		    f ? d / f : 0, fw, dw, fw ? dw / fw : 0 }'
	echo "      turns (run ns/walk ns/share of runs counted):" \
	    "fp${RES[fp,${w}_turns]}; auto${RES[auto,${w}_turns]}"
done
awk -v f="${RES[fp,fp]}" -v df="${RES[auto,fp]}" \
    -v fw="${RES[fp,fpless_walk]}" -v dw="${RES[auto,fpless_walk]}" 'BEGIN {
	printf "   goal: tables <= 2x fp per run on the same workload " \
	    "(%.2fx): %s; a walk with tables under 10 us (%.1f us on " \
	    "fpless): %s\n", f ? df / f : 0, df <= 2 * f ? "met" : "MISSED",
	    dw / 1000, dw < 10000 ? "met" : "MISSED" }'
