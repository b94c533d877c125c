#!/bin/sh
test_description='Python and native frames: C extensions on top, deep stacks truncated

A CPU-heavy C extension call (hashlib on a large buffer, OpenSSL) shows
its native frames (_hashlib, then libcrypto: the whole chain, walked
with unwind tables, though _hashlib and libcrypto were loaded after the
process was first sampled) above the Python function that called it,
and none of the interpreter'"'"'s own; a
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
	# The whole native chain: _hashlib right above hot_hash (none of
	# the interpreter'"'"'s own frames between), then libcrypto's
	# SHA256_Update, then the leaf in libcrypto.  _hashlib is loaded
	# after the first sample (import hashlib): the unwinder must have
	# asked for the maps again.
	test_expect_success ROOT,BPF,$P "$n: OpenSSL runs above hot_hash, the whole chain" '
		folded cpu t7004h-$n >$n.hash &&
		all=$(folded_sum ";hot_hash \\(pywork\\.py:$hash\\)" <$n.hash) &&
		c=$(folded_sum ";hot_hash \\(pywork\\.py:$hash\\);([^;]*;)*libcrypto" <$n.hash) &&
		w=$(folded_sum ";hot_hash \\(pywork\\.py:$hash\\);_hashlib[^;]*;([^;]*;)*(SHA256_Update|EVP_Digest[A-Za-z_]*);libcrypto[^;]*(;|\$)" \
		    <$n.hash) &&
		i=$(folded_sum ";hot_hash \\(pywork\\.py:[0-9]+\\);(.*;)?(_?Py[A-Z][A-Za-z_]*|python3[^;]*|libpython[^;]*)(;|\$)" \
		    <$n.hash) &&
		echo "$n: $c of $all samples of hot_hash in libcrypto," \
		    "$w through _hashlib, $i with interpreter frames" &&
		test "$all" -ge 50 &&
		test $((c * 100)) -ge $((all * 80)) &&
		test $((w * 100)) -ge $((all * 90)) &&
		test "$i" -eq 0
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
