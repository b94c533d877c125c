#!/bin/sh
test_description='Python processes: started before or after the daemon, exec, gone before the round

Every interpreter is named whether it ran before the daemon started
(found at its first sample), started after it, was exec()ed by a shell
(found at the exec; a shared libpython once the loader has mapped it),
or ended long before the round that names it: its code objects are
read when its stacks are first seen.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-python.sh"

# The short one (0.5 s) keeps its own service: what is tested is its
# Python frames, not the rule that gives short commands their parent's.
test_expect_success ROOT,BPF 'Python before, after, through exec, and short' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 1999
	[targets]
	short_lived_ms = 0
	EOF
	early= &&
	for n in $PYTHONS; do
		python_link $n t7002b &&
		{ PYWORK_GO=go-$n ./t7002b-$n "$PYWORK" split 1.5 >b-$n.out & } &&
		early="$early $!" || return 1
	done &&
	for n in $PYTHONS; do
		workload_wait b-$n.out || return 1
	done &&
	daemon_start -c ebpfspy.conf -o out &&
	for n in $PYTHONS; do
		python_link $n t7002a &&
		python_link $n t7002e &&
		python_link $n t7002s &&
		: >go-$n &&
		{ ./t7002a-$n "$PYWORK" split 1.5 >a-$n.out & } &&
		p1=$! &&
		{ sh -c "exec ./t7002e-$n \"$PYWORK\" split 1.5" >e-$n.out & } &&
		p2=$! &&
		./t7002s-$n "$PYWORK" split 0.5 >s-$n.out &&
		wait $p1 && wait $p2 || return 1
	done &&
	for p in $early; do
		wait $p || return 1
	done &&
	: all are gone now, and the round comes at the stop &&
	daemon_stop
'

for n in $PYTHON_ALL; do
	P=$(echo $n | tr a-z A-Z)
	test_expect_success ROOT,BPF,$P "$n: all four are named" '
		for k in b a e s; do
			folded cpu t7002$k-$n >$k-$n.folded &&
			s=$(folded_sum "^t7002$k-$n;<module> \\(pywork\\.py:[0-9]+\\);main \\(pywork\\.py:[0-9]+\\);hot_a \\(pywork\\.py:[0-9]+\\);" <$k-$n.folded) &&
			all=$(folded_sum "^t7002$k-$n;" <$k-$n.folded) &&
			echo "t7002$k-$n: $s of $all samples in main;hot_a" &&
			test "$s" -ge 20 || return 1
		done
	'
done

test_expect_success ROOT,BPF 'the frames of the workloads all have names' '
	! grep -h ";main (pywork.py:.*unknown python" *.folded
'

test_done
