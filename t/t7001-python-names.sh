#!/bin/sh
test_description='Python frame names: methods, generators, coroutines, module code, threads

A method shows its qualified name (Worker.step), a generator and a
coroutine their own names, module-level code <module>; and two threads
running different functions -- one holding the GIL, one hashing without
it -- are each given their own stack.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-python.sh"

test_expect_success ROOT,BPF 'profile the names and threads workloads' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 1999
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	for n in $PYTHONS; do
		python_link $n t7001n &&
		python_link $n t7001t &&
		{ ./t7001n-$n "$PYWORK" names 2 >/dev/null & } &&
		p1=$! &&
		{ ./t7001t-$n "$PYWORK" threads 2 >/dev/null & } &&
		p2=$! &&
		wait $p1 && wait $p2 || return 1
	done &&
	daemon_stop &&
	for n in $PYTHONS; do
		folded cpu t7001n-$n >$n.names &&
		folded cpu t7001t-$n >$n.threads || return 1
	done
'

step=$(pywork_line step)
gen=$(pywork_line gen)
coro=$(pywork_line coro)
module=$(pywork_line module)
one=$(pywork_line one)
two=$(pywork_line two)

for n in $PYTHON_ALL; do
	P=$(echo $n | tr a-z A-Z)
	test_expect_success ROOT,BPF,$P "$n: Worker.step, gen_step, co_step, <module>" '
		for f in "<module> \\(pywork\\.py:[0-9]+\\);Worker\\.step \\(pywork\\.py:$step\\);burn_for" \
		    "<module> \\(pywork\\.py:[0-9]+\\);gen_step \\(pywork\\.py:$gen\\);burn_for" \
		    "<module> \\(pywork\\.py:[0-9]+\\);co_step \\(pywork\\.py:$coro\\);burn_for" \
		    "^t7001n-$n;<module> \\(pywork\\.py:$module\\)"; do
			s=$(folded_sum "$f" <$n.names) &&
			echo "$n: $s samples: $f" &&
			test "$s" -ge 20 || return 1
		done
	'

	test_expect_success ROOT,BPF,$P "$n: each thread has its own stack" '
		s1=$(folded_sum ";thread_one \\(pywork\\.py:$one\\);burn_for" <$n.threads) &&
		s2=$(folded_sum ";thread_two \\(pywork\\.py:$two\\);([^;]*;)*libcrypto" <$n.threads) &&
		echo "$n: thread_one $s1, thread_two hashing $s2 samples" &&
		test "$s1" -ge 20 && test "$s2" -ge 20 &&
		! grep -E "thread_one.*(thread_two|libcrypto)" $n.threads &&
		! grep -E "thread_two.*(thread_one|burn_for)" $n.threads
	'
done

test_done
