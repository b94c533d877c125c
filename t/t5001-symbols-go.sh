#!/bin/sh
test_description='stripped Go programs named from their pclntab

A Go workload built with -ldflags="-s -w" (no symbol table), as an
executable and as a PIE: its functions are named from .gopclntab, and
code inlined from another function (triple, into burnBeta) shows as
burnBeta;triple, as Go does.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success GO 'stripped Go workloads' '
	go_workload g5001 &&
	go_workload p5001 -buildmode=pie
'

test_expect_success ROOT,BPF,GO 'profile them' '
	profile_config </dev/null &&
	daemon_start -c ebpfspy.conf -o out &&
	{ ./p5001 2 >p.out & pp=$!; } &&
	./g5001 2 >g.out &&
	wait $pp &&
	daemon_stop
'

# check SERVICE: the samples of the workload's goroutine are named.  (A
# frame-pointer walk from a Go leaf function that has no frame of its own
# skips its caller, main.main.)
check () {
	folded cpu "$1" >"$1.folded" &&
	all=$(folded_sum "^$1;" <"$1.folded") &&
	alpha=$(folded_sum "^$1;(.*;)?runtime\.main;(.*;)?main\.burnAlpha(;|\$)" \
	    <"$1.folded") &&
	beta=$(folded_sum \
	    "^$1;(.*;)?runtime\.main;(.*;)?main\.(burnBeta|triple)(;|\$)" \
	    <"$1.folded") &&
	unnamed=$(folded_sum "(;|^)($1\+0x|\[unknown\]|0x)[^;]*\$" \
	    <"$1.folded") &&
	echo "$1: $alpha in burnAlpha, $beta in burnBeta, $unnamed unnamed" \
	    "of $all" &&
	test "$all" -ge 50 &&
	test $((alpha + beta)) -ge $((all * 80 / 100)) &&
	test "$alpha" -gt 0 && test "$beta" -gt 0 &&
	test "$unnamed" -le $((all / 20))
}

test_expect_success ROOT,BPF,GO 'an executable: Go functions named' '
	check g5001
'

test_expect_success ROOT,BPF,GO 'a PIE: Go functions named' '
	check p5001
'

test_expect_success ROOT,BPF,GO 'inlined code shows the function it was inlined into' '
	grep -E "runtime\.main;(main\.main;)?main\.burnBeta;main\.triple " \
	    g5001.folded &&
	grep -E "runtime\.main;(main\.main;)?main\.burnBeta;main\.triple " \
	    p5001.folded
'

test_done
