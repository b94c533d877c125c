#!/bin/sh
test_description='Python and native frames: C extensions on top, deep stacks truncated

A CPU-heavy C extension call (hashlib on a large buffer, OpenSSL) shows
its native frames (_hashlib, then libcrypto: the whole chain, walked
with unwind tables) above the Python function that called it; a
stack deeper than [python] depth keeps its innermost frames and shows
[truncated] in place of the rest.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-python.sh"

test_expect_success ROOT,BPF 'profile hashing and a 200-deep recursion' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 1999
	[python]
	depth = 100
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	for n in $PYTHONS; do
		python_link $n t7004h &&
		python_link $n t7004d &&
		{ ./t7004h-$n "$PYWORK" hash 1.5 >/dev/null & } &&
		p1=$! &&
		{ ./t7004d-$n "$PYWORK" deep 1 >/dev/null & } &&
		p2=$! &&
		wait $p1 && wait $p2 || return 1
	done &&
	daemon_stop
'

hash=$(pywork_line hash)
deep=$(pywork_line deep)

for n in $PYTHON_ALL; do
	P=$(echo $n | tr a-z A-Z)
	test_expect_success ROOT,BPF,$P "$n: OpenSSL runs above hot_hash" '
		folded cpu t7004h-$n >$n.hash &&
		all=$(folded_sum ";hot_hash \\(pywork\\.py:$hash\\)" <$n.hash) &&
		c=$(folded_sum ";hot_hash \\(pywork\\.py:$hash\\);([^;]*;)*libcrypto" <$n.hash) &&
		echo "$n: $c of $all samples of hot_hash in libcrypto" &&
		test "$all" -ge 50 &&
		test $((c * 100)) -ge $((all * 80))
	'

	test_expect_success ROOT,BPF,$P "$n: 100 frames kept of 200, [truncated]" '
		folded cpu t7004d-$n >$n.deep &&
		grep ";burn_for (pywork.py:" $n.deep >burn &&
		test -s burn &&
		! grep -v "^t7004d-$n;\\[truncated\\];recurse (pywork.py:" burn &&
		sed -e "s/ [0-9]*\$//" -e "s/([^)]*)//g" burn |
		    tr ";" "\\n" | sort | uniq -c | sed "s/^ *//" >frames &&
		grep -E "^[0-9]+ recurse \$" frames >rec &&
		grep -E "^[0-9]+ burn_for \$" frames >bf &&
		test $(cut -d" " -f1 rec) = $((99 * $(cut -d" " -f1 bf)))
	'
done

test_done
