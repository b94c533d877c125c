#!/bin/sh
test_description='Python on-CPU: functions and lines of CPython 3.8-3.13

main() calls hot_a() for 75% and hot_b() for 25% of its CPU time, on
every interpreter installed, one after another: the profile shows
main;hot_a and main;hot_b with the lines of the calls, in that
proportion.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-python.sh"

python_require_ci

test_expect_success ROOT,BPF 'profile the split workload on every interpreter' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 999
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	for n in $PYTHONS; do
		python_link $n t7000 &&
		./t7000-$n "$PYWORK" split 3 >$n.out || return 1
	done &&
	daemon_stop &&
	for n in $PYTHONS; do
		folded cpu t7000-$n >$n.folded || return 1
	done
'

call_a=$(pywork_line call_a)
call_b=$(pywork_line call_b)
line_a=$(pywork_line line_a)
line_b=$(pywork_line line_b)

for n in $PYTHON_ALL; do
	P=$(echo $n | tr a-z A-Z)
	test_expect_success ROOT,BPF,$P "$n: main;hot_a and main;hot_b at their lines, split +-5 points" '
		want_a=$(sed -n "s/^cpu hot_a //p" $n.out) &&
		want_b=$(sed -n "s/^cpu hot_b //p" $n.out) &&
		a=$(folded_sum ";main \\(pywork\\.py:$call_a\\);hot_a \\(pywork\\.py:$line_a\\);burn_a \\(" <$n.folded) &&
		b=$(folded_sum ";main \\(pywork\\.py:$call_b\\);hot_b \\(pywork\\.py:$line_b\\);burn_b \\(" <$n.folded) &&
		all_a=$(folded_sum ";hot_a \\(" <$n.folded) &&
		all_b=$(folded_sum ";hot_b \\(" <$n.folded) &&
		want=$(percent $((want_a / 1000)) $(( (want_a + want_b) / 1000 ))) &&
		got=$(percent $a $((a + b))) &&
		echo "$n: hot_a $a of $all_a, hot_b $b of $all_b samples;" \
		    "hot_a share measured $want%, profiled $got%" &&
		test $((a + b)) -ge 200 &&
		test $((a * 100)) -ge $((all_a * 90)) &&
		test $((b * 100)) -ge $((all_b * 90)) &&
		within $got $want 5
	'
done

test_expect_success ROOT,BPF 'the stacks start at <module> and nothing else is lost' '
	for n in $PYTHONS; do
		grep -E "^t7000-$n;<module> \\(pywork\\.py:[0-9]+\\);main \\(pywork\\.py:$call_a\\);hot_a" $n.folded >/dev/null ||
		{ echo "$n: no <module>;main;hot_a"; return 1; }
	done &&
	! grep -h "lost python stack" *.folded
'

test_done
