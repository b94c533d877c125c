#!/bin/sh
test_description='vDSO frames are named

A workload calls clock_gettime() in a loop: the vDSO runs it, and its
frames are named after the vDSO function, __vdso_clock_gettime, not
[vdso]+0xoffset.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq VDSO 'grep -q "\[vdso\]" /proc/self/maps'

test_expect_success ROOT,BPF,VDSO 'profile it' '
	cat >vd.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	#include <time.h>
	#include <unistd.h>

	int
	main(int argc, char **argv)
	{
		struct timespec	 ts, cpu;
		double		 end = atof(argv[1]);
		int		 i;

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		/* Until it used that much CPU time, whatever the load. */
		do {
			for (i = 0; i < 100000; i++)
				clock_gettime(CLOCK_MONOTONIC, &ts);
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
		} while (cpu.tv_sec + cpu.tv_nsec / 1e9 < end);
		return 0;
	}
	EOF
	cc -O2 -o v5007 vd.c &&
	profile_config </dev/null &&
	daemon_start -c ebpfspy.conf -o out &&
	./v5007 2 >w.out &&
	daemon_stop
'

test_expect_success ROOT,BPF,VDSO 'its frames named __vdso_clock_gettime' '
	folded cpu v5007 >v.folded &&
	all=$(folded_sum "^v5007;" <v.folded) &&
	vdso=$(folded_sum "^v5007;(.*;)?__vdso_clock_gettime(;|\$)" <v.folded) &&
	echo "$vdso of $all in __vdso_clock_gettime" &&
	test "$all" -ge 50 &&
	test "$vdso" -ge $((all / 4)) &&
	: a frame stays [vdso]+0x only where the vDSO has no symbol: &&
	: 6.18 has an internal function before its first one &&
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/vdso_syms.py" >syms &&
	grep -o "\[vdso\]+0x[0-9a-f]*" v.folded | sed "s/.*+0x//" |
	    sort -u >offs &&
	echo "$(wc -l <offs) offsets of the vDSO unnamed" &&
	while read -r off; do
		while read -r lo hi name; do
			if test $((0x$off)) -ge $((0x$lo)) &&
			    test $((0x$off)) -lt $((0x$hi)); then
				echo "[vdso]+0x$off is in $name"
				return 1
			fi
		done <syms || return 1
	done <offs &&
	: and every unnamed one was called from a named vDSO function &&
	! grep -E "\[vdso\]\+0x" v.folded | grep -vE ";__vdso_[a-z_]+;\[vdso\]\+0x"
'

test_done
