#!/bin/sh
test_description='off-CPU: blocked time per stack, against what the workload measured'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

blocked () {
	sed -n "s/^blocked $1 //p" "$2"
}

test_expect_success ROOT,BPF 'profile the waiter: a sleeping and a pipe-reading thread' '
	mkworkload waiter w3100 &&
	profile_config <<-\EOF &&
	[profile]
	cpu = no
	offcpu = yes
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./w3100 -m split -t 5 >w.out &&
	daemon_stop &&
	folded offcpu w3100 >off.folded &&
	test_path_is_missing out/cpu/w3100
'

test_expect_success ROOT,BPF 'the total is the wall time the threads were blocked, +-10%' '
	ws=$(blocked wait_sleep w.out) && wp=$(blocked wait_pipe w.out) &&
	s=$(folded_sum ";wait_sleep;" <off.folded) &&
	p=$(folded_sum ";wait_pipe;" <off.folded) &&
	echo "measured sleep $ws pipe $wp, profiled sleep $s pipe $p" &&
	want=$(( (ws + wp) / 1000000 )) && got=$(( (s + p) / 1000000 )) &&
	within $got $want $((want / 10))
'

test_expect_success ROOT,BPF 'the split between the two waits, +-5 points' '
	ws=$(blocked wait_sleep w.out) && wp=$(blocked wait_pipe w.out) &&
	s=$(folded_sum ";wait_sleep;" <off.folded) &&
	p=$(folded_sum ";wait_pipe;" <off.folded) &&
	want=$(percent $((ws / 1000)) $(( (ws + wp) / 1000 ))) &&
	got=$(percent $((s / 1000)) $(( (s + p) / 1000 ))) &&
	echo "sleep share: measured $want%, profiled $got%" &&
	within $got $want 5
'

test_expect_success ROOT,BPF 'the stacks are those the threads blocked in' '
	grep -E ";wait_sleep;raw_sleep;raw_syscall3;entry_SYSCALL_64_after_hwframe;do_syscall_64;.*;schedule;__schedule [0-9]+$" off.folded &&
	grep -E ";wait_pipe;raw_syscall3;entry_SYSCALL_64_after_hwframe;do_syscall_64;.*(pipe_read|vfs_read).*;schedule;__schedule [0-9]+$" off.folded
'

test_expect_success ROOT,BPF 'per thread: 8 threads, each its own time +-10%' '
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	./w3100 -m threads >t.out &&
	daemon_stop &&
	folded offcpu w3100 >threads.folded &&
	for i in 0 1 2 3 4 5 6 7; do
		want=$(( $(blocked sleep_t$i t.out) / 1000000 )) &&
		got=$(( $(folded_sum ";sleep_t$i;" <threads.folded) / 1000000 )) &&
		echo "sleep_t$i: measured $want ms, profiled $got ms" &&
		within $got $want $((want / 10)) || return 1
	done
'

test_expect_success ROOT,BPF 'a thread still blocked at stop is counted up to the stop' '
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	t0=$(date +%s%N) &&
	{ ./w3100 -m long -t 30 >l.out & } &&
	w=$! &&
	workload_wait l.out &&
	t1=$(date +%s%N) &&
	sleep 3 &&
	t2=$(date +%s%N) &&
	daemon_stop &&
	t3=$(date +%s%N) &&
	kill $w && wait $w;
	folded offcpu w3100 >long.folded &&
	got=$(( $(folded_sum ";wait_long;" <long.folded) / 1000000 )) &&
	low=$(( (t2 - t1) / 1000000 )) && high=$(( (t3 - t0) / 1000000 )) &&
	echo "blocked $got ms at stop, expected $low to $high ms" &&
	test $got -ge $low &&
	test $got -le $high
'

test_done
