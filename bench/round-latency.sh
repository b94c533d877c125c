#!/bin/bash
# round-latency.sh: how long ebpfspyd takes to collect, symbolize and
# write a round that holds 10,000 distinct stacks or more (goal: under
# 50 ms), from its own `round N: C counts, P profiles, X ms' lines (-v).
#
#   bench/round-latency.sh [build-dir]
#
# t/helper/burn -m stacks -d 7 walks 4^7 distinct call paths, each ending
# in burn_a or burn_b: 32768 distinct stacks.  Sampled at 4999 Hz with a
# round every 10 s, a round holds over 10,000 of them when burn's two
# threads get a CPU between them (the table shows how many: the lines of
# burn's folded file of that round; on a loaded machine, fewer).  The BPF maps are sized for it: at
# the default stack_map_entries (32768) the stack map fills and samples
# lose their stacks.  Beside each round's wall time, the CPU time the
# daemon used meanwhile (10 ms ticks): on a loaded machine the wall time
# also holds the time the daemon waited for a CPU.
BENCH_NAME=round-latency
. "$(dirname "$0")/lib-bench.sh"

ROUNDS=${BENCH_ROUNDS:-6}
INTERVAL=10
RATE=4999
DEPTH=7

bench_header "round latency: burn -m stacks -d $DEPTH at $RATE Hz," \
    "a round every $INTERVAL s, $ROUNDS rounds"

COMM=stk$$
cp "$BURN" "$BENCH_TMP/$COMM" || bench_die "cannot copy $BURN"
cat >"$BENCH_TMP/ebpfspy.conf" <<EOF
[daemon]
collect_interval = $INTERVAL
[profile]
cpu = yes
offcpu = no
sample_rate = $RATE
counts_map_entries = 262144
stack_map_entries = 262144
EOF

# burn first, so that the daemon's first round already holds its stacks.
bench_run burn "$BENCH_TMP/$COMM" -m stacks -d "$DEPTH" -j 2 \
    -t $((INTERVAL * (ROUNDS + 2) + 30))
bench_run ebpfspyd "$EBPFSPYD" -d -v -c "$BENCH_TMP/ebpfspy.conf" \
    -o "$BENCH_TMP/out"
bench_wait_log "$BENCH_TMP/ebpfspyd.out" '^ready: ' 60 || {
	cat "$BENCH_TMP/ebpfspyd.out"
	bench_die "ebpfspyd did not get ready"
}

# Follow the log, and the daemon's CPU time 50 times a second; at each
# `round N: ... X ms' line, the CPU it used in those X ms is the CPU now
# less the CPU X ms ago.  Reads only builtins: no fork.
exec 7<"$BENCH_TMP/ebpfspyd.out"
n=0
partial=
tn=0
: >"$BENCH_TMP/rounds"
cpu_now () {
	local st
	read -r st <"/proc/$BENCH_PID_ebpfspyd/stat" || return 1
	# shellcheck disable=SC2086
	set -- ${st##*) }
	cpu=$((${12} + ${13}))
}
while test "$n" -lt "$ROUNDS"; do
	cpu_now || bench_die "ebpfspyd exited: $(tail -n 5 \
	    "$BENCH_TMP/ebpfspyd.out")"
	read -r up _ </proc/uptime
	ts[tn]=${up/./}
	tc[tn]=$cpu
	tn=$(((tn + 1) % 1024))
	while IFS= read -r line <&7 || { partial=$partial$line; false; }; do
		line=$partial$line
		partial=
		case $line in
		"round "*) ;;
		*) continue ;;
		esac
		# X ms ago, in the hundredths of /proc/uptime.
		set -- $line
		ms=${7%.*}
		t0=$((${up/./} - ms / 10))
		c0=
		for ((i = 1; i < 1024; i++)); do
			j=$(((tn - i + 1024) % 1024))
			test -z "${ts[j]:-}" && break
			c0=${tc[j]}
			test "${ts[j]}" -le "$t0" && break
		done
		echo "$line $(((cpu - ${c0:-$cpu}) * 1000 / CLK_TCK))" \
		    >>"$BENCH_TMP/rounds"
		n=$((n + 1))
	done
	bench_sleep 0.02
done
exec 7<&-
bench_stop ebpfspyd TERM
bench_stop burn TERM

# The folded files of burn, oldest first: one per round.
ls "$BENCH_TMP/out/cpu/$COMM/"*.folded 2>/dev/null | sort |
    while read -r f; do
	awk '{ n++; if ($0 !~ /;burn_[ab]/) s += $NF }
	    END { print n + 0, s + 0 }' "$f"
done >"$BENCH_TMP/burnstacks"

printf '%6s %12s %14s %14s %10s %8s %10s\n' round "counts" "burn stacks" \
    "burn samples" "round" "round" "CPU ms per"
printf '%6s %12s %14s %14s %10s %8s %10s\n' "" "(all pids)" \
    "(folded lines)" "without stack" "wall ms" "CPU ms" "10k counts"
# "round N: C counts, P profiles, X ms CPU" beside "lines stackless".
paste -d' ' "$BENCH_TMP/rounds" "$BENCH_TMP/burnstacks" | awk '
	$1 == "round" {
		sub(":", "", $2)
		printf "%6s %12s %14s %14s %10s %8s %10.1f\n", $2, $3, $10,
		    $11, $7, $9, ($3 > 0 ? $9 * 10000 / $3 : 0)
	}' | tee "$BENCH_TMP/table"
echo
echo "counts: the distinct {pid, user stack, kernel stack} of the round, by"
echo "address (two samples at different places in burn_a are two counts);"
echo "burn stacks: the distinct named stacks of burn, one folded line each."
echo "Round 1 also reads the symbol tables of every process on the machine."
echo "Round CPU: the daemon's user + sys time during the round's wall time."

summary () {
	local label=$1 ms
	shift
	ms=$(awk "$@" "$BENCH_TMP/table")
	if test -z "$ms"; then
		printf '  %-40s none\n' "$label"
		return
	fi
	# shellcheck disable=SC2086
	printf '  %-40s min %7.1f  median %7.1f  max %7.1f ms (%d rounds)\n' \
	    "$label" \
	    "$(printf '%s\n' $ms | sort -g | head -n 1)" \
	    "$(bench_median $ms)" \
	    "$(printf '%s\n' $ms | sort -g | tail -n 1)" \
	    "$(printf '%s\n' $ms | wc -l)"
}
echo "rounds with >= 10,000 distinct burn stacks:"
summary "wall time, all" '$3 >= 10000 { print $5 }'
summary "wall time, from round 2 on" '$1 >= 2 && $3 >= 10000 { print $5 }'
summary "CPU time, from round 2 on" '$1 >= 2 && $3 >= 10000 { print $6 }'
summary "CPU per 10k counts, from round 2 on" \
    '$1 >= 2 && $3 >= 10000 { print $7 }'
med=$(bench_median $(awk '$1 >= 2 && $3 >= 10000 { print $5 }' \
    "$BENCH_TMP/table"))
cmed=$(bench_median $(awk '$1 >= 2 && $3 >= 10000 { print $6 }' \
    "$BENCH_TMP/table"))
if test -z "$med"; then
	echo "goal < 50 ms: not measured, no round from round 2 on held"
	echo "10,000 distinct burn stacks (the machine is too loaded?)"
else
	for m in "wall $med" "CPU $cmed"; do
		set -- $m
		if echo "$2" | awk '{ exit !($1 < 50) }'; then
			v=met
		else
			v=MISSED
		fi
		echo "goal < 50 ms, median $1 time from round 2 on, $2 ms: $v"
	done
fi
