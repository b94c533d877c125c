#!/bin/sh
test_description='a binary deleted and replaced while it runs

The workload waits until its binary is deleted and another program put
at its path, then burns: its frames are named from the file it runs
(through /proc/PID/map_files), not from the one now at the path.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success ROOT,BPF 'profile it' '
	cat >go.c <<-\EOF &&
	#pragma GCC optimize("O0", "no-omit-frame-pointer")
	#include <stdio.h>
	#include <stdlib.h>
	#include <time.h>
	#include <unistd.h>

	static volatile unsigned long sink;

	/* CPU time: a busy machine still gets the samples. */
	static double
	now(void)
	{
		struct timespec	 ts;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		return ts.tv_sec + ts.tv_nsec / 1e9;
	}

	__attribute__((noinline)) void
	gone_alpha(unsigned long n)
	{
		while (n-- > 0)
			sink = sink * 7 + n;
	}

	int
	main(int argc, char **argv)
	{
		double	 end;
		char	 c;

		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (read(0, &c, 1) != 1)
			return 1;
		for (end = now() + atof(argv[1]); now() < end;)
			gone_alpha(1000000);
		return 0;
	}
	EOF
	cc -o d5006.full go.c &&
	mkfifo go &&
	profile_config </dev/null &&
	daemon_start -c ebpfspy.conf -o out &&
	{ ./d5006.full 3 <>go >w.out & pw=$!; } &&
	workload_wait w.out &&
	rm d5006.full &&
	cp "$(command -v waiter)" d5006.full &&
	grep "d5006.full (deleted)" /proc/$pw/maps &&
	echo go >go &&
	wait $pw &&
	daemon_stop
'

test_expect_success ROOT,BPF 'named from the running file' '
	folded cpu d5006.full >d.folded &&
	all=$(folded_sum "^d5006.full;" <d.folded) &&
	named=$(folded_sum "^d5006.full;(.*;)?main;gone_alpha\$" <d.folded) &&
	echo "$named of $all named" &&
	test "$all" -ge 50 &&
	test "$named" -ge $((all * 90 / 100)) &&
	! grep -E "wait_|feed_pipe|sleep_t" d.folded
'

test_done
