#!/bin/sh
# Run each libFuzzer harness for a while: fuzz/run.sh SRCFUZZ BUILDFUZZ
# SECONDS NAME...  Each starts from its seed corpus and its kept crash
# inputs (SRCFUZZ/corpus/NAME, SRCFUZZ/regress/NAME) and grows a working
# corpus in BUILDFUZZ/work/NAME.  A crash input lands in
# BUILDFUZZ/crashes/; the script prints one line per harness and fails
# if any harness failed.
src=$1 build=$2 seconds=$3
shift 3
status=0
mkdir -p "$build/work" "$build/crashes" || exit 1
build=$(cd "$build" && pwd)
# Where to keep a crash input: the tree the user works in (fuzz/build.sh
# runs us in a copy of it).
keep=${FUZZ_SOURCE_DIR:-$(cd "$src/.." && pwd)}/fuzz/regress
for name; do
	work=$build/work/$name
	log=$build/work/$name.log
	mkdir -p "$work"
	# The harnesses' files, removed even after a crash.
	export TMPDIR="$build/work/tmp"
	rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
	set -- "$src/corpus/$name"
	test -d "$src/regress/$name" && set -- "$@" "$src/regress/$name"
	# -timeout: a hang is a failure too; -rss_limit_mb: so is
	# unbounded memory.  One job: the machine is shared.
	"$build/fuzz-$name" -max_total_time="$seconds" -timeout=10 \
	    -rss_limit_mb=1024 -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix="$build/crashes/$name-" \
	    "$work" "$@" >"$log" 2>&1
	rc=$?
	rm -rf "$TMPDIR"
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(sed -n 's/^#[0-9]*.*DONE *cov: \([0-9]*\).*/\1/p' "$log" |
	    tail -1)
	if [ "$rc" = 0 ]; then
		echo "fuzz $name: ok, ${runs:-?} runs in ${seconds}s," \
		    "coverage ${cov:-?}"
	else
		status=1
		echo "fuzz $name: FAILED (exit $rc), see $log:"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)' \
		    "$log" | head -8 | sed 's/^/    /'
		for f in "$build/crashes/$name"-*; do
			test -f "$f" || continue
			echo "    keep it: mkdir -p $keep/$name &&" \
			    "cp $f $keep/$name/"
		done
	fi
done
exit $status
