#!/bin/bash
# oncpu-cost.sh: what on-CPU profiling at 97 Hz costs, on a machine whose
# CPUs are busy, for ebpfspyd, `perf record -F 97 -a -g' + `perf report'
# and `profile-bpfcc -F 97 -f', one after another over one run of the
# same workload (t/helper/burn, one thread per CPU).
#
#   bench/oncpu-cost.sh [build-dir]
#
# Each tool profiles for $BENCH_SECONDS (60) seconds.  CPU time is user +
# sys of the tool's processes (at start-up from the threads' schedstat,
# in ns, and the exact total at exit; /proc/PID/stat's ticks put up to
# 20 ms of start-up in the steady figure): for perf, perf record and
# then perf report; for profile-bpfcc,
# its start-up compile (until its perf events exist) apart from the
# steady state.  Peak RSS is VmHWM.  Goal: ebpfspyd below 0.5% of one
# core, at most a fifth of profile-bpfcc; peak RSS below 30 MB.
#
# profile-bpfcc compiles its BPF program against kernel headers.  Without
# /lib/modules/$(uname -r)/build or $BCC_KERNEL_SOURCE, this script
# merges the newest installed /usr/src/linux-headers-*-common tree with
# its -amd64 tree into one directory of symbolic links and points
# BCC_KERNEL_SOURCE at it.
BENCH_NAME=oncpu-cost
. "$(dirname "$0")/lib-bench.sh"

SECS=${BENCH_SECONDS:-60}
NCPU=$(nproc)

bench_need perf linux-perf
bench_header "on-CPU profiling cost at 97 Hz, $NCPU CPUs busy," \
    "$SECS s per tool"

# ---- can profile-bpfcc run here?
BPFCC=
BPFCC_WHY=
KSRC=
# Sets KSRC, or BPFCC_WHY when profile-bpfcc cannot compile here.
bpfcc_kernel_source () {
	local common amd64
	if test -n "${BCC_KERNEL_SOURCE:-}"; then
		KSRC=$BCC_KERNEL_SOURCE
		return 0
	fi
	test -d "/lib/modules/$(uname -r)/build" && return 0
	common=$(ls -d /usr/src/linux-headers-*-common 2>/dev/null |
	    sort -V | tail -n 1)
	if test -z "$common"; then
		BPFCC_WHY="no headers for kernel $(uname -r), none in /usr/src:"
		BPFCC_WHY="$BPFCC_WHY apt-get install linux-headers-<newest>-amd64"
		return 1
	fi
	amd64=${common%-common}-amd64
	if ! test -d "$amd64"; then
		BPFCC_WHY="$common has no $amd64 beside it: apt-get install"
		BPFCC_WHY="$BPFCC_WHY ${amd64#/usr/src/}"
		return 1
	fi
	KSRC=$BENCH_TMP/kernel-src
	merge_tree "$common" "$amd64" "$KSRC" ||
	    { BPFCC_WHY="cannot merge $common and $amd64"; return 1; }
}

# The union of two trees, the second winning, as symbolic links: a
# directory in both is merged, anything else is linked.  A hundred links
# or so, where cp -rs makes tens of thousands.
merge_tree () {
	local e n
	mkdir "$3" || return 1
	for e in "$1"/* "$1"/.[!.]* "$2"/* "$2"/.[!.]*; do
		test -e "$e" || test -L "$e" || continue
		n=${e##*/}
		test -e "$3/$n" || test -L "$3/$n" && continue
		if test -d "$1/$n" && ! test -L "$1/$n" &&
		    test -d "$2/$n" && ! test -L "$2/$n"; then
			merge_tree "$1/$n" "$2/$n" "$3/$n" || return 1
		elif test -e "$2/$n" || test -L "$2/$n"; then
			ln -s "$2/$n" "$3/$n" || return 1
		else
			ln -s "$1/$n" "$3/$n" || return 1
		fi
	done
}
if ! bench_have profile-bpfcc; then
	BPFCC_WHY="profile-bpfcc not found: apt-get install bpfcc-tools"
elif bpfcc_kernel_source; then
	BPFCC=profile-bpfcc
fi

# ---- the workload: one burning thread per CPU, for the whole run
bench_run burn "$BURN" -j "$NCPU" -t 100000
bench_wait_log "$BENCH_TMP/burn.out" '^ready' 10 ||
    bench_die "burn did not start"

# How much CPU the workload got: were the CPUs busy?
burn_cpu () {
	bench_cpu_ms "$BENCH_PID_burn"
}
# Processes created on the machine so far: ebpfspyd reads the maps of
# every new process it samples, and each exec and exit is an event.
forks () {
	awk '$1 == "processes" { print $2 }' /proc/stat
}
rate () {
	echo "$1 $2 $3" | awk '{ printf "%.0f", ($1 - $2) / $3 }'
}

# ---- ebpfspyd
cat >"$BENCH_TMP/ebpfspy.conf" <<EOF
[profile]
cpu = yes
offcpu = no
sample_rate = 97
EOF
b0=$(burn_cpu)
t0=$(bench_now)
bench_run ebpfspyd "$EBPFSPYD" -d -c "$BENCH_TMP/ebpfspy.conf" \
    -o "$BENCH_TMP/out"
bench_wait_log "$BENCH_TMP/ebpfspyd.out" '^ready: ' 60 || {
	cat "$BENCH_TMP/ebpfspyd.out"
	bench_die "ebpfspyd did not get ready"
}
t1=$(bench_now)
f0=$(forks)
e_start=$(bench_cpu_exact_ms "$BENCH_PID_ebpfspyd")
e_startwall=$(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }')
bench_watch ebpfspyd "$SECS"
# SIGUSR1: the daemon logs its state, its symbol tables among it.
kill -USR1 "$BENCH_PID_ebpfspyd"
bench_wait_log "$BENCH_TMP/ebpfspyd.out" '^symbols: ' 10
bench_stop_watch ebpfspyd TERM
t2=$(bench_now)
b1=$(burn_cpu)
e_total=$(bench_total_cpu_ms ebpfspyd)
e_secs=$(echo "$t2 $t1" | awk '{ print $1 - $2 }')
e_steady=$((e_total - e_start))
e_hwm=$(cat "$BENCH_TMP/ebpfspyd.hwm")
e_samples=$(cat "$BENCH_TMP"/out/cpu/*/*.folded 2>/dev/null |
    awk '{ s += $NF } END { print s + 0 }')
e_rounds=$(ls "$BENCH_TMP"/out/cpu/*/ 2>/dev/null | sed -n 's/\.folded$//p' |
    sort -u | wc -l)
e_burn=$(rate "$b1" "$b0" "$e_secs")
e_forks=$(rate "$(forks)" "$f0" "$e_secs")

# ---- perf record -a -g, then perf report
b0=$(burn_cpu)
f0=$(forks)
bench_run perf_record perf record -F 97 -a -g -o "$BENCH_TMP/perf.data"
bench_wait_perf_fds "$BENCH_PID_perf_record" 30 ||
    bench_die "perf record did not start: $(cat "$BENCH_TMP/perf_record.out")"
t1=$(bench_now)
p_start=$(bench_cpu_exact_ms "$BENCH_PID_perf_record")
bench_watch perf_record "$SECS"
bench_stop_watch perf_record INT
t2=$(bench_now)
b1=$(burn_cpu)
p_secs=$(echo "$t2 $t1" | awk '{ print $1 - $2 }')
p_rec=$(bench_total_cpu_ms perf_record)
p_rec_hwm=$(cat "$BENCH_TMP/perf_record.hwm")
p_burn=$(rate "$b1" "$b0" "$p_secs")
p_forks=$(rate "$(forks)" "$f0" "$p_secs")
r0=$(bench_now)
bench_run perf_report perf report -i "$BENCH_TMP/perf.data" --stdio
bench_watch perf_report 3600
bench_wait perf_report
r1=$(bench_now)
p_rep=$(bench_total_cpu_ms perf_report)
p_rep_hwm=$(cat "$BENCH_TMP/perf_report.hwm" 2>/dev/null || echo 0)
p_rep_wall=$(echo "$r1 $r0" | awk '{ printf "%.1f", $1 - $2 }')
p_samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' \
    "$BENCH_TMP/perf_record.out")
p_datakb=$(du -k "$BENCH_TMP/perf.data" | awk '{ print $1 }')
rm -f "$BENCH_TMP/perf.data"

# ---- profile-bpfcc -F 97 -f SECS
if test -n "$BPFCC"; then
	b0=$(burn_cpu)
	t0=$(bench_now)
	if test -n "$KSRC"; then
		bench_run bpfcc env BCC_KERNEL_SOURCE="$KSRC" \
		    profile-bpfcc -F 97 -f "$SECS"
	else
		bench_run bpfcc profile-bpfcc -F 97 -f "$SECS"
	fi
	# Compiled: its program is loaded; attached: a perf event per CPU.
	if bench_wait_fd "$BENCH_PID_bpfcc" bpf-prog 600 &&
	    bench_wait_perf_fds "$BENCH_PID_bpfcc" 60; then
		t1=$(bench_now)
		c_start=$(bench_cpu_exact_ms "$BENCH_PID_bpfcc")
		f0=$(forks)
		c_startwall=$(echo "$t1 $t0" | awk '{ printf "%.1f", $1 - $2 }')
		bench_watch bpfcc 3600
		bench_wait bpfcc
		t2=$(bench_now)
		b1=$(burn_cpu)
		c_total=$(bench_total_cpu_ms bpfcc)
		c_secs=$(echo "$t2 $t1" | awk '{ print $1 - $2 }')
		c_steady=$((c_total - c_start))
		c_hwm=$(cat "$BENCH_TMP/bpfcc.hwm")
		c_samples=$(awk '/^[^ ].* [0-9]+$/ { s += $NF }
		    END { print s + 0 }' "$BENCH_TMP/bpfcc.out")
		c_burn=$(rate "$b1" "$b0" "$c_secs")
		c_forks=$(rate "$(forks)" "$f0" "$c_secs")
	else
		bench_wait bpfcc
		BPFCC_WHY="profile-bpfcc failed: $(grep -E \
		    'error|Exception' "$BENCH_TMP/bpfcc.out" | head -n 3)"
		BPFCC=
	fi
fi
bench_stop burn

# ---- the table
pct () { echo "$1 $2" | awk '{ printf "%.3f", $1 / $2 / 10 }'; }
per_s () { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
mb () { echo "$1" | awk '{ printf "%.1f", $1 / 1024 }'; }

e_ps=$(per_s "$e_steady" "$e_secs")
p_ps=$(per_s $((p_rec + p_rep)) "$p_secs")
printf '%-22s %10s %16s %9s %9s %8s %8s %8s %6s\n' "tool" "start-up" \
    "profiling" "CPU/s" "% of a" "peak" "samples" "burn got" "forks"
printf '%-22s %10s %16s %9s %9s %8s %8s %8s %6s\n' "" "CPU ms" \
    "CPU ms / s" "ms" "core" "RSS MB" "" "CPU ms/s" "per s"
printf '%-22s %10s %16s %9s %9s %8s %8s %8s %6s\n' ebpfspyd "$e_start" \
    "$e_steady / $(printf %.1f "$e_secs")" "$e_ps" \
    "$(pct "$e_steady" "$e_secs")" "$(mb "$e_hwm")" "$e_samples" \
    "$e_burn" "$e_forks"
printf '%-22s %10s %16s %9s %9s %8s %8s %8s %6s\n' "perf record + report" \
    "$p_start" "$((p_rec + p_rep)) / $(printf %.1f "$p_secs")" "$p_ps" \
    "$(pct $((p_rec + p_rep)) "$p_secs")" \
    "$(mb "$(echo "$p_rec_hwm $p_rep_hwm" |
    awk '{ m = $1; if ($2 > m) m = $2; print m }')")" "$p_samples" \
    "$p_burn" "$p_forks"
printf '%-22s %10s %16s %9s %9s %8s\n' "  perf record" "" \
    "$p_rec" "$(per_s "$p_rec" "$p_secs")" \
    "$(pct "$p_rec" "$p_secs")" "$(mb "$p_rec_hwm")"
printf '%-22s %10s %16s %9s %9s %8s\n' "  perf report" "" \
    "$p_rep" "$(per_s "$p_rep" "$p_secs")" \
    "$(pct "$p_rep" "$p_secs")" "$(mb "$p_rep_hwm")"
if test -n "$BPFCC"; then
	c_ps=$(per_s "$c_steady" "$c_secs")
	printf '%-22s %10s %16s %9s %9s %8s %8s %8s %6s\n' profile-bpfcc \
	    "$c_start" "$c_steady / $(printf %.1f "$c_secs")" "$c_ps" \
	    "$(pct "$c_steady" "$c_secs")" "$(mb "$c_hwm")" "$c_samples" \
	    "$c_burn" "$c_forks"
fi
echo
if test -n "$BPFCC"; then
	echo "start-up: ebpfspyd ready after $e_startwall s; profile-bpfcc" \
	    "compiled and attached after $c_startwall s."
else
	echo "start-up: ebpfspyd ready after $e_startwall s."
fi
echo "profiling: ebpfspyd from ready to exit ($e_rounds rounds, the" \
    "final one included); perf"
echo "record until SIGINT, plus perf report --stdio (${p_rep_wall} s," \
    "perf.data ${p_datakb} KiB);"
echo "profile-bpfcc from attach to exit (its folded output included)."
echo "Not counted anywhere: the in-kernel cost of taking a sample, which"
echo "is charged to the sampled task (burn), for all three tools."
echo "forks per s: processes created on the whole machine meanwhile;"
echo "ebpfspyd reads /proc/PID/maps and symbol tables of each new process"
echo "at its first sample (not at its exec)."
sed -n 's/^symbols: .*; \([0-9]*\) tables (\([0-9]*\) bytes).*/\1 \2/p' \
    "$BENCH_TMP/ebpfspyd.out" | awk '{ printf "ebpfspyd held %d symbol" \
    " tables, %.1f MB, at the end (SIGUSR1).\n", $1, $2 / 1048576 }'

echo
echo "ratios (CPU per second of profiling):"
ratio () { echo "$1 $2" | awk '{ if ($2 > 0) printf "%.3f", $1 / $2;
    else printf "n/a" }'; }
verdict () { if echo "$1 $2" | awk '{ exit !($1 < $2) }'; then
    echo met; else echo MISSED; fi; }
printf '  ebpfspyd / (perf record + report)  %8s\n' \
    "$(ratio "$e_ps" "$p_ps")"
if test -n "$BPFCC"; then
	printf '  ebpfspyd / profile-bpfcc (steady)  %8s   goal <= 0.2: %s\n' \
	    "$(ratio "$e_ps" "$c_ps")" \
	    "$(verdict "$(ratio "$e_ps" "$c_ps")" 0.2000001)"
	printf '  profile-bpfcc start-up compile     %8s CPU ms\n' "$c_start"
else
	echo "  ebpfspyd / profile-bpfcc           not measured: $BPFCC_WHY"
fi
printf '  ebpfspyd %% of one core             %8s%%  goal < 0.5%%: %s\n' \
    "$(pct "$e_steady" "$e_secs")" \
    "$(verdict "$(pct "$e_steady" "$e_secs")" 0.5)"
printf '  ebpfspyd peak RSS                  %8s MB goal < 30 MB: %s\n' \
    "$(mb "$e_hwm")" "$(verdict "$(mb "$e_hwm")" 30)"
