#!/bin/bash
# unwind-build.sh: building unwind tables from .eh_frame, in one run.
#
#   bench/unwind-build.sh [build-dir]
#
# For libc, python3.11 (the interpreter is linked in statically, so this
# is libpython3.11's CFI), libcrypto, ld.so and the vDSO (read from a
# live process, as the daemon reads it): the FDEs, the table's rows and
# bytes (rows and page index), bytes per row, the median CPU time of a
# whole build over $BENCH_REPS (20) builds as the daemon does them (open,
# copy the CFI, step $BENCH_FDES (256) FDEs per call, finish), and the
# longest single call in CPU time, which is how long the daemon's loop
# is held when nothing else wants the CPU (and, in the detail below, in
# wall time on this shared machine).
# `unwind_build' (t/helper) does the building.  Beside it, readelf
# --debug-dump=frames-interp on the same file: the CPU time of a full
# decode of the same CFI by binutils (text output thrown away).
# Goals: under 10 ms of CPU per file, under 12 bytes per row, no call
# over 2 ms.
BENCH_NAME=unwind-build
. "$(dirname "$0")/lib-bench.sh"

BUILD=$BUILD_DIR/t/helper/unwind_build
REPS=${BENCH_REPS:-20}
FDES=${BENCH_FDES:-256}

test -x "$BUILD" || bench_die "$BUILD not found: make check TESTS="
bench_need readelf binutils
bench_header "unwind tables from .eh_frame: CPU time and bytes per row"

field () {
	awk -v k="$2" '$1 == k { print $2; exit }' "$1"
}

# readelf_ms FILE: the median CPU time of readelf's decode, 3 runs.
readelf_ms () {
	local i ms= TIMEFORMAT='%3U %3S'
	for ((i = 0; i < 3; i++)); do
		ms="$ms $( { time readelf --debug-dump=frames-interp "$1" \
		    >/dev/null 2>&1; } 2>&1 | awk '{ print ($1 + $2) * 1000 }')"
	done
	bench_median $ms
}

missed=
printf '%-14s %6s %7s %8s %6s %8s %8s %8s %6s %9s\n' file FDEs rows \
    bytes B/row cpu_ms max_call steps gaps readelf
row () {
	local label=$1 file=$2 out=$BENCH_TMP/build.out re
	if ! "$BUILD" -n "$REPS" -s "$FDES" "$file" >"$out" 2>&1; then
		printf '%-14s failed: %s\n' "$label" "$(head -1 "$out")"
		missed="$missed $label(failed)"
		return
	fi
	local cpu bpr maxc
	cpu=$(field "$out" cpu_ms)
	bpr=$(field "$out" bytes_per_row)
	maxc=$(printf '%s\n' "$(field "$out" create_max_ms)" \
	    "$(field "$out" index_max_ms)" "$(field "$out" step_max_ms)" |
	    sort -g | tail -1)
	re=${3:-$(readelf_ms "$file")}
	printf '%-14s %6s %7s %8s %6s %8s %8s %8s %6s %7s ms\n' "$label" \
	    "$(field "$out" fdes)" "$(field "$out" rows)" \
	    "$(field "$out" bytes)" "$bpr" "$cpu" "$maxc" \
	    "$(field "$out" steps)" "$(field "$out" rows_gap)" "$re"
	awk -v c="$cpu" 'BEGIN { exit !(c >= 10) }' &&
	    missed="$missed $label(cpu ${cpu} ms)"
	awk -v b="$bpr" 'BEGIN { exit !(b >= 12) }' &&
	    missed="$missed $label(${bpr} B/row)"
	awk -v m="$maxc" 'BEGIN { exit !(m > 2) }' &&
	    missed="$missed $label(a call of ${maxc} ms)"
	cp "$out" "$BENCH_TMP/$label.out"
}

LIBC=$(ldd /bin/true | awk '$1 ~ /^libc\.so/ { print $3 }')
LDSO=$(ldd /bin/true | awk '$1 ~ /ld-linux/ { print $1 }')
row libc "$LIBC"
row python3.11 "$(readlink -f /usr/bin/python3.11)"
CRYPTO=/usr/lib/x86_64-linux-gnu/libcrypto.so.3
if test -r "$CRYPTO"; then
	row libcrypto "$CRYPTO"
else
	echo "libcrypto: not installed (apt-get install libssl3)"
fi
row ld.so "$(readlink -f "$LDSO")"

# The vDSO: copied out of a live process, built from that copy.
"$WAITER" -m long -t 60 >/dev/null 2>&1 &
wpid=$!
BENCH_WRAPS="$BENCH_WRAPS $wpid"
range=
for ((i = 0; i < 50; i++)); do
	range=$(awk '/\[vdso\]/ { print $1 }' "/proc/$wpid/maps" 2>/dev/null)
	test -n "$range" && break
	bench_sleep 0.1
done
if test -n "$range"; then
	lo=$((16#${range%-*}))
	hi=$((16#${range#*-}))
	dd if="/proc/$wpid/mem" of="$BENCH_TMP/vdso.so" bs=4096 \
	    skip=$((lo / 4096)) count=$(((hi - lo) / 4096)) 2>/dev/null
	row vdso "$BENCH_TMP/vdso.so"
else
	echo "vdso: not found in the maps of $WAITER"
fi
kill "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null

echo
echo "Rows by kind (rsp, rbp, plt, deref, signal, stop, invalid, gap)," \
    "CFA expressions not followed, errors, the longest call in wall" \
    "time, the most rows in one 64 KiB page (the walker's binary search):"
for f in "$BENCH_TMP"/*.out; do
	case $f in */build.out) continue ;; esac
	printf '  %-12s %s  expr %s  errors %s  longest call %s ms wall' \
	    "$(basename "$f" .out)" \
	    "$(awk '$1 ~ /^rows_/ { printf "%s ", $2 }' "$f")" \
	    "$(field "$f" expr_unknown)" \
	    "$(awk '$1 ~ /^err_/ { n += $2 } END { print n + 0 }' "$f")" \
	    "$(field "$f" call_wall_max_ms)"
	printf '  page %s rows at most\n' "$(field "$f" page_rows_max)"
done
echo
if test -n "$missed"; then
	echo "MISSED the goals (under 10 ms, 12 B/row, 2 ms a call):$missed"
else
	echo "All within the goals: under 10 ms of CPU, 12 bytes per row" \
	    "and 2 ms a call each."
fi
