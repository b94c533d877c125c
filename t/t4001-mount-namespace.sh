#!/bin/sh
test_description='a process in another mount namespace gets names'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq UNSHARE 'unshare -m true'

# The workload runs from a tmpfs mounted in its own mount namespace: its
# binary exists only through /proc/PID/root.  At the same path on the
# host stands a different program, which must not be read instead.
test_expect_success ROOT,BPF,UNSHARE 'profile a workload only its namespace can see' '
	mkworkload burn b4001 &&
	mkdir ns &&
	cp "$(command -v waiter)" ns/b4001 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	unshare -m --propagation private sh -c "
		mount -t tmpfs tmpfs \"$PWD/ns\" &&
		cp ./b4001 \"$PWD/ns/b4001\" &&
		exec \"$PWD/ns/b4001\" -c 2" >w.out &&
	daemon_stop &&
	! cmp -s b4001 ns/b4001 &&
	folded cpu b4001 >ns.folded &&
	all=$(folded_sum "^b4001;" <ns.folded) &&
	named=$(folded_sum "^b4001;(.*;)?main;work;burn_[ab](;|\$)" <ns.folded) &&
	echo "$named of $all named" &&
	test "$all" -ge 200 &&
	test "$named" -ge $((all * 95 / 100)) &&
	! grep -E "wait_sleep|wait_pipe|feed_pipe|sleep_t" ns.folded
'

test_done
