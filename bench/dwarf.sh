#!/bin/bash
# dwarf.sh: native lines and inline chains from DWARF (src/dwarf/).
#
#   bench/dwarf.sh [build-dir]
#
# On the same addresses of a file -- libc's debug file from libc6-dbg
# (every third exported function), and t/helper/inlinew.c built -O2 -g
# (every instruction of hash_block, where mix() is inlined) -- the cost
# of src/dwarf/ (t/helper/dwarfq -B: what the daemon does) against
# addr2line -i -f (binutils) and eu-addr2line -i -f (elfutils), all
# given every address at once:
#   open     reading the file's DWARF before the first lookup (ms)
#   cold     an address's first lookup, the file open (us an address)
#   warm     lookups a second of addresses looked up before (ours: the
#            same lookup again; the peers': the list 10 times, less the
#            list once)
#   memory   peak RSS of the process (KiB), and ours as counted against
#            [symbols] dwarf_bytes
# Each figure is the median of $BENCH_REPS (5) runs.
BENCH_NAME=dwarf
. "$(dirname "$0")/lib-bench.sh"

DWARFQ=$BUILD_DIR/t/helper/dwarfq
REPS=${BENCH_REPS:-5}
LOOKUPS=${BENCH_LOOKUPS:-1000000}
LIBC=$(ldd /bin/true | awk '$1 ~ /^libc\.so/ { print $3 }')

test -x "$DWARFQ" || bench_die "$DWARFQ not found: make t/helper/dwarfq"
bench_need addr2line binutils
bench_need cc gcc
bench_header "native lines and inline chains from DWARF"

field () {
	awk -v k="$2" '$1 == k { print $2; exit }' "$1"
}

# secs CMD...: the wall time of CMD, its output dropped, and its peak
# RSS (KiB) in $BENCH_TMP/rss.
secs () {
	/usr/bin/time -f '%e %M' -o "$BENCH_TMP/time" "$@" >/dev/null 2>&1
	read -r t rss <"$BENCH_TMP/time"
	echo "$rss" >"$BENCH_TMP/rss"
	echo "$t"
}

# peer LABEL FILE ADDRS CMD...: cold us an address, warm lookups a
# second, peak RSS.
peer () {
	local label=$1 file=$2 addrs=$3 n i one ten ones= tens= rss
	shift 3
	n=$(wc -l <"$addrs")
	for i in 1 2 3 4 5 6 7 8 9 10; do cat "$addrs"; done >"$BENCH_TMP/x10"
	for ((i = 0; i < REPS; i++)); do
		ones="$ones $(secs "$@" -e "$file" $(cat "$addrs"))"
		rss=$(cat "$BENCH_TMP/rss")
		tens="$tens $(secs "$@" -e "$file" $(cat "$BENCH_TMP/x10"))"
	done
	one=$(bench_median $ones)
	ten=$(bench_median $tens)
	awk -v l="$label" -v n="$n" -v a="$one" -v b="$ten" -v r="$rss" \
	    'BEGIN { w = b > a ? 9 * n / (b - a) : 0
	    printf "  %-22s %9s %10.1f %12.0f %10s %10s\n", l, "-",
	    a * 1e6 / n, w, r, "-" }'
}

ours () {
	local label=$1 file=$2 addrs=$3 i out=$BENCH_TMP/ours.out
	local opens= colds= rates= rsss=
	for ((i = 0; i < REPS; i++)); do
		"$DWARFQ" -B "$LOOKUPS" "$file" $(cat "$addrs") >"$out" ||
		    { echo "  $label: dwarfq failed"; return; }
		opens="$opens $(field "$out" open_ms)"
		colds="$colds $(field "$out" cold_us)"
		rates="$rates $(field "$out" lookups_per_sec)"
		rsss="$rsss $(field "$out" max_rss_kb)"
	done
	printf "  %-22s %9.1f %10.1f %12.0f %10s %10s\n" "$label" \
	    "$(bench_median $opens)" "$(bench_median $colds)" \
	    "$(bench_median $rates)" "$(bench_median $rsss)" \
	    "$(field "$out" bytes)"
}

run () {
	local name=$1 file=$2 addrs=$3
	echo "$name: $(wc -l <"$addrs") addresses"
	printf "  %-22s %9s %10s %12s %10s %10s\n" "" "open ms" "cold us/a" \
	    "warm look/s" "RSS KiB" "counted B"
	ours "ebpfspy (libdw)" "$file" "$addrs"
	peer "addr2line -i -f" "$file" "$addrs" addr2line -i -f
	if bench_have eu-addr2line; then
		peer "eu-addr2line -i -f" "$file" "$addrs" eu-addr2line -i -f
	fi
	echo
}

id=$(readelf -n "$LIBC" 2>/dev/null | awk '/Build ID/ { print $3 }')
DBG=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
if [ -n "$id" ] && [ -r "$DBG" ]; then
	nm -D --defined-only "$LIBC" | awk '$2 ~ /^[tTiW]$/ { print $1 }' |
	    sort -u | sed -n '1~3p' >"$BENCH_TMP/libc.addrs"
	run "libc6-dbg ($DBG, $(($(stat -c %s "$DBG") / 1024)) KiB)" "$DBG" \
	    "$BENCH_TMP/libc.addrs"
else
	echo "libc: no debug file (apt-get install libc6-dbg)"
	echo
fi

cc -O2 -g -o "$BENCH_TMP/inlinew" "$(dirname "$0")/../t/helper/inlinew.c"
objdump -d --no-show-raw-insn "$BENCH_TMP/inlinew" |
    awk '/<hash_block>:$/ { on = 1; next } /^$/ { on = 0 }
    on && /^ +[0-9a-f]+:/ { sub(/:.*/, ""); print $1 }' \
    >"$BENCH_TMP/inl.addrs"
run "inlinew -O2 -g" "$BENCH_TMP/inlinew" "$BENCH_TMP/inl.addrs"
