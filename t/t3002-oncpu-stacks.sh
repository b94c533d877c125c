#!/bin/sh
test_description='thousands of distinct stacks keep their true split; full maps and rings are counted'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success ROOT,BPF 'profile 4096 call paths at 997 Hz' '
	mkworkload burn b3002 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	{ ./b3002 -m stacks -d 6 -c 5 >w1.out & } &&
	w=$! &&
	./b3002 -m stacks -d 6 -c 5 >w2.out &&
	wait $w &&
	daemon_stat stacks_full >stacks_full &&
	daemon_stat counts_full >counts_full &&
	daemon_stop &&
	folded cpu b3002 >stacks.folded
'

test_expect_success ROOT,BPF 'thousands of distinct stacks, none lost' '
	n=$(grep -E -c ";burn_[ab] [0-9]+\$" stacks.folded) &&
	echo "$n distinct stacks" &&
	test "$n" -ge 2000 &&
	echo 0 >zero &&
	test_cmp zero stacks_full &&
	test_cmp zero counts_full &&
	! grep "\[lost stack\]" stacks.folded
'

test_expect_success ROOT,BPF 'the split is still 75/25' '
	a=$(folded_sum ";path_[0-3];burn_a(;|\$)" <stacks.folded) &&
	b=$(folded_sum ";path_[0-3];burn_b(;|\$)" <stacks.folded) &&
	echo "burn_a $a burn_b $b" &&
	test $((a + b)) -ge 3000 &&
	within $(percent $a $((a + b))) 75 5
'

# Deeper than 32 frames: the ring carries every frame walked.
test_expect_success ROOT,BPF 'stacks of 50 levels keep every frame and the split' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b3002 -m stacks -d 49 -c 3 >w1.out &&
	daemon_stat stacks_full >stacks_full &&
	daemon_stop &&
	folded cpu b3002 >deep.folded &&
	all=$(folded_sum "^b3002;" <deep.folded) &&
	a=$(folded_sum "(;path_[0-3]){50};burn_a(;|\$)" <deep.folded) &&
	b=$(folded_sum "(;path_[0-3]){50};burn_b(;|\$)" <deep.folded) &&
	echo "$all samples, burn_a $a burn_b $b at 50 levels" &&
	test_cmp zero stacks_full &&
	test $((a + b)) -ge 1000 &&
	test $((a + b)) -ge $((all * 9 / 10)) &&
	within $(percent $a $((a + b))) 75 5
'

test_expect_success ROOT,BPF 'a full counts map is counted' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	counts_map_entries = 1024
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b3002 -m stacks -d 6 -t 4 >w1.out &&
	full=$(daemon_stat counts_full) &&
	daemon_stop &&
	echo "counts_full $full" &&
	test "$full" -gt 0
'

# Stacks go to the daemon through a ring once a round: one that comes
# back in the next rounds is sent again and named again each time.
test_expect_success ROOT,BPF 'stacks of every round are sent again and named' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	EOF
	sed -i "s/^collect_interval = .*/collect_interval = 1/" ebpfspy.conf &&
	daemon_start -c ebpfspy.conf -o out &&
	./b3002 -m stacks -d 2 -t 4 >w1.out &&
	again=$(daemon_state_value "[0-9]+ of stacks held already") &&
	daemon_stop &&
	echo "$again stack records of stacks held already" &&
	test "$again" -gt 0 &&
	rounds=$(grep -E -l ";path_0;path_0;path_0;burn_a( |;)" \
	    out/cpu/b3002/*.folded |
	    wc -l) &&
	echo "the same stack named in $rounds rounds" &&
	test "$rounds" -ge 3 &&
	! cat out/cpu/b3002/*.folded | grep "\[lost stack\]"
'

# A daemon that does not read the stack ring for a while (stopped here)
# loses the stacks that do not fit, counted, and goes on.
test_expect_success ROOT,BPF 'a full stack ring is counted' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	stack_map_entries = 1024
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	: >w1.out &&
	{ ./b3002 -m stacks -d 6 -j 2 -t 6 >w1.out & } &&
	w=$! &&
	workload_wait w1.out &&
	before=$(daemon_stat stacks_full) &&
	daemon_signal STOP &&
	sleep 2 &&
	daemon_signal CONT &&
	full=$(daemon_stat stacks_full) &&
	wait $w &&
	daemon_stop &&
	echo "stacks_full $before, then $full" &&
	test "$full" -gt "$before"
'

test_done
