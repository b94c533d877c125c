#!/bin/sh
test_description='C++ names in the three demangle modes

A C++ workload spends its time in a member function of a class
template, fx::Box<long>::spin(long) const; demangle = none, simplified
and full name it _ZNK2fx3BoxIlE4spinEl, fx::Box::spin and
fx::Box<long>::spin(long) const.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq CXX 'g++ --version'

test_expect_success CXX 'a C++ workload' '
	cat >w.cc <<-\EOF &&
	#include <cstdio>
	#include <cstdlib>
	#include <ctime>
	#include <unistd.h>

	namespace fx {
	template <typename T> struct Box {
		T v;
		__attribute__((noinline)) T spin(long n) const
		{
			volatile T s = v;
			for (long i = 0; i < n; i++)
				s = s * 3 + v;
			return s;
		}
	};
	}

	/* CPU time: a busy machine still gets the samples. */
	static double
	now()
	{
		struct timespec ts;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		return ts.tv_sec + ts.tv_nsec / 1e9;
	}

	int
	main(int argc, char **argv)
	{
		fx::Box<long> b{3};
		double end = now() + (argc > 1 ? atof(argv[1]) : 2);

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		while (now() < end)
			b.spin(1000000);
		return 0;
	}
	EOF
	g++ -O0 -fno-omit-frame-pointer -o c5002 w.cc &&
	nm c5002 | grep -q " _ZNK2fx3BoxIlE4spinEl$"
'

# run MODE: profile the workload with demangle = MODE.
run () {
	rm -rf out &&
	profile_config <<-EOF &&
	[symbols]
	demangle = $1
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./c5002 2 >w.out &&
	daemon_stop &&
	folded cpu c5002 >"$1.folded" &&
	all=$(folded_sum "^c5002;" <"$1.folded") &&
	echo "$all samples" &&
	test "$all" -ge 50
}

# share ERE: the samples whose stack ends in main;ERE, in percent.
share () {
	n=$(folded_sum "^c5002;(.*;)?main;$1\$" <"$mode.folded") &&
	echo "$n of $all samples in $1" &&
	test "$n" -ge $((all * 90 / 100))
}

test_expect_success ROOT,BPF,CXX 'demangle = none: the symbol' '
	mode=none && run none &&
	share "_ZNK2fx3BoxIlE4spinEl"
'

test_expect_success ROOT,BPF,CXX 'demangle = simplified: no arguments' '
	mode=simplified && run simplified &&
	share "fx::Box::spin"
'

test_expect_success ROOT,BPF,CXX 'demangle = full: as c++filt prints it' '
	mode=full && run full &&
	test "$(c++filt _ZNK2fx3BoxIlE4spinEl)" = \
	    "fx::Box<long>::spin(long) const" &&
	share "fx::Box<long>::spin\(long\) const"
'

test_done
