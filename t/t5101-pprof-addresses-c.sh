#!/bin/sh
test_description='pprof: a C function'"'"'s samples over its instructions and lines

A workload built gcc -O2 -g (t/helper/addrwork.c) spends its time in
mix_block, whose loop is four lines of a few instructions each.  The
pprof file has a Location per address sampled, in the file'"'"'s terms,
so go tool pprof -disasm and -list spread mix_block'"'"'s samples over
its instructions and lines, as perf (perf record -e cpu-clock, perf
script -F ip,sym) does on the same program; folded stacks keep one
line per stack of names.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq PERF 'perf --version'

test_expect_success 'a workload built -O2 -g' '
	gcc -O2 -g -o a5101 "$EBPFSPY_SOURCE_DIR/t/helper/addrwork.c" &&
	nm a5101 | grep " mix_block"
'

test_expect_success ROOT,BPF 'profiled' '
	profile_unwind_config 997 &&
	daemon_start -c ebpfspy.conf -o out &&
	./a5101 -c 3 >a.out &&
	daemon_stop &&
	folded cpu a5101 >a.folded &&
	ls out/cpu/a5101/*.pb.gz >pb.list &&
	test_line_count = 1 pb.list
'

test_expect_success ROOT,BPF 'folded: one line per stack of names' '
	grep -E ";main;mix_phase;mix_block [0-9]+\$" a.folded &&
	sed "s/ [0-9]*\$//" a.folded | sort | uniq -d >dups &&
	test_must_be_empty dups
'

# start: mix_block's address in the file, hex.
start () {
	nm a5101 | sed -n 's/^0*\([0-9a-f]*\) t mix_block$/\1/p'
}

# shares: "count address" lines (address in hex) on stdin, as
# "offset percent" lines of mix_block, by offset.
shares () {
	awk -v s="$((0x$(start)))" '{ n[$2] += $1; all += $1 }
	    END { for (a in n) printf "%d %d\n", strtonum("0x" a) - s,
	    n[a] * 100 / all }' | sort -n
}

# disasm_counts: go tool pprof -disasm's flat times on stdin as "count
# address" lines, the count in microseconds.
disasm_counts () {
	sed -n 's/^ *\([0-9.]*\)\(m\{0,1\}s\) .* \([0-9a-f]*\): .*/\1 \2 \3/p' |
	    awk '{ print ($2 == "ms" ? $1 : $1 * 1000) * 1000, $3 }'
}

# perf_counts: perf script -F ip,sym,symoff's lines of mix_block on stdin
# as "count address" lines.
perf_counts () {
	sed -n 's/^ *[0-9a-f]* mix_block+0x\([0-9a-f]*\)$/\1/p' | sort | uniq -c |
	    awk -v s="$((0x$(start)))" \
	    '{ printf "%d %x\n", $1, strtonum("0x" $2) + s }'
}

# compare OURS PERF: every instruction with 5% of perf's samples has
# ours within 10 points; at least two such.
compare () {
	awk 'NR == FNR { ours[$1] = $2; next }
	    $2 >= 5 { n++; d = $2 - ours[$1]; if (d < 0) d = -d
		printf "+0x%x: perf %d%%, ours %d%%\n", $1, $2, ours[$1]
		if (d > 10) bad++ }
	    END { print n + 0, "instructions over 5%,", bad + 0, "apart"
		exit !(n >= 2 && bad == 0) }' "$1" "$2"
}

test_expect_success ROOT,BPF,GO 'go tool pprof -disasm: samples on several instructions' '
	go tool pprof -disasm mix_block "$(cat pb.list)" >a.disasm \
	    2>a.err &&
	cat a.disasm &&
	disasm_counts <a.disasm | shares >a.shares &&
	cat a.shares &&
	n=$(wc -l <a.shares) &&
	echo "$n instructions of mix_block hold samples" &&
	test "$n" -ge 5
'

test_expect_success ROOT,BPF,GO 'go tool pprof -list: samples on several lines' '
	go tool pprof -symbolize=local:force -list "^mix_block\$" \
	    "$(cat pb.list)" >a.list 2>a.err &&
	cat a.list &&
	sed -n "s/^ *[0-9.]*m\{0,1\}s *[0-9.]*m\{0,1\}s *\([0-9][0-9]*\):.*/\1/p" \
	    a.list >a.lines &&
	n=$(wc -l <a.lines) &&
	echo "$n lines of mix_block hold samples" &&
	test "$n" -ge 3
'

test_expect_success ROOT,BPF,GO,PERF 'as perf spreads them' '
	perf record -q -e cpu-clock -F 997 -o perf.data ./a5101 -c 3 \
	    >p.out 2>perf.err &&
	perf script -i perf.data -F ip,sym,symoff 2>/dev/null | perf_counts |
	    shares >perf.shares &&
	cat perf.shares &&
	compare a.shares perf.shares
'

test_done
