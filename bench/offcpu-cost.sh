#!/bin/bash
# offcpu-cost.sh: what off-CPU profiling costs a context-switch-heavy
# program, and how much blocked time it finds.
#
#   bench/offcpu-cost.sh [build-dir]
#
# 1. A ping-pong of two processes through pipes, built as Debian builds
#    (t/helper/fplesswait -m pingpong: -O2 -g, no frame pointers, libc's
#    read() and write(), 8 and 9 user frames), under: nothing; ebpfspyd
#    with offcpu = no (on-CPU only, the default); ebpfspyd with offcpu =
#    yes; ebpfspyd with only offcpu, user stacks walked with unwind
#    tables (unwind = auto, the default: whole stacks); the same with
#    unwind = fp (frame pointers: libc's frame and the callers below it
#    are lost); libbpf-tools' offcputime (frame pointers only, so the
#    same incomplete stacks).  $BENCH_REPS (7) runs of each, the
#    configurations interleaved, medians printed, of the wall time per
#    op and of the CPU time per op (user + sys of both processes, from
#    their rusage: waiting for a CPU on a loaded machine does not
#    inflate it).  Both processes run on the last CPU (taskset), so each
#    op is two context switches on one CPU and other load moves the
#    figures less; BENCH_PIN=no lets them float.  BENCH_WORKLOAD=perf
#    runs `perf bench sched pipe' instead (Debian's perf, also built
#    without frame pointers; CPU from /proc, as before the walker), the
#    workload of the figures before it.  Goals: ebpfspyd's
#    off-CPU profiling with whole stacks slows the ping-pong less than
#    offcputime does, and by no more than 95% (the cost with frame
#    pointers before the walker); under 10% is the long-term goal.
# 2. t/helper/waiter -m split for 10 s, watched by ebpfspyd (offcpu) and
#    `offcputime -p PID' at once: the time each finds blocked in
#    wait_sleep and wait_pipe, beside what waiter measured itself.
BENCH_NAME=offcpu-cost
. "$(dirname "$0")/lib-bench.sh"

REPS=${BENCH_REPS:-7}
LOOPS=${BENCH_LOOPS:-200000}
FPLESSWAIT=$BUILD_DIR/t/helper/fplesswait
test -x "$FPLESSWAIT" ||
    bench_die "$FPLESSWAIT not found: build it (make check TESTS=)"
WORKLOAD=${BENCH_WORKLOAD:-pingpong}
case $WORKLOAD in
pingpong)	;;
perf)		bench_need perf linux-perf ;;
*)		bench_die "BENCH_WORKLOAD: pingpong or perf" ;;
esac
WSECS=10
PIN=
if test "${BENCH_PIN:-yes}" != no; then
	bench_need taskset util-linux
	PIN="taskset -c $(($(nproc) - 1))"
fi

OFFCPUTIME=
for c in offcputime libbpf-tools-offcputime /usr/sbin/offcputime \
    /usr/sbin/libbpf-tools-offcputime; do
	if bench_have "$c"; then
		OFFCPUTIME=$(command -v "$c")
		break
	fi
done
test -n "$OFFCPUTIME" ||
    bench_die "offcputime not found: apt-get install libbpf-tools"

bench_header "off-CPU profiling cost: ${PIN:+$PIN }$(test "$WORKLOAD" = perf &&
    echo perf bench sched pipe || echo fplesswait -m pingpong)" \
    "-l $LOOPS, $REPS runs per configuration"

# BPF programs that others attached to sched_switch slow every
# configuration here, the baseline included: name them.
if bench_have bpftool; then
	others=$(bpftool link show 2>/dev/null | awk '
	    /^[0-9]+: (tracing|raw_tracepoint) / {
		for (i = 1; i <= NF; i++) if ($i == "prog") print $(i + 1) }' |
	    while read -r id; do
		bpftool prog show id "$id" 2>/dev/null | awk -v id="$id" '
		    NR == 1 { for (i = 1; i <= NF; i++)
			if ($i == "name" && $(i + 1) ~ /switch/)
			    printf " %s(%s)", $(i + 1), id }'
	    done)
	echo "   BPF programs on sched_switch before the run (not ours):" \
	    "${others:- none}"
	echo
fi

conf () {
	cat >"$BENCH_TMP/$1.conf" <<EOF
[profile]
cpu = $2
offcpu = $3
unwind = $4
sample_rate = 97
EOF
}
conf cpu yes no auto
conf both yes yes auto
conf offcpu no yes auto
conf fp no yes fp

CONFIGS="none cpu both offcpu fp offcputime"
label () {
	case $1 in
	none)		echo "no profiler" ;;
	cpu)		echo "ebpfspyd offcpu = no (cpu)" ;;
	both)		echo "ebpfspyd offcpu = yes + cpu" ;;
	offcpu)		echo "ebpfspyd offcpu only, tables" ;;
	fp)		echo "ebpfspyd offcpu only, fp" ;;
	offcputime)	echo "offcputime (libbpf-tools)" ;;
	esac
}

tool_start () {
	case $1 in
	none)
		;;
	offcputime)
		bench_run tool "$OFFCPUTIME"
		bench_wait_fd "$BENCH_PID_tool" bpf_link 60 ||
		    bench_die "offcputime did not attach:" \
		    "$(head -n 5 "$BENCH_TMP/tool.out")"
		;;
	*)
		bench_run tool "$EBPFSPYD" -d -c "$BENCH_TMP/$1.conf" \
		    -o "$BENCH_TMP/out-$1"
		bench_wait_log "$BENCH_TMP/tool.out" '^ready: ' 60 || {
			cat "$BENCH_TMP/tool.out"
			bench_die "ebpfspyd did not get ready"
		}
		;;
	esac
}

tool_stop () {
	case $1 in
	none)		;;
	offcputime)	bench_stop tool INT ;;
	*)		bench_stop tool TERM ;;
	esac
}

# ---- 1. the ping-pong
# Per run: wall usecs/op and CPU usecs/op as the ping-pong measured
# them (its rusage and its child's: the BPF programs on sched_switch
# run in their context).  On a loaded machine the wall time also holds
# the time spent waiting for the CPU; the CPU time does not.  It runs
# under a name of its own (its profile is checked below).
PP=pp$$
cp "$FPLESSWAIT" "$BENCH_TMP/$PP" || bench_die "cannot copy $FPLESSWAIT"
for rep in $(seq 1 "$REPS"); do
	for c in $CONFIGS; do
		tool_start "$c"
		if test "$WORKLOAD" = perf; then
			bench_run pp $PIN perf bench sched pipe -l "$LOOPS"
			bench_wait pp
			awk -v cpu="$(bench_total_cpu_ms pp)" -v l="$LOOPS" '
			    /usecs\/op/ { u = $1 }
			    END { print u, cpu * 1000 / l }' "$BENCH_TMP/pp.out"
		else
			bench_run pp $PIN "$BENCH_TMP/$PP" -m pingpong \
			    -l "$LOOPS"
			bench_wait pp
			awk '$1 == "usecs/op" { u = $2 }
			    $1 == "cpu-usecs/op" { c = $2 }
			    END { print u, c }' "$BENCH_TMP/pp.out"
		fi >>"$BENCH_TMP/pipe-$c"
		tool_stop "$c"
	done
	test -t 2 && printf >&2 '  run %d of %d done\r' "$rep" "$REPS"
done
test -t 2 && printf >&2 '%30s\r' ""

col () { awk -v c="$1" '{ print $c }' "$BENCH_TMP/pipe-$2"; }
slow () { echo "$1 $2" | awk '{ printf "%.1f", ($1 / $2 - 1) * 100 }'; }
range () { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { a = $1 } { b = $1 }
    END { printf "%.2f..%.2f", a, b }'; }
printf '%-30s %24s %24s\n' "" "wall usecs/op" "CPU usecs/op"
printf '%-30s %7s %12s %6s %7s %12s %6s\n' "ping-pong under" median \
    "min..max" slower median "min..max" slower
for c in $CONFIGS; do
	eval "wall_$c=$(bench_median $(col 1 "$c"))"
	eval "cpu_$c=$(bench_median $(col 2 "$c"))"
done
for c in $CONFIGS; do
	eval "w=\$wall_$c u=\$cpu_$c"
	printf '%-30s %7.2f %12s %5s%% %7.2f %12s %5s%%\n' "$(label "$c")" \
	    "$w" "$(range $(col 1 "$c"))" "$(slow "$w" "$wall_none")" \
	    "$u" "$(range $(col 2 "$c"))" "$(slow "$u" "$cpu_none")"
done
echo
echo "off-CPU profiling on versus off, slowdown of the medians (wall, CPU):"
printf '  %-44s %6s%% %6s%%\n' "ebpfspyd offcpu = yes vs no (cpu on in both)" \
    "$(slow "$wall_both" "$wall_cpu")" "$(slow "$cpu_both" "$cpu_cpu")"
printf '  %-44s %6s%% %6s%%\n' "ebpfspyd offcpu only, tables, vs no profiler" \
    "$(slow "$wall_offcpu" "$wall_none")" "$(slow "$cpu_offcpu" "$cpu_none")"
printf '  %-44s %6s%% %6s%%\n' "ebpfspyd offcpu only, fp, vs no profiler" \
    "$(slow "$wall_fp" "$wall_none")" "$(slow "$cpu_fp" "$cpu_none")"
printf '  %-44s %6s%% %6s%%\n' "offcputime vs no profiler" \
    "$(slow "$wall_offcputime" "$wall_none")" \
    "$(slow "$cpu_offcputime" "$cpu_none")"
printf '  %-44s %7s %7s\n' "ebpfspyd offcpu only / offcputime" \
    "$(echo "$wall_offcpu $wall_offcputime" | awk '{ printf "%.3f", $1 / $2 }')" \
    "$(echo "$cpu_offcpu $cpu_offcputime" | awk '{ printf "%.3f", $1 / $2 }')"
for m in wall cpu; do
	eval "both=\$${m}_both cpu0=\$${m}_cpu only=\$${m}_offcpu"
	eval "none=\$${m}_none tool=\$${m}_offcputime"
	if echo "$(slow "$both" "$cpu0") $(slow "$only" "$none")" |
	    awk '{ exit !($1 < 10 && $2 < 10) }'; then
		v1=met
	else
		v1=MISSED
	fi
	if echo "$only $tool" | awk '{ exit !($1 < $2) }'; then
		v2=met
	else
		v2=MISSED
	fi
	if echo "$(slow "$only" "$none")" | awk '{ exit !($1 <= 95) }'; then
		v3=met
	else
		v3=MISSED
	fi
	echo "goal ($m): less than offcputime's: $v2; at most +95%: $v3;" \
	    "under 10%: $v1"
done
# What a blocking switch costs, CPU: two a loop, over the no profiler.
echo "CPU per blocking switch over no profiler: tables $(echo \
    "$cpu_offcpu $cpu_none" | awk '{ printf "%.2f", ($1 - $2) / 2 }') us," \
    "fp $(echo "$cpu_fp $cpu_none" | awk '{ printf "%.2f", ($1 - $2) / 2 }') us"
# The stacks the tables found, against frame pointers': the share of the
# ping-pong's blocked time whose stack reaches main through pp_ping or
# pp_child (the parent's and the child's waits); GCC may inline
# pingpong, called once, into main.
whole () {
	cat "$BENCH_TMP/out-$1/offcpu/$PP/"*.folded 2>/dev/null | awk '
	    { all += $NF }
	    /;main;(pingpong;)?(pp_ping|pp_child;pp_echo);(read|write)_byte;/ {
		whole += $NF }
	    END { if (all > 0) printf "%.1f%%", whole * 100 / all
		else printf "n/a" }'
}
test "$WORKLOAD" = pingpong &&
    echo "ping-pong's blocked time whose stack reaches main with its" \
    "callers: tables $(whole offcpu), fp $(whole fp)"
echo

# ---- 2. blocked time of waiter -m split, both tools at once
COMM=wt$$
cp "$WAITER" "$BENCH_TMP/$COMM" || bench_die "cannot copy $WAITER"
mkfifo "$BENCH_TMP/go"
bench_run ebpfspyd "$EBPFSPYD" -d -c "$BENCH_TMP/offcpu.conf" \
    -o "$BENCH_TMP/out-waiter"
bench_wait_log "$BENCH_TMP/ebpfspyd.out" '^ready: ' 60 || {
	cat "$BENCH_TMP/ebpfspyd.out"
	bench_die "ebpfspyd did not get ready"
}
# The waiter waits for both tools, then execs under the same pid.
bench_run waiter sh -c 'read go <"$1"; exec "$2" -m split -t "$3"' _ \
    "$BENCH_TMP/go" "$BENCH_TMP/$COMM" "$WSECS"
bench_run oct "$OFFCPUTIME" -p "$BENCH_PID_waiter"
bench_wait_fd "$BENCH_PID_oct" bpf_link 60 ||
    bench_die "offcputime did not attach: $(head -n 5 "$BENCH_TMP/oct.out")"
echo go >"$BENCH_TMP/go"
bench_wait waiter
bench_stop oct INT
bench_stop ebpfspyd TERM

# offcputime: frames, leaf first, then "-  comm (tid)", then microseconds.
# It names user frames when it exits, from /proc/PID/maps: the waiter
# is gone by then ("failed to get syms"), so threads are told apart by
# their ids, given in the order waiter creates them: main (feed_pipe),
# wait_sleep, wait_pipe.
awk '/^ +- / { t = $NF; gsub("[()]", "", t); getline v; us[t] += v }
    END { for (t in us) print t, us[t] }' "$BENCH_TMP/oct.out" |
    sort -n >"$BENCH_TMP/oct.tids"
read -r os op ot < <(awk -v pid="$BENCH_PID_waiter" '
	{ all += $2 }
	$1 > pid && n++ == 0 { s = $2 }
	$1 > pid && n == 2 { p = $2 }
	END { printf "%.0f %.0f %.0f\n", s * 1000, p * 1000, all * 1000 }' \
    "$BENCH_TMP/oct.tids")
oct_named=no
grep -q '^ *wait_sleep$' "$BENCH_TMP/oct.out" && oct_named=yes
read -r es ep et < <(cat "$BENCH_TMP/out-waiter/offcpu/$COMM/"*.folded \
    2>/dev/null | awk '
	/;wait_sleep(;| )/ { s += $NF }
	/;wait_pipe(;| )/ { p += $NF }
	{ all += $NF }
	END { printf "%.0f %.0f %.0f\n", s, p, all }')
ws=$(awk '$2 == "wait_sleep" { print $3 }' "$BENCH_TMP/waiter.out")
wp=$(awk '$2 == "wait_pipe" { print $3 }' "$BENCH_TMP/waiter.out")

sec () { echo "$1" | awk '{ printf "%.3f", $1 / 1e9 }'; }
of () { echo "$1 $2" | awk '{ if ($2 > 0) printf "%.3f", $1 / $2;
    else printf "n/a" }'; }
echo "blocked time of waiter -m split -t $WSECS, seconds (ratio to waiter's own):"
printf '%-12s %12s %20s %20s\n' "" "waiter" "ebpfspyd" "offcputime"
printf '%-12s %12s %12s (%5s) %12s (%5s)\n' wait_sleep "$(sec "$ws")" \
    "$(sec "$es")" "$(of "$es" "$ws")" "$(sec "$os")" "$(of "$os" "$ws")"
printf '%-12s %12s %12s (%5s) %12s (%5s)\n' wait_pipe "$(sec "$wp")" \
    "$(sec "$ep")" "$(of "$ep" "$wp")" "$(sec "$op")" "$(of "$op" "$wp")"
printf '%-12s %12s %12s %7s %12s\n' "all threads" "" "$(sec "$et")" "" \
    "$(sec "$ot")"
echo
echo "ebpfspyd: by function, from its folded files.  offcputime: by thread"
echo "id; it named waiter's user frames: $oct_named (it reads a process's"
echo "maps only when it exits itself, and the waiter had exited by then)."
echo "All threads: main (feed_pipe) too, and for ebpfspyd also the wait for"
echo "the start signal before the exec, which began before offcputime was"
echo "attached."
