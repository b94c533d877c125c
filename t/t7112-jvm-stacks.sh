#!/bin/sh
test_description='HotSpot stacks walked and named with no flag on java

Each JDK found (Debian openjdk-17, Temurin 25) runs t/helper/JvmWork
(a recursive fib, sumSquares calling square) as the JIT compiles it,
and in the interpreter only (-Xint); t/helper/JvmInline, whose inner
method the JIT inlines into outer; and t/helper/JvmWait, whose threads
block in Object.wait and Thread.sleep.  No perf map, no agent: the
BPF walker steps over the Java frames the unwind tables do not know,
and the daemon names them "Class.method (File.java)".  Of the samples
of the Java main method, at least 95% have the right leaf Java method
under main, down to the thread start, with no [unknown] frame; the
inlined method is a frame of its own; each wait is under its method,
the time blocked there within 1% of what the threads measured.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-jvm.sh"

LEAF="python3 $EBPFSPY_SOURCE_DIR/t/helper/rt_leaf.py"
WORK=$EBPFSPY_SOURCE_DIR/t/helper/JvmWork.java
first=$(grep -n 'static int fib' "$WORK" | cut -d: -f1)
last=$(wc -l <"$WORK")
# The main thread runs Java: under the launcher's call of main.
MARK=JavaMain
CHAINS="JvmWork.main,JvmWork.fib|JvmWork.main,JvmWork.sumSquares"
CHAINS="$CHAINS|JvmWork.main,JvmWork.sumSquares,JvmWork.square"

# whole_check NAME: 95% of the Java samples whole.
whole_check () {
	$LEAF java $1 $MARK "$CHAINS" <$1.folded >$1.leaf &&
	cat $1.leaf &&
	all=$(sed -n "s/^samples //p" $1.leaf) &&
	whole=$(sed -n "s/^whole //p" $1.leaf) &&
	echo "$1: $whole of $all samples whole" &&
	test "$all" -ge 100 &&
	test $((whole * 100)) -ge $((all * 95)) ||
	jvm_explain $1
}

# jvm_explain COMM: what the daemon did for the process, on a failure.
jvm_explain () {
	for pid in $(sed -n "s/^.*pid \([0-9]*\) ($1).*$/\1/p" \
	    "$DAEMON_LOG" | sort -u); do
		grep "pid $pid[: ]" "$DAEMON_LOG" | head -40
	done
	grep "cannot open\|symbols (" "$DAEMON_LOG" | head -40
	return 1
}

for jdk in $JDKS; do
	P=$(echo $jdk | tr a-z A-Z)
	v=${jdk#jdk}

	test_expect_success ROOT,BPF,$P "$jdk: profile the workloads" '
		jvm_compile $jdk $jdk &&
		profile_config <<-\EOF &&
		[profile]
		sample_rate = 499
		offcpu = yes
		unwind_table_bytes = 67108864
		[jvm]
		enabled = yes
		EOF
		for m in jit xint inl wait; do
			ln -sf "$(jdk_home $jdk)/bin/java" j$v$m || return 1
		done &&
		daemon_start -v -v -c ebpfspy.conf -o out$v &&
		./j${v}jit -cp $jdk JvmWork 6 >jit$v.out &&
		./j${v}xint -Xint -cp $jdk JvmWork 4 >xint$v.out &&
		./j${v}inl -XX:CompileCommand=quiet \
		    -XX:CompileCommand=inline,JvmInline::inner \
		    -XX:CompileCommand=dontinline,JvmInline::leafWork \
		    -cp $jdk JvmInline 6 >inl$v.out &&
		./j${v}wait -cp $jdk JvmWait 4 >wait$v.out &&
		daemon_stop &&
		for m in jit xint inl; do
			cat out$v/cpu/j$v$m/*.folded >j$v$m.folded || return 1
		done &&
		cat out$v/offcpu/j${v}wait/*.folded >j${v}wait.folded &&
		! grep "^ERROR\|AddressSanitizer" "$DAEMON_LOG"
	'

	test_expect_success ROOT,BPF,$P "$jdk: compiled: the leaf method under main, whole" '
		whole_check j${v}jit &&
		grep -q "^leaf JvmWork.fib " j${v}jit.leaf
	'

	test_expect_success ROOT,BPF,$P "$jdk: compiled: recursion, C2 frames of fib in fib" '
		grep -E "JvmWork.fib \(JvmWork.java\)(;JvmWork.fib \(JvmWork.java\)){5}" \
		    j${v}jit.folded >/dev/null
	'

	test_expect_success ROOT,BPF,$P "$jdk: -Xint: interpreted frames, whole" '
		whole_check j${v}xint
	'

	test_expect_success ROOT,BPF,$P "$jdk: an inlined method is a frame of its own" '
		$LEAF java j${v}inl $MARK \
		    JvmInline.main,JvmInline.outer,JvmInline.inner,JvmInline.leafWork \
		    <j${v}inl.folded >j${v}inl.leaf &&
		cat j${v}inl.leaf &&
		all=$(sed -n "s/^samples //p" j${v}inl.leaf) &&
		whole=$(sed -n "s/^whole //p" j${v}inl.leaf) &&
		echo "$whole of $all samples whole" &&
		test "$all" -ge 100 &&
		test $((whole * 100)) -ge $((all * 95))
	'

	# wait_check LOOP MEASURED CHAINS MARK: the waits of LOOP in MARK
	# (the JVM function that blocks) whole, and their time within 1%
	# of what the thread measured (ms): no wait lost its Java frames.
	wait_check () {
		grep "JvmWait.$1 (JvmWait.java)" j${v}wait.folded |
		$LEAF java j${v}wait $4 "$3" >$1.leaf &&
		cat $1.leaf &&
		all=$(sed -n "s/^samples //p" $1.leaf) &&
		whole=$(sed -n "s/^whole //p" $1.leaf) &&
		ms=$(sed -n "s/^$2 //p" wait$v.out) &&
		echo "$1: $whole of $all ns whole, the thread measured $ms ms" &&
		test "$whole" -eq "$all" &&
		within $((all / 1000000)) $ms $((ms / 100))
	}

	test_expect_success ROOT,BPF,$P "$jdk: off-CPU: the waits in Object.wait, whole" '
		wait_check waitLoop waited \
		    "JvmWait.waitLoop,java.lang.Object.wait|JvmWait.waitLoop,java.lang.Object.wait,java.lang.Object.wait0" \
		    JVM_MonitorWait
	'

	test_expect_success ROOT,BPF,$P "$jdk: off-CPU: the sleeps in Thread.sleep, whole" '
		wait_check sleepLoop slept \
		    "JvmWait.sleepLoop,java.lang.Thread.sleep|JvmWait.sleepLoop,java.lang.Thread.sleep,java.lang.Thread.sleepNanos,java.lang.Thread.sleepNanos0" \
		    JVM_Sleep,JVM_SleepNanos
	'
done

test_done
