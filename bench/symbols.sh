#!/bin/bash
# symbols.sh: the symbolizer, in one run.
#
#   bench/symbols.sh [build-dir]
#
# 1. Tables: for libc (with its debug file when libc6-dbg is installed,
#    and without), python3, a Go binary, a generated library of 100,000
#    functions and the kernel (kallsyms): the time to load the table,
#    cached lookups per second cycling through the functions' addresses,
#    the table's memory, per symbol; for Go, the time to look up a
#    source file and line (pprof's, on the first sample of an address).  `resolve -B' (t/helper) does what
#    the daemon does; each figure is the median of $BENCH_REPS (5) runs.
#    Goals: over 10 million cached lookups a second, a 100,000-symbol
#    table loaded in under 30 ms.
# 2. Peers on the same libc addresses: addr2line (binutils),
#    eu-addr2line (elfutils) and llvm-symbolizer when installed; the time
#    per address, and how often they name a function as we do.
# 3. perf report: perf record -g of three workloads (C, Python, Go when
#    Go is installed), perf report's time, and the user frames of the
#    same samples named by us, against perf's names.
# 4. The share of frames named in a whole-machine profile of
#    $BENCH_SECONDS (15) seconds, from the daemon's folded stacks.
BENCH_NAME=symbols
. "$(dirname "$0")/lib-bench.sh"

RESOLVE=$BUILD_DIR/t/helper/resolve
REPS=${BENCH_REPS:-5}
SECS=${BENCH_SECONDS:-15}
LOOKUPS=${BENCH_LOOKUPS:-10000000}
LIBC=$(ldd /bin/true | awk '$1 ~ /^libc\.so/ { print $3 }')

test -x "$RESOLVE" || bench_die "$RESOLVE not found: make check TESTS="
bench_need nm binutils
bench_need cc gcc
bench_header "symbol resolution: tables, peers, perf report, a" \
    "whole-machine profile"

# field FILE NAME: the value after NAME in the "NAME value" lines.
field () {
	awk -v k="$2" '$1 == k { print $2; exit }' "$1"
}

# table LABEL ADDRS RESOLVE-ARGS...: load, lookups, memory.
table () {
	local label=$1 addrs=$2 cpus= warms= rates= i out=$BENCH_TMP/table.out
	shift 2
	for ((i = 0; i < REPS; i++)); do
		"$RESOLVE" -B -n "$LOOKUPS" "$@" - <"$addrs" >"$out" 2>&1 || {
			printf '  %-30s failed: %s\n' "$label" "$(head -1 "$out")"
			return
		}
		cpus="$cpus $(field "$out" load_cpu_ms)"
		warms="$warms $(field "$out" warm_load_cpu_ms)"
		rates="$rates $(field "$out" lookups_per_sec)"
	done
	local syms bytes cpu warm rate
	syms=$(field "$out" symbols)
	bytes=$(field "$out" table_bytes)
	cpu=$(bench_median $cpus)
	warm=-
	test -n "${warms// /}" && warm=$(bench_median $warms)
	rate=$(bench_median $rates)
	printf '  %-27s %7s %8.2f %8s %8.1f %10s %5.1f\n' "$label" "$syms" \
	    "$cpu" "$warm" "$(echo "$rate" | awk '{ print $1 / 1e6 }')" \
	    "$bytes" "$(echo "$bytes $syms" | awk '{ print $2 ? $1 / $2 : 0 }')"
	if test -n "$(field "$out" line_ns)"; then
		printf '  %-27s %s ns a source line (Go'"'"'s line tables are' \
		    "" "$(field "$out" line_ns)"
		echo " in its bytes)"
	fi
	echo "$label|$syms $cpu $warm $rate" >>"$BENCH_TMP/tables"
}

# Function addresses of a file, from nm (-D: the dynamic symbols).
nm_funcs () {
	nm ${2:-} --defined-only "$1" 2>/dev/null |
	    awk '$2 ~ /^[TtWi]$/ { print $1 }' | sort -u
}

echo "1. Tables: load (ms of CPU time: the first in a new process, and the"
echo "   best of 5 more, warm, as in a running daemon), cached lookups"
echo "   (millions a second), memory"
printf '  %-27s %7s %8s %8s %8s %10s %5s\n' "" symbols first warm \
    Mlookup/s bytes B/sym
A=$BENCH_TMP/addrs
nm_funcs "$LIBC" -D >"$A.libc"
if test -n "$(readelf -n "$LIBC" 2>/dev/null | grep 'Build ID')"; then
	bid=$(readelf -n "$LIBC" | sed -n 's/.*Build ID: //p')
	dbg=/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
	if test -f "$dbg"; then
		# Its static functions too, at the same addresses.
		nm_funcs "$dbg" >>"$A.libc"
		sort -u -o "$A.libc" "$A.libc"
		table "libc + debug file" "$A.libc" -f "$LIBC"
	else
		echo "  (no libc debug file: apt-get install libc6-dbg)"
	fi
fi
table "libc, .dynsym only" "$A.libc" -D "" -f "$LIBC"
PY=$(readlink -f /usr/bin/python3)
if test -n "$PY"; then
	nm_funcs "$PY" -D >"$A.py"
	table "python3 (.dynsym)" "$A.py" -f "$PY"
fi
if bench_have go; then
	# A Go program: go tool nm reads its symbol table, we its pclntab
	# (after strip): the functions of the runtime and std it links.
	mkdir -p "$BENCH_TMP/gohello" &&
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println(1) }\n' \
	    >"$BENCH_TMP/gohello/main.go" &&
	GOCACHE=$BENCH_TMP/gocache GOPATH=$BENCH_TMP/gopath GO111MODULE=off \
	    GOFLAGS=-mod=mod go build -o "$BENCH_TMP/gohello/hello" \
	    "$BENCH_TMP/gohello/main.go" &&
	strip -o "$BENCH_TMP/gohello/hello.stripped" \
	    "$BENCH_TMP/gohello/hello" &&
	go tool nm "$BENCH_TMP/gohello/hello" |
	    awk '$2 == "T" { print $1 }' >"$A.go" &&
	table "Go $(go version | awk '{ print $3 }') (pclntab)" "$A.go" \
	    -f "$BENCH_TMP/gohello/hello.stripped"
	# A bigger one: the go command itself, stripped by Debian; addresses
	# every 997 bytes of its .text.
	GOCMD=$(readlink -f "$(command -v go)")
	readelf -SW "$GOCMD" | awk '{ for (i = 1; i + 4 <= NF; i++)
	    if ($i == ".text") print $(i + 2), $(i + 4) }' |
	    while read -r a n; do
		awk -v a=$((16#$a)) -v n=$((16#$n)) 'BEGIN {
		    for (x = a; x < a + n; x += 997) printf "%x\n", x }'
	    done >"$A.gocmd"
	test -s "$A.gocmd" && table "the go command (pclntab)" "$A.gocmd" \
	    -f "$GOCMD"
fi
awk 'BEGIN { print ".text"; for (i = 0; i < 100000; i++)
    printf ".globl f%d\n.type f%d, @function\nf%d:\n\tret\n.size f%d, 1\n",
    i, i, i, i }' >"$BENCH_TMP/many.s"
cc -shared -nostdlib -o "$BENCH_TMP/many.so" "$BENCH_TMP/many.s" &&
    nm_funcs "$BENCH_TMP/many.so" >"$A.many" &&
    table "100,000 functions (.so)" "$A.many" -f "$BENCH_TMP/many.so"
awk '$2 ~ /^[tTwW]$/ && $1 !~ /^0+$/ { print $1 }' /proc/kallsyms |
    sort -u >"$A.kernel"
if test -s "$A.kernel"; then
	table "kernel (kallsyms)" "$A.kernel" -k
	t0=$(bench_now)
	cat /proc/kallsyms >/dev/null
	echo "  (reading /proc/kallsyms alone takes" \
	    "$(echo "$t0 $(bench_now)" | awk '{ printf "%.1f", ($2 - $1) * 1e3 }')" \
	    "ms of it: the kernel formats every line)"
else
	echo "  kernel: /proc/kallsyms hides its addresses"
fi
awk '
	{ split($0, p, "|"); split(p[2], v, " ");
	  syms = v[1]; cpu = v[2]; warm = v[3]; rate = v[4] }
	rate < 10e6 { slow = slow " " p[1] }
	p[1] ~ /100,000/ { big = cpu; bigwarm = warm }
	END {
		if (slow != "")
			print "  MISSED: under 10 million lookups a second:" slow
		else
			print "  goal met: over 10 million cached lookups a second"
		if (big == "")
			;
		else if (bigwarm > 30)
			print "  MISSED: 100,000-symbol table loaded in " \
			    bigwarm " ms warm, " big " ms first, over 30"
		else
			print "  goal met: a 100,000-symbol table loaded in " \
			    bigwarm " ms warm (" big " ms the first time in a" \
			    " new process), under 30"
	}' "$BENCH_TMP/tables"
echo

echo "2. Peers on the same $(wc -l <"$A.libc") libc addresses" \
    "(time per address, same name as ours)"
sed 's/^/0x/' "$A.libc" >"$A.libc.0x"
t0=$(bench_now)
"$RESOLVE" -d none -f "$LIBC" - <"$A.libc" >"$BENCH_TMP/ours.names"
t1=$(bench_now)
n=$(wc -l <"$A.libc")
printf '  %-22s %8.2f us\n' "ebpfspy (resolve)" \
    "$(echo "$t0 $t1 $n" | awk '{ print ($2 - $1) * 1e6 / $3 }')"
# peer LABEL CMD...: names one a line on stdout, from 0x addresses.
peer () {
	local label=$1 same
	shift
	t0=$(bench_now)
	"$@" <"$A.libc.0x" >"$BENCH_TMP/peer.names" 2>/dev/null
	t1=$(bench_now)
	same=$(paste -d '\t' "$BENCH_TMP/ours.names" "$BENCH_TMP/peer.names" |
	    awk -F '\t' '{ sub(/@.*/, "", $2) } $1 == $2 { s++ }
	    END { print s + 0 }')
	printf '  %-22s %8.2f us  %5.1f%% same\n' "$label" \
	    "$(echo "$t0 $t1 $n" | awk '{ print ($2 - $1) * 1e6 / $3 }')" \
	    "$(echo "$same $n" | awk '{ print $1 * 100 / $2 }')"
}
peer "addr2line" sh -c "addr2line -f -e '$LIBC' | awk 'NR % 2'"
if bench_have eu-addr2line; then
	peer "eu-addr2line" sh -c "eu-addr2line -f -e '$LIBC' | awk 'NR % 2'"
else
	echo "  eu-addr2line: not installed (apt-get install elfutils)"
fi
if bench_have llvm-symbolizer; then
	peer "llvm-symbolizer" sh -c "llvm-symbolizer --obj='$LIBC' \
	    --functions=linkage --no-inlines | awk 'NF && NR % 3 == 1'"
fi
echo

# Workloads for 3 and 4: C (burn), Python, Go (when installed).
cat >"$BENCH_TMP/w.py" <<-\EOF
	import time
	def fib(n):
	    return n if n < 2 else fib(n - 1) + fib(n - 2)
	end = time.time() + 60
	while time.time() < end:
	    fib(22)
	EOF
bench_run burn "$BURN" -t 60
pids=$BENCH_PID
bench_run py /usr/bin/python3 "$BENCH_TMP/w.py"
pids=$pids,$BENCH_PID
if bench_have go; then
	cat >"$BENCH_TMP/w.go" <<-\EOF
	package main

	import "time"

	//go:noinline
	func spin(n int) int {
		s := 0
		for i := 0; i < n; i++ {
			s += i ^ s
		}
		return s
	}

	func main() {
		end := time.Now().Add(60 * time.Second)
		for time.Now().Before(end) {
			spin(1000000)
		}
	}
	EOF
	GOCACHE=$BENCH_TMP/gocache GOPATH=$BENCH_TMP/gopath \
	    GO111MODULE=off GOFLAGS=-mod=mod go build -ldflags="-s -w" \
	    -o "$BENCH_TMP/gowork" "$BENCH_TMP/w.go" &&
	    bench_run gowork "$BENCH_TMP/gowork" &&
	    pids=$pids,$BENCH_PID
fi

echo "3. perf report against ours on the same samples"
if bench_have perf; then
	perf record -q -F 499 -g -p "$pids" -o "$BENCH_TMP/perf.data" \
	    -- sleep 5 >/dev/null 2>&1
	t0=$(bench_now)
	perf report -i "$BENCH_TMP/perf.data" --stdio >/dev/null 2>&1
	t1=$(bench_now)
	# "offset<TAB>sym<TAB>dso" of every frame in a file: perf prints
	# the offset in the file mapped there.
	perf script -i "$BENCH_TMP/perf.data" -F ip,sym,dso 2>/dev/null |
	    awk '/^\t/ {
		if (!match($0, /\(\/[^()]*\)$/))
			next
		dso = substr($0, RSTART + 1, RLENGTH - 2)
		sym = $2
		if (sym == "" || sym ~ /^\(/)
			sym = "[unknown]"
		print $1 "\t" sym "\t" dso
	    }' >"$BENCH_TMP/perf.frames"
	frames=$(wc -l <"$BENCH_TMP/perf.frames")
	printf '  perf report --stdio: %.0f ms for the samples of %s frames' \
	    "$(echo "$t0 $t1" | awk '{ print ($2 - $1) * 1e3 }')" "$frames"
	echo " in files"
	cut -f 3 "$BENCH_TMP/perf.frames" | sort -u >"$BENCH_TMP/dsos"
	t0=$(bench_now)
	i=0
	while read -r dso; do
		i=$((i + 1))
		awk -F '\t' -v d="$dso" '$3 == d { print $1 }' \
		    "$BENCH_TMP/perf.frames" >"$BENCH_TMP/ips.$i"
		awk -F '\t' -v d="$dso" '$3 == d { print $2 }' \
		    "$BENCH_TMP/perf.frames" >"$BENCH_TMP/perf.$i"
		"$RESOLVE" -d none -o -f "$dso" - <"$BENCH_TMP/ips.$i" \
		    >"$BENCH_TMP/ours.$i" 2>/dev/null
	done <"$BENCH_TMP/dsos"
	t1=$(bench_now)
	printf '  ebpfspy, the same frames: %.0f ms\n' \
	    "$(echo "$t0 $t1" | awk '{ print ($2 - $1) * 1e3 }')"
	for ((j = 1; j <= i; j++)); do
		paste -d '\t' "$BENCH_TMP/ours.$j" "$BENCH_TMP/perf.$j"
	done | awk -F '\t' '
		function unk(s) { return s == "[unknown]" || s ~ /\+0x/ ||
		    s ~ /^0x/ }
		{ n++; if (!unk($1)) a++; if (!unk($2)) b++;
		  if (!unk($1) && $1 == $2) same++ }
		END { if (n) printf "  named: ebpfspy %.1f%%, perf %.1f%%; " \
		    "same name %.1f%% of %d frames\n", a * 100 / n,
		    b * 100 / n, same * 100 / n, n }'
else
	echo "  perf: not installed (apt-get install linux-perf)"
fi
echo

echo "4. Frames named in a whole-machine profile of $SECS s (with the"
echo "   workloads of 3 running)"
cat >"$BENCH_TMP/ebpfspy.conf" <<EOF
[daemon]
collect_interval = 3600
[metrics]
listen =
EOF
bench_run ebpfspyd "$EBPFSPYD" -d -t "$SECS" -c "$BENCH_TMP/ebpfspy.conf" \
    -o "$BENCH_TMP/out"
bench_wait ebpfspyd
cat "$BENCH_TMP"/out/cpu/*/*.folded 2>/dev/null | awk '
	function unk(s) { return s == "[unknown]" || s ~ /\+0x[0-9a-f]+$/ ||
	    s ~ /^0x[0-9a-f]+$/ }
	{
		c = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		n = split(line, f, ";")
		for (i = 2; i <= n; i++) {
			total += c; d[f[i]] = 1
			if (unk(f[i])) {
				unknown += c
				m = f[i]; sub(/\+0x.*/, "", m); mod[m] += c
			}
		}
	}
	END {
		if (total == 0) { print "  no samples"; exit }
		for (k in d) { nd++; if (unk(k)) nu++ }
		printf "  %.1f%% of %d frames named (samples weighted); " \
		    "%.1f%% of %d distinct frames\n",
		    (total - unknown) * 100 / total, total,
		    (nd - nu) * 100 / nd, nd
		for (k in mod) print mod[k], k | "sort -rn | head -5 | " \
		    "awk \"{ printf \\\"  unnamed in %s: %d\\\\n\\\", \\$2, \\$1 }\""
	}'
bench_stop burn
bench_stop py
test -n "${BENCH_PID_gowork:-}" && bench_stop gowork
