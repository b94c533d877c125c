#!/bin/sh
test_description='stripped Go programs named from their pclntab

A Go workload built with -ldflags="-s -w" (no symbol table), as an
executable and as a PIE: its functions are named from .gopclntab, and
code inlined from another function (triple, into burnBeta) shows as
burnBeta;triple, as Go does.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# No network: std only, caches in the trash directory.
GOCACHE=$TRASH_DIRECTORY/gocache
GOPATH=$TRASH_DIRECTORY/gopath
GOFLAGS=-mod=mod
GO111MODULE=off
GOTOOLCHAIN=local
export GOCACHE GOPATH GOFLAGS GO111MODULE GOTOOLCHAIN

test_expect_success GO 'stripped Go workloads' '
	cat >main.go <<-\EOF &&
	package main

	import (
		"fmt"
		"os"
		"strconv"
		"syscall"
	)

	//go:noinline
	func burnAlpha(n int) int {
		s := 0
		for i := 0; i < n; i++ {
			s += i * 7
		}
		return s
	}

	func triple(n int) int {
		for i := 0; i < 16; i++ {
			n = n*3 + i
		}
		return n
	}

	//go:noinline
	func burnBeta(n int) int {
		s := 0
		for i := 0; i < n; i++ {
			s += triple(i) ^ s
		}
		return s
	}

	// The CPU time used so far: a busy machine still gets the samples.
	func cpu() float64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return float64(ru.Utime.Sec+ru.Stime.Sec) +
			float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	}

	func main() {
		secs, _ := strconv.ParseFloat(os.Args[1], 64)
		fmt.Printf("ready %d\n", os.Getpid())
		s := 0
		for cpu() < secs {
			s += burnAlpha(3000000) + burnBeta(1000000)
		}
		os.Exit(s & 0)
	}
	EOF
	go build -ldflags="-s -w" -o g5001 main.go &&
	go build -buildmode=pie -ldflags="-s -w" -o p5001 main.go &&
	! nm g5001 2>/dev/null | grep burnAlpha
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
