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
	./g5102 3 >g.out &&
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

for fn in burnAlpha burnBeta; do
	test_expect_success ROOT,BPF,GO "go tool pprof -list main.$fn: several of its lines" '
		set -- $(lines_of '$fn') &&
		go tool pprof -list "^main\.'$fn'\$" "$(cat pb.list)" \
		    >'$fn'.list 2>/dev/null &&
		cat '$fn'.list &&
		hot '$fn'.list >'$fn'.hot &&
		echo "'$fn': lines $1-$2, samples at:" $(cat '$fn'.hot) &&
		test "$(wc -l <'$fn'.hot)" -ge 2 &&
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
