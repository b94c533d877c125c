#!/bin/sh
test_description='HotSpot: the code cache named from the JVM own tables

t/helper/jvmnames reads a live JVM with src/jvm/ -- its vmStructs, its
code heaps by their segment maps, its nmethods and Methods -- and names
every compiled method.  The JVM own perf map (jcmd Compiler.perfmap,
asked for over the attach protocol) is the oracle: each Java method it
lists must be found at the same address, with the same size and name.
Then an -Xint JVM (the interpreter only), a method inlined into another
(square into sumSquares, with the lines of both), and a libjvm.so whose
tables are garbage, refused for the reason it gives.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-jvm.sh"

CMP="python3 $EBPFSPY_SOURCE_DIR/t/helper/jvm_perfmap_cmp.py"
WORK=$EBPFSPY_SOURCE_DIR/t/helper/JvmWork.java
fibline=$(grep -n 'return fib(n - 1)' "$WORK" | cut -d: -f1)
first=$(grep -n 'static int fib' "$WORK" | cut -d: -f1)
last=$(wc -l <"$WORK")
square=$(grep -n 'return x \* x' "$WORK" | cut -d: -f1)
sumline=$(grep -n 's += square' "$WORK" | cut -d: -f1)

for n in jdk17 jdk25; do
	P=$(echo $n | tr a-z A-Z)

	test_expect_success ROOT,PYTHON3,$P "$n: every method of the perf map, same address and name" '
		jvm_compile $n $n &&
		jvm_start $n $n JvmWork 120 &&
		jvmnames $JVM_PID >$n.before &&
		jvmnames -p $JVM_PID >$n.after &&
		head -1 $n.after &&
		$CMP /tmp/perf-$JVM_PID.map $n.before $n.after --min 10 \
		    --want JvmWork.fib --want JvmWork.square \
		    --want JvmWork.sumSquares
	'

	test_expect_success ROOT,$P "$n: lines of compiled methods" '
		grep -E " nmethod JvmWork\.fib	JvmWork\.java	$fibline	" \
		    $n.after &&
		awk -F "\t" -v lo=$first -v hi=$last "
		    / nmethod JvmWork\./ && \$3 != -1 &&
		    (\$3 < lo || \$3 > hi) { print; bad = 1 }
		    END { exit bad }" $n.after
	'

	test_expect_success ROOT,PYTHON3,$P "$n: -Xint: the interpreter, no nmethod of ours" '
		jvm_start $n $n -Xint JvmWork 120 &&
		jvmnames $JVM_PID >$n.xint0 &&
		jvmnames -p $JVM_PID >$n.xint || {
			cat $n.xint; false; } &&
		$CMP /tmp/perf-$JVM_PID.map $n.xint0 $n.xint --min 1 \
		    --want Interpreter || {
			cat /tmp/perf-$JVM_PID.map; false; } &&
		grep "^# JDK [0-9]*, 1 code heaps" $n.xint &&
		! grep " nmethod JvmWork" $n.xint
	'

	test_expect_success ROOT,$P "$n: square inlined into sumSquares, both lines" '
		jvm_start $n $n -XX:+UnlockDiagnosticVMOptions \
		    -XX:+DebugNonSafepoints JvmWork 120 &&
		# "ready" comes after 200 rounds, when the JIT has usually
		# compiled sumSquares with square inlined; under load (CI)
		# that nmethod may come later: read again until it is
		# there, for at most 30 s.
		i=0 &&
		while :; do
			jvmnames -i $JVM_PID >$n.inl || return 1
			grep -E "^I .* JvmWork\.square:$square;JvmWork\.sumSquares:$sumline(;|\$)" \
			    $n.inl && break
			i=$((i + 1))
			test $i -lt 60 || return 1
			sleep 0.5
		done
	'
done

for mode in garbage stride noend names old field; do
	case $mode in
	old) why="version version" ;;
	field) why="field _heaps" ;;
	*) why=tables ;;
	esac
	# Each its own output: the last one's "ready" in a shared file,
	# read before the new process truncated it, let jvmnames look at a
	# process that had not mapped its libjvm.so yet (exit 1, once in CI).
	test_expect_success ROOT "a libjvm.so of $mode tables: refused ($why)" '
		{ fakejava $mode >fake.$mode.out & } &&
		pid=$! &&
		test_when_finished "kill $pid" &&
		while ! grep -q ready fake.$mode.out; do
			kill -0 $pid || return 1
			sleep 0.01
		done &&
		test_expect_code 3 jvmnames $pid >fake.names &&
		echo "refused $why" >expect &&
		test_cmp expect fake.names
	'
done

test_done
