# lib-bench.sh: what the benchmark scripts share.  Source it from bash
# after setting BENCH_NAME; it takes the build directory from the first
# argument, else $EBPFSPY_BUILD_DIR, else the repository's ./ or ./build.
#
#   bench_need CMD PACKAGE	fail, naming the Debian package, if CMD is
#				missing
#   bench_have CMD		true if CMD is on the PATH
#   bench_run NAME CMD...	run CMD in the background; its pid in
#				$BENCH_PID, its output in $BENCH_TMP/NAME.out,
#				its CPU time (with its children) recorded
#				when it exits; killed when the script ends
#   bench_wait NAME		wait for NAME to exit
#   bench_stop NAME [SIG]	send SIG (TERM) to NAME, wait for it
#   bench_wait_log FILE ERE [SECS]
#				wait until a line of FILE matches ERE
#   bench_wait_fd PID TEXT [SECS [N]]
#				wait until N (1) descriptors of PID link to
#				TEXT (anon_inode:bpf_link: a BPF program
#				attached)
#   bench_wait_perf_fds PID [SECS]
#				wait until PID holds a perf event per CPU:
#				attached
#   bench_cpu_ms PID		user+sys CPU of PID and its reaped children
#   bench_cpu_exact_ms PID	the same, to the ms where the kernel allows
#   bench_total_cpu_ms NAME	user+sys CPU of NAME at its exit (exact)
#   bench_hwm_kb PID		peak RSS (VmHWM) of PID, KiB
#   bench_watch NAME SECS	sleep SECS, or until NAME exits, keeping
#				its peak RSS (KiB) in $BENCH_TMP/NAME.hwm
#   bench_stop_watch NAME [SIG]	bench_stop, keeping the peak RSS until
#				the exit
#   bench_now			monotonic seconds, float
#   bench_sleep SECS		sleep without a fork
#   bench_median N...		the median
#   bench_header TITLE		the title, the machine and its load
#   bench_bpf_stats_on		kernel.bpf_stats_enabled=1 until the script
#				ends, then as it was
#   bench_prog_id PID NAME	the id of the BPF program NAME that PID's
#				links hold
#   bench_prog_stats ID		"run_time_ns run_cnt" of a BPF program
#				(kernel.bpf_stats_enabled=1)
#   bench_prog_measure ID NAME N CMD...
#				run N copies of CMD to their end, printing
#				"ns_per_run runs" of program ID meanwhile
#   bench_conf_default FILE	the default keys (conf/ebpfspy.conf) into
#				FILE, the metrics on a port of their own,
#				$BENCH_PORT
#   bench_start_daemon CONF	ebpfspyd -d with CONF, its output, log and
#				pidfile in $BENCH_TMP, as NAME ebpfspyd;
#				waits for its ready line
#
# Everything started with bench_run is killed, by pid, when the script
# exits or is interrupted, and $BENCH_TMP is removed.

set -u
LC_ALL=C
export LC_ALL

bench_die () {
	echo >&2 "$BENCH_NAME: $*"
	exit 1
}

bench_have () {
	command -v "$1" >/dev/null 2>&1
}

bench_need () {
	bench_have "$1" || bench_die "$1 not found: apt-get install $2"
}

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
BENCH_REPO=$(dirname "$BENCH_DIR")
if test $# -gt 0 && test -n "$1"; then
	BUILD_DIR=$1
elif test -n "${EBPFSPY_BUILD_DIR:-}"; then
	BUILD_DIR=$EBPFSPY_BUILD_DIR
elif test -x "$BENCH_REPO/ebpfspyd"; then
	BUILD_DIR=$BENCH_REPO
else
	BUILD_DIR=$BENCH_REPO/build
fi
BUILD_DIR=$(cd "$BUILD_DIR" 2>/dev/null && pwd) ||
    bench_die "no build directory: give it as the first argument or" \
    "EBPFSPY_BUILD_DIR"
EBPFSPYD=$BUILD_DIR/ebpfspyd
BURN=$BUILD_DIR/t/helper/burn
WAITER=$BUILD_DIR/t/helper/waiter
test -x "$EBPFSPYD" || bench_die "$EBPFSPYD not found: build it (make)"
test -x "$BURN" && test -x "$WAITER" ||
    bench_die "$BURN or $WAITER not found: build them" \
    "(make check TESTS=)"
test "$(id -u)" = 0 || bench_die "run as root: BPF and perf -a need it"

CLK_TCK=$(getconf CLK_TCK)
BENCH_TMP=$(mktemp -d "/tmp/ebpfspy-bench.XXXXXX") ||
    bench_die "mktemp failed"
BENCH_WRAPS=

# Is $1 a live child of $2?  A pid that has been reaped may already
# name someone else's process: never signal it.
bench_is_child_ () {
	local st
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	st=${st##*) }
	set -- "$2" $st
	test "$3" = "$1" && test "$2" != Z
}

# Each wrapper forwards SIGTERM to its command; what is left after 5 s
# is killed.
bench_cleanup_ () {
	local w i live
	trap - EXIT INT TERM HUP
	for w in $BENCH_WRAPS; do
		bench_is_child_ "$w" $$ && kill -TERM "$w" 2>/dev/null
	done
	for i in 1 2 3 4 5 6 7 8 9 10; do
		live=
		for w in $BENCH_WRAPS; do
			bench_is_child_ "$w" $$ && live=$w
		done
		test -z "$live" && break
		sleep 0.5
	done
	for w in $BENCH_WRAPS; do
		bench_is_child_ "$w" $$ || continue
		for i in /proc/[0-9]*; do
			bench_is_child_ "${i#/proc/}" "$w" &&
			    kill -KILL "${i#/proc/}" 2>/dev/null
		done
		kill -KILL "$w" 2>/dev/null
	done
	wait 2>/dev/null
	if test -n "${BENCH_KEEP:-}"; then
		echo "kept $BENCH_TMP" >&2
	else
		rm -rf "$BENCH_TMP"
	fi
}
trap bench_cleanup_ EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# read -t on a FIFO that nobody writes: a sleep that forks nothing, for
# the polling loops, which should not load the machine they measure.
mkfifo "$BENCH_TMP/sleep" && exec 9<>"$BENCH_TMP/sleep" ||
    bench_die "cannot make a FIFO in $BENCH_TMP"
bench_sleep () {
	read -r -t "$1" -u 9 _
	return 0
}

bench_now () {
	local up
	read -r up _ </proc/uptime
	echo "$up"
}

# A non-interactive bash starts a background command with SIGINT
# ignored; with job control (set -m) it does not, so perf and offcputime
# stop on SIGINT.  The wrapper outlives its command: a Ctrl-C, or our
# SIGTERM, becomes a SIGTERM to the command, and the wrapper's `times'
# gives the exact CPU time of the command and its children once it has
# exited.
bench_run () {
	local name=$1
	shift
	rm -f "$BENCH_TMP/$name.times" "$BENCH_TMP/$name.pid"
	bash -c 'set -m; f=$1; shift; "$@" & p=$!; echo $p >"$f.pid"
	    trap "kill -TERM $p 2>/dev/null" TERM INT HUP
	    wait $p; rc=$?
	    if test $rc -gt 128; then wait $p; r=$?; test $r = 127 || rc=$r; fi
	    times >"$f.times"; exit $rc' _ "$BENCH_TMP/$name" "$@" \
	    </dev/null >"$BENCH_TMP/$name.out" 2>&1 9>&- &
	BENCH_WRAPS="$BENCH_WRAPS $!"
	eval "BENCH_WRAP_$name=$!"
	while ! test -s "$BENCH_TMP/$name.pid"; do
		bench_sleep 0.01
	done
	BENCH_PID=$(cat "$BENCH_TMP/$name.pid")
	eval "BENCH_PID_$name=$BENCH_PID"
}

bench_wait () {
	local wrap
	eval "wrap=\$BENCH_WRAP_$1"
	wait "$wrap" 2>/dev/null
	BENCH_WRAPS=$(echo "$BENCH_WRAPS" | sed "s/ $wrap\b//")
}

# The command is signalled only while it is its wrapper's child.
bench_stop () {
	local pid wrap
	eval "pid=\$BENCH_PID_$1 wrap=\$BENCH_WRAP_$1"
	bench_is_child_ "$pid" "$wrap" && kill "-${2:-TERM}" "$pid" 2>/dev/null
	bench_wait "$1"
}

bench_wait_log () {
	local steps=$((${3:-60} * 20))
	while test $steps -gt 0; do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		bench_sleep 0.05
		steps=$((steps - 1))
	done
	return 1
}

bench_wait_fd () {
	local steps=$((${3:-60} * 20)) fd n
	while test $steps -gt 0; do
		kill -0 "$1" 2>/dev/null || return 1
		n=0
		for fd in /proc/"$1"/fd/*; do
			case $(readlink "$fd" 2>/dev/null) in
			*$2*) n=$((n + 1)) ;;
			esac
		done
		test $n -ge "${4:-1}" && return 0
		bench_sleep 0.05
		steps=$((steps - 1))
	done
	return 1
}

# One perf event per CPU: a tool that profiles the whole machine has
# attached when it holds that many.  profile-bpfcc once held a perf
# event a second before its compile was done, and its compile was then
# counted as its steady state.
bench_wait_perf_fds () {
	bench_wait_fd "$1" perf_event "${2:-60}" "$(nproc)"
}

bench_cpu_ms () {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	echo "${stat##*) }" | awk -v tck="$CLK_TCK" \
	    '{ printf "%d\n", ($12 + $13 + $14 + $15) * 1000 / tck }'
}

# /proc/PID/stat counts in clock ticks (10 ms), and rounds user and
# sys down apart: a start-up figure taken so is up to 20 ms short, and
# that much lands in the steady figure, which is exact (`times' at
# exit).  /proc/PID/task/*/schedstat holds each live thread's run time
# in ns: with the reaped children's ticks, it is exact for a process
# whose threads all live; a thread that has exited is only in the
# ticks, so the larger of the two is taken.
bench_cpu_exact_ms () {
	local ticks ns=0 t run stat
	ticks=$(bench_cpu_ms "$1")
	for t in /proc/"$1"/task/*/schedstat; do
		read -r run _ 2>/dev/null <"$t" || continue
		ns=$((ns + run))
	done
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo "$ticks"; return; }
	echo "${stat##*) }" | awk -v tck="$CLK_TCK" -v ns="$ns" \
	    -v ticks="$ticks" '{
		ms = ns / 1000000 + ($14 + $15) * 1000 / tck
		printf "%d\n", (ms > ticks ? ms : ticks)
	}'
}

# `times': a line for the shell, then one for its children, as
# 0m1.234s 0m0.567s.
bench_total_cpu_ms () {
	awk 'NR == 2 {
		t = 0
		for (i = 1; i <= 2; i++) {
			split($i, p, "m")
			sub("s", "", p[2])
			t += p[1] * 60000 + p[2] * 1000
		}
		printf "%d\n", t
	}' "$BENCH_TMP/$1.times" 2>/dev/null
}

bench_hwm_kb () {
	awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

# Polls ten times a second, reading /proc without a fork.
bench_watch () {
	local pid wrap steps=$(($2 * 10)) k v
	eval "pid=\$BENCH_PID_$1 wrap=\$BENCH_WRAP_$1"
	while bench_is_child_ "$pid" "$wrap"; do
		while read -r k v _; do
			if test "$k" = VmHWM:; then
				echo "$v" >"$BENCH_TMP/$1.hwm"
				break
			fi
		done 2>/dev/null <"/proc/$pid/status"
		test "$steps" -le 0 && break
		steps=$((steps - 1))
		bench_sleep 0.1
	done
}

bench_stop_watch () {
	local pid wrap
	eval "pid=\$BENCH_PID_$1 wrap=\$BENCH_WRAP_$1"
	bench_watch "$1" 0
	bench_is_child_ "$pid" "$wrap" && kill "-${2:-TERM}" "$pid" 2>/dev/null
	bench_watch "$1" 3600
	bench_wait "$1"
}

bench_median () {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
	    END { if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

bench_header () {
	local load
	read -r load _ </proc/loadavg
	echo "== $*"
	echo "   $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -sr)," \
	    "$(nproc) CPUs, load average $load before the run"
	echo "   ebpfspyd: $EBPFSPYD"
	bench_others_
	echo
}

# Profilers that others run on this machine add their own cost to every
# figure here: name them.
bench_others_ () {
	local d c list=
	for d in /proc/[0-9]*; do
		c=$(cat "$d/comm" 2>/dev/null) || continue
		case $c in
		ebpfspyd|perf|offcputime|profile-bpfcc|bpftrace)
			list="$list ${d#/proc/}($c)"
			;;
		esac
	done
	test -n "$list" &&
	    echo "   other profilers running (not ours):$list"
	return 0
}

bench_prog_id () {
	local fd id name
	for fd in /proc/"$1"/fdinfo/*; do
		id=$(awk '$1 == "prog_id:" { print $2 }' "$fd" 2>/dev/null)
		test -n "$id" || continue
		name=$(bpftool prog show id "$id" 2>/dev/null |
		    sed -n 's/^[0-9]*: [a-z_]*  name \([a-z_]*\) .*/\1/p')
		if test "$name" = "$2"; then
			echo "$id"
			return
		fi
	done
}

bench_prog_stats () {
	bpftool prog show id "$1" --json | python3 -c '
import json, sys
p = json.load(sys.stdin)
print(p.get("run_time_ns", 0), p.get("run_cnt", 0))'
}

bench_prog_measure () {
	local prog=$1 name=$2 n=$3 i t0 c0 t1 c1
	shift 3
	read -r t0 c0 <<<"$(bench_prog_stats "$prog")"
	for i in $(seq "$n"); do
		bench_run "$name$i" "$@"
	done
	for i in $(seq "$n"); do
		bench_wait "$name$i"
	done
	read -r t1 c1 <<<"$(bench_prog_stats "$prog")"
	awk -v t=$((t1 - t0)) -v c=$((c1 - c0)) \
	    'BEGIN { printf "%.0f %d\n", c ? t / c : 0, c }'
}

bench_bpf_stats_on () {
	BENCH_OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q -w kernel.bpf_stats_enabled=1 ||
	    bench_die "cannot set kernel.bpf_stats_enabled"
	trap 'sysctl -q -w kernel.bpf_stats_enabled="$BENCH_OLD_STATS";
	    bench_cleanup_' EXIT
}

bench_conf_default () {
	BENCH_PORT=$((20000 + $$ % 20000))
	sed -e "s|^listen = .*|listen = 127.0.0.1:$BENCH_PORT|" \
	    "$BENCH_REPO/conf/ebpfspy.conf" >"$1" ||
	    bench_die "cannot read $BENCH_REPO/conf/ebpfspy.conf"
}

bench_start_daemon () {
	bench_run ebpfspyd "$EBPFSPYD" -d -c "$1" -o "$BENCH_TMP/out" \
	    -p "$BENCH_TMP/ebpfspyd.pid"
	bench_wait_log "$BENCH_TMP/ebpfspyd.out" '^ready: ' 60 || {
		cat "$BENCH_TMP/ebpfspyd.out"
		bench_die "ebpfspyd did not get ready"
	}
}
