#!/bin/sh
test_description='pprof: a Go function'"'"'s samples over its real lines

A stripped Go workload (t/helper/goburn.go) named from its pclntab: each
address sampled is a Location of its own with the line the pclntab
gives it, so go tool pprof -list of burnAlpha and burnBeta shows their
samples on several lines of their loops, not all on the line of the
first address sampled; triple, inlined into burnBeta, is a Line of the
Location of burnBeta'"'"'s address, innermost first.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success GO 'a stripped Go workload' '
	go_workload g5102
'

test_expect_success ROOT,BPF,GO 'profiled' '
	# 499 Hz: some 200 samples of burnAlpha, not 40 that a CPU may
	# put all on one instruction of a two-line loop.
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	# perf records the same run: which lines the CPU lets samples
	# land on (perf_lines below).
	if command -v perf >/dev/null; then
		perf record -q -e cpu-clock -F 499 -o g.data -- ./g5102 3 \
		    >g.out 2>/dev/null &&
		perf script -i g.data -F ip 2>/dev/null |
		sed "s/^ *\([0-9a-f]*\).*/0x\1/" >g.ips &&
		go tool addr2line g5102 <g.ips | paste - - >g.perf
	else
		./g5102 3 >g.out
	fi &&
	daemon_stop &&
	ls out/cpu/g5102/*.pb.gz >pb.list &&
	test_line_count = 1 pb.list
'

# lines_of FUNC: the first and last lines of a function of g5102.go (a
# blank line follows each).
lines_of () {
	awk -v f="$1" '$0 ~ "^func " f "\\(" { s = NR }
	    s && !e && /^$/ { e = NR - 1 } END { print s, e }' g5102.go
}

# hot FILE: the lines that hold samples in go tool pprof -list's FILE.
hot () {
	sed -n 's/^ *[0-9][0-9.]*m\{0,1\}s .* \([0-9][0-9]*\):.*/\1/p' "$1"
}

# perf_lines FUNC: how many lines of FUNC hold at least 2% of its
# samples in perf's record of the same run; 2 where there is no perf.
# Where a sample lands is the CPU's: on an AMD EPYC under a hypervisor,
# busy with other tests, every sample of burnAlpha's two-line loop
# landed on one instruction; here, quiet, line 17 held 2-3% of them.
perf_lines () {
	test -f g.perf || { echo 2; return 0; }
	awk -F '\t' -v f="main.$1" '$1 == f { n++; sub(/.*:/, "", $2); c[$2]++ }
	    END { for (l in c) k += c[l] * 50 >= n; print k + 0 }' g.perf
}

for fn in burnAlpha burnBeta; do
	test_expect_success ROOT,BPF,GO "go tool pprof -list main.$fn: several of its lines" '
		set -- $(lines_of '$fn') &&
		go tool pprof -list "^main\.'$fn'\$" "$(cat pb.list)" \
		    >'$fn'.list 2>/dev/null &&
		cat '$fn'.list &&
		hot '$fn'.list >'$fn'.hot &&
		pl=$(perf_lines '$fn') &&
		echo "'$fn': lines $1-$2, samples at:" $(cat '$fn'.hot) \
		    "(perf: $pl lines)" &&
		test -s '$fn'.hot &&
		{ test "$pl" -lt 2 || test "$(wc -l <'$fn'.hot)" -ge 2; } &&
		for l in $(cat '$fn'.hot); do
			test "$l" -ge "$1" && test "$l" -le "$2" || return 1
		done
	'
done

test_expect_success ROOT,BPF,GO 'an inlined call: one Location, triple then burnBeta' '
	go tool pprof -raw "$(cat pb.list)" >g.raw 2>/dev/null &&
	sed -n "/^Locations/,/^Mappings/p" g.raw >g.locs &&
	grep -A1 -E "^ +[0-9]+: 0x[0-9a-f]+ M=1 main\.triple " g.locs >inl &&
	cat inl &&
	grep -E "^ +main\.burnBeta " inl
'

test_done
