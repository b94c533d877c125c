#!/bin/sh
test_description='JIT code named from /tmp/perf-PID.map

A C workload copies a small loop into anonymous executable memory
twice, as a JIT compiler would, writes /tmp/perf-PID.map naming the two
copies, and spends three quarters of its time in the first.  Node.js
--perf-basic-prof writes the same kind of map for its JavaScript, and
the JVM on "jcmd PID Compiler.perfmap".'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq X86_64 'test "$(uname -m)" = x86_64 && cc --version'
test_lazy_prereq NODE 'node --version'
test_lazy_prereq JAVA 'java -version && jcmd -h'

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

	/* CPU time: a busy machine still gets the samples. */
	static double
	now(void)
	{
		struct timespec	 ts;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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
	test_when_finished "rm -f /tmp/perf-$(sed -n "s/^ready //p" w.out).map" &&
	daemon_stop &&
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
	let s = 0;
	console.log("ready " + process.pid);
	/* CPU time, microseconds: a busy machine still gets the samples. */
	while (process.cpuUsage().user < 2500000)
		s += fib(25);
	EOF
	# The perf map is what is tested: the names of [v8] (t7100)
	# would take its place.
	profile_config <<-\EOF &&
	[v8]
	enabled = no
	EOF
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	./n5004 --perf-basic-prof fib.js >n.out &&
	test_when_finished "rm -f /tmp/perf-$(sed -n "s/^ready //p" n.out).map" &&
	daemon_stop &&
	folded cpu n5004 >n.folded &&
	all=$(folded_sum "^n5004;" <n.folded) &&
	fib=$(folded_sum "^n5004;.*JS:[*~^]?fib [^;]*fib\.js" <n.folded) &&
	echo "$fib of $all samples in fib" &&
	test "$all" -ge 50 &&
	test "$fib" -ge $((all / 2))
'

test_expect_success ROOT,BPF,JAVA 'Java: jcmd PID Compiler.perfmap' '
	ln -s "$(command -v java)" java5004 &&
	cat >Fib.java <<-\EOF &&
	public class Fib {
		static int fib(int n) {
			return n < 2 ? n : fib(n - 1) + fib(n - 2);
		}

		public static void main(String[] a) {
			java.lang.management.ThreadMXBean t =
			    java.lang.management.ManagementFactory.getThreadMXBean();
			long s = 0, cpu = (long)(Double.parseDouble(a[0]) * 1e9);
			System.out.println("ready " + ProcessHandle.current().pid());
			boolean half = false;
			/* CPU time: a busy machine still gets the samples. */
			while (t.getCurrentThreadCpuTime() < cpu) {
				s += fib(25);
				if (!half && t.getCurrentThreadCpuTime() > cpu / 2) {
					System.out.println("half");
					half = true;
				}
			}
			System.out.println("done " + s);
		}
	}
	EOF
	# The perf map is what is tested: the names of [jvm] (t7112)
	# would take its place.
	profile_config <<-\EOF &&
	[jvm]
	enabled = no
	EOF
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	{ ./java5004 Fib.java 4 >jv.out & pj=$!; } &&
	workload_wait jv.out &&
	pid=$(sed -n "s/^ready //p" jv.out) &&
	test_when_finished "rm -f /tmp/perf-$pid.map" &&
	# The map names the code compiled when it is written: write it when
	# the workload is half done, its fib long compiled.
	n=0 &&
	until grep -q "^half" jv.out; do
		n=$((n + 1)) &&
		test $n -lt 600 &&
		sleep 0.05 || return 1
	done &&
	jcmd "$pid" Compiler.perfmap &&
	wait $pj &&
	daemon_stop &&
	folded cpu java5004 >jv.folded &&
	all=$(folded_sum "^java5004;" <jv.folded) &&
	fib=$(folded_sum ";int Fib\.fib\(int\)\$" <jv.folded) &&
	echo "$fib of $all samples in Fib.fib" &&
	test "$all" -ge 50 &&
	test "$fib" -ge $((all / 3))
'

test_done
