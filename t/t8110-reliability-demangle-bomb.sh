#!/bin/sh
test_description='a name that demangles to hundreds of megabytes

A process running as nobody burns CPU in two functions of its own
binary whose names are short and mangled so that each level of
substitutions doubles what they demangle to: f<X<X<...>, ...>>()
(C++, 26 levels: 570 MB) and a Rust v0 f::<((u8, u8), ...)> (24
levels, with backrefs: 200 MB).  The daemon, with rounds every second,
names them as they are, mangled, counts them on SIGUSR1 and in
/metrics, keeps its rounds on time and its memory small.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-rusage.sh"

test_lazy_prereq CURL '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version
'
test_lazy_prereq SETPRIV '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || setpriv --version
'

# The C++ name: template<class T> void f() for T = X<X<...>, ...>, as
# g++ mangles it; S0_ is X, S1_ X<int, int>, each S<n>_ one level more.
cxx_name () {
	awk -v n="$1" 'BEGIN {
		d = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		s = "_Z1fI1X"
		for (k = 1; k < n; k++)
			s = s "IS0_"
		s = s "IiiE"
		for (k = 1; k < n; k++)
			s = s "S" substr(d, k + 1, 1) "_E"
		print s "Evv"
	}'
}

# The Rust v0 name: f::<T0, T1, ...>, T0 = (u8, u8), each T a tuple of
# two backrefs to the one before (offsets after "_R", in base 62).
rust_name () {
	awk -v n="$1" 'BEGIN {
		d = "0123456789abcdefghijklmnopqrstuvwxyz" \
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		s = "_RINvC1a1f"
		prev = length(s) - 2
		s = s "ThhE"
		for (k = 1; k < n; k++) {
			off = prev - 1
			b = ""
			do {
				b = substr(d, off % 62 + 1, 1) b
				off = int(off / 62)
			} while (off > 0)
			prev = length(s) - 2
			s = s "TB" b "_B" b "_E"
		}
		print s "E"
	}'
}

test_expect_success 'a workload whose hot functions are name bombs' '
	cxx=$(cxx_name 26) &&
	rust=$(rust_name 24) &&
	echo "$cxx ${#cxx} bytes, $rust ${#rust} bytes" &&
	test ${#cxx} -lt 256 &&
	cat >d8110.c <<-EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	#include <time.h>
	#include <unistd.h>

	static volatile unsigned long sink;

	void bomb_cxx(void) __asm__("$cxx");
	void bomb_rust(void) __asm__("$rust");

	/* Inlined: the samples land in the bombs themselves. */
	static inline __attribute__((always_inline)) void
	spin(unsigned long k)
	{
		for (unsigned long i = 0; i < 1000000; i++)
			sink += i * k;
	}

	__attribute__((noinline)) void bomb_cxx(void) { spin(7); }
	__attribute__((noinline)) void bomb_rust(void) { spin(5); }

	int
	main(int argc, char **argv)
	{
		time_t stop = time(NULL) + atoi(argv[1]);

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		do {
			bomb_cxx();
			bomb_rust();
		} while (time(NULL) < stop);
		return 0;
	}
	EOF
	cc -O1 -fno-omit-frame-pointer -no-pie -o d8110 d8110.c &&
	nm d8110 | grep -F " T $cxx" &&
	nm d8110 | grep -F " T $rust" &&
	chmod 755 . d8110
'

test_expect_success SETPRIV 'named as the daemon names them: mangled, at once' '
	setpriv --reuid=65534 --regid=65534 --clear-groups ./d8110 30 \
	    >w.out &
	wpid=$! &&
	workload_wait w.out &&
	a=$(nm d8110 | sed -n "s/ T _Z1fI.*//p") &&
	b=$(nm d8110 | sed -n "s/ T _RINv.*//p") &&
	rusage resolve -d full -p $wpid $a $b >names &&
	rusage resolve -d simplified -p $wpid $a $b >>names
	status=$?
	kill $wpid
	wait $wpid
	test $status = 0 &&
	cat names &&
	test "$(sed -n 1p names)" = "$cxx" &&
	test "$(sed -n 2p names)" = "$rust" &&
	test "$(sed -n 4p names)" = "$cxx" &&
	test "$(sed -n 5p names)" = "$rust" &&
	sed -n "3p; 6p" names | while read rss ms
	do
		test "$rss" -lt 65536 && test "$ms" -lt 5000 || return 1
	done
'

test_expect_success ROOT,BPF,CURL,SETPRIV 'daemon: rounds on time, memory small' '
	port=$(python3 -c "import socket; s = socket.socket(); \
s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	printf "[%s]\n%s\n" daemon "collect_interval = 1" \
	    profile "sample_rate = 499" symbols "demangle = full" \
	    metrics "listen = 127.0.0.1:$port" >ebpfspy.conf &&
	daemon_start -v -c ebpfspy.conf -o out &&
	pid=$(daemon_pid) &&
	: >w.out &&
	{
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		    ./d8110 8 >w.out &
	} &&
	wpid=$! &&
	workload_wait w.out &&
	# Five rounds after the workload ran: each late by 13 s of
	# demangling before the bounds.
	n=$(grep -E -c "^round [0-9]+:" "$DAEMON_LOG"; :) &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 5)) 10 &&
	hwm=$(awk "/^VmHWM:/ { print \$2 }" /proc/$pid/status) &&
	echo "daemon peak RSS $hwm kB" &&
	test "$hwm" -lt 204800 &&
	# No round took a second of CPU.
	sed -n "s/^round [0-9]*: .*, \([0-9.]*\) ms CPU\$/\1/p" \
	    "$DAEMON_LOG" >cpu.ms &&
	cat cpu.ms | tr "\n" " " && echo &&
	awk "\$1 >= 1000 { bad = 1 } END { exit bad }" cpu.ms &&
	refused=$(daemon_state_value \
	    "over the bounds of work: [0-9]+ names kept mangled") &&
	test "$refused" -ge 2 &&
	curl -sS -o metrics "http://127.0.0.1:$port/metrics" &&
	m=$(sed -n "s/^ebpfspy_symbol_work_refused_total{what=\"demangle\"} //p" \
	    metrics) &&
	test "$m" -ge 2 &&
	daemon_stop &&
	wait $wpid &&
	folded cpu d8110 >d.folded &&
	grep -F ";$cxx" d.folded &&
	grep -F ";$rust" d.folded
'

test_done
