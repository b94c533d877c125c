#!/bin/sh
test_description='JIT code named from /tmp/perf-PID.map

A C workload copies a small loop into anonymous executable memory
twice, as a JIT compiler would, writes /tmp/perf-PID.map naming the two
copies, and spends three quarters of its time in the first.  Node.js
--perf-basic-prof writes the same kind of map for its JavaScript.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq X86_64 'test "$(uname -m)" = x86_64 && cc --version'
test_lazy_prereq NODE 'node --version'

test_expect_success X86_64 'a JIT workload' '
	cat >jit.c <<-\EOF &&
	#include <sys/mman.h>

	#include <stdio.h>
	#include <stdlib.h>
	#include <string.h>
	#include <time.h>
	#include <unistd.h>

	/* push %rbp; mov %rsp,%rbp; mov %rdi,%rcx; 1: dec %rcx; jne 1b;
	 * pop %rbp; ret: a frame, so that the walk goes on to run_jit. */
	static const unsigned char loop[] = { 0x55, 0x48, 0x89, 0xe5, 0x48,
	    0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0x5d, 0xc3 };

	static double
	now(void)
	{
		struct timespec	 ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		return ts.tv_sec + ts.tv_nsec / 1e9;
	}

	__attribute__((noinline)) static void
	run_jit(void (*f)(long), long n)
	{
		f(n);
	}

	int
	main(int argc, char **argv)
	{
		char		 path[64];
		unsigned char	*m;
		void		(*alpha)(long), (*beta)(long);
		double		 end;
		FILE		*f;

		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return 1;
		memcpy(m + 0x100, loop, sizeof(loop));
		memcpy(m + 0x200, loop, sizeof(loop));
		alpha = (void (*)(long))(m + 0x100);
		beta = (void (*)(long))(m + 0x200);
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		if ((f = fopen(path, "w")) == NULL)
			return 1;
		fprintf(f, "%lx %zx JIT:alpha loop [jitted]\n",
		    (unsigned long)(m + 0x100), sizeof(loop));
		fprintf(f, "%lx %zx JIT:beta loop [jitted]\n",
		    (unsigned long)(m + 0x200), sizeof(loop));
		fclose(f);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		end = now() + atof(argv[1]);
		while (now() < end) {
			run_jit(alpha, 3000000);
			run_jit(beta, 1000000);
		}
		return 0;
	}
	EOF
	cc -O0 -fno-omit-frame-pointer -o j5004 jit.c
'

test_expect_success ROOT,BPF,X86_64 'JIT code named from the perf map' '
	profile_config </dev/null &&
	daemon_start -c ebpfspy.conf -o out &&
	./j5004 3 >w.out &&
	daemon_stop &&
	rm -f "/tmp/perf-$(sed -n "s/^ready //p" w.out).map" &&
	folded cpu j5004 >j.folded &&
	all=$(folded_sum "^j5004;" <j.folded) &&
	alpha=$(folded_sum "^j5004;(.*;)?main;run_jit;JIT:alpha loop \[jitted\]\$" \
	    <j.folded) &&
	beta=$(folded_sum "^j5004;(.*;)?main;run_jit;JIT:beta loop \[jitted\]\$" \
	    <j.folded) &&
	echo "$alpha in alpha, $beta in beta, of $all" &&
	test "$all" -ge 50 &&
	test $((alpha + beta)) -ge $((all * 90 / 100)) &&
	within $(percent $alpha $((alpha + beta))) 75 15
'

test_expect_success ROOT,BPF,NODE 'Node.js --perf-basic-prof' '
	ln -s "$(command -v node)" n5004 &&
	cat >fib.js <<-\EOF &&
	function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
	const end = Date.now() + 3000;
	let s = 0;
	console.log("ready " + process.pid);
	while (Date.now() < end)
		s += fib(25);
	EOF
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	./n5004 --perf-basic-prof fib.js >n.out &&
	daemon_stop &&
	rm -f "/tmp/perf-$(sed -n "s/^ready //p" n.out).map" &&
	folded cpu n5004 >n.folded &&
	all=$(folded_sum "^n5004;" <n.folded) &&
	fib=$(folded_sum "^n5004;.*JS:[*~^]?fib [^;]*fib\.js" <n.folded) &&
	echo "$fib of $all samples in fib" &&
	test "$all" -ge 50 &&
	test "$fib" -ge $((all / 2))
'

test_done
