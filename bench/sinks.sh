#!/bin/bash
# sinks.sh: what the files sink costs a round with large profiles
# (pprof, folded, latest.svg, last-hour.svg), without BPF: the helper
# t/helper/sinkcost writes $BENCH_ROUNDS (12) rounds, 10 s apart, of a
# synthetic profile shaped like round-latency.sh's (burn -m stacks -d 7:
# about 23,000 distinct stacks of 13 to 15 frames from 28,000 samples),
# timing each part and giving the pprof file's size (its frames are
# located in mappings as the daemon's are); once with last-hour.svg read
# back from all the hour's .folded files every round (-f, as before the
# daemon kept the hour's sums in memory), once as the daemon does it now.
#
#   bench/sinks.sh [build-dir]
BENCH_NAME=sinks
. "$(dirname "$0")/lib-bench.sh"

ROUNDS=${BENCH_ROUNDS:-12}
SINKCOST=$BUILD_DIR/t/helper/sinkcost
test -x "$SINKCOST" ||
    bench_die "$SINKCOST not found: build it (make check TESTS=)"

bench_header "files sink cost a round, 28,000 samples, $ROUNDS rounds"

for mode in -f ''; do
	rm -rf "$BENCH_TMP/out"
	if test -n "$mode"; then
		echo "last-hour.svg from all the hour's files (sinkcost -f):"
	else
		echo "last-hour.svg from the sums kept in memory:"
	fi
	# shellcheck disable=SC2086
	"$SINKCOST" $mode -r "$ROUNDS" "$BENCH_TMP/out" |
	    tee "$BENCH_TMP/t" | sed 's/^/    /'
	awk 'NR > 2 { print $6 }' "$BENCH_TMP/t" >"$BENCH_TMP/h"
	awk 'NR > 2 { print $8 }' "$BENCH_TMP/t" >"$BENCH_TMP/a"
	awk 'NR > 2 { print $3 }' "$BENCH_TMP/t" >"$BENCH_TMP/p"
	awk 'NR > 2 { print $9 }' "$BENCH_TMP/t" >"$BENCH_TMP/b"
	# shellcheck disable=SC2046
	echo "    from round 2 on: last-hour.svg median" \
	    "$(bench_median $(cat "$BENCH_TMP/h")) ms, max" \
	    "$(sort -g "$BENCH_TMP/h" | tail -n 1) ms; all median" \
	    "$(bench_median $(cat "$BENCH_TMP/a")) ms; pprof median" \
	    "$(bench_median $(cat "$BENCH_TMP/p")) ms," \
	    "$(bench_median $(cat "$BENCH_TMP/b")) bytes"
	echo
done
