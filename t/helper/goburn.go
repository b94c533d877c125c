// A Go workload for the shell tests (go_workload in t/lib-profile.sh):
// burnAlpha and burnBeta burn the CPU, triple is inlined into burnBeta.
// It runs until it has used the CPU seconds of its argument.
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
