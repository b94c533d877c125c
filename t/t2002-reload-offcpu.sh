#!/bin/sh
test_description='reload switches off-CPU profiling on and off, on-CPU data kept

The off-CPU program is loaded only once off-CPU comes on: its
verification was 40% of the CPU of a start-up.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

conf () {
	profile_config <<-EOF
	[profile]
	sample_rate = 499
	offcpu = $1
	EOF
}

# The names of the BPF programs the daemon holds, one a line.
daemon_progs () {
	for f in /proc/$(daemon_pid)/fdinfo/*; do
		sed -n "s/^prog_id:[[:space:]]*//p" "$f" 2>/dev/null
	done | sort -u | while read -r id; do
		bpftool prog show id "$id" |
		sed -n "s/^[0-9]*: [a-z_]*  name \([^ ]*\) .*/\1/p"
	done | sort
}

test_expect_success ROOT,BPF 'offcpu switched on by a reload in the middle of a round' '
	mkworkload burn b2002 &&
	mkworkload waiter w2002 &&
	conf no &&
	daemon_start -c ebpfspy.conf -o out &&
	daemon_progs >progs.off &&
	cat progs.off &&
	grep "^on_cpu_sample$" progs.off &&
	! grep "offcpu" progs.off &&
	{ ./b2002 -t 6 >b.out & } && b=$! &&
	{ ./w2002 -m split -t 6 >w.out & } && w=$! &&
	workload_wait b.out && workload_wait w.out &&
	sleep 2 &&
	conf yes &&
	daemon_wait_log "^reloaded " &&
	daemon_progs >progs.on &&
	cat progs.on &&
	grep "^offcpu_switch_" progs.on &&
	wait $b && wait $w &&
	daemon_stop
'

test_expect_success ROOT,BPF 'no on-CPU sample of the round was lost' '
	cpu=$(sed -n "s/^cpu //p" b.out) &&
	want=$((cpu * 499 / 1000000000)) &&
	got=$(folded cpu b2002 | folded_sum "^b2002;") &&
	echo "burn used $cpu ns of CPU: $want samples expected, $got in the profile" &&
	test "$got" -ge $((want * 85 / 100))
'

test_expect_success ROOT,BPF 'the waits after the reload are there, the earlier ones not' '
	s=$(folded offcpu w2002 | folded_sum ";wait_sleep;") &&
	echo "wait_sleep: $s ns" &&
	test "$s" -ge 2000000000 &&
	test "$s" -le 4500000000
'

test_expect_success ROOT,BPF 'offcpu switched off by a reload: the program is detached' '
	conf yes &&
	daemon_start -c ebpfspy.conf -o out2 &&
	./w2002 -m split -t 1 >w.out &&
	conf no &&
	daemon_wait_log "^reloaded " &&
	n1=$(daemon_stat offcpu_switch) &&
	test "$n1" -gt 0 &&
	./w2002 -m split -t 1 >w.out &&
	n2=$(daemon_stat offcpu_switch) &&
	daemon_stop &&
	echo "blocked switches: $n1 then $n2" &&
	test "$n1" = "$n2"
'

test_expect_success ROOT,BPF 'a kernel without tp_btf: the raw tracepoint counts the same' '
	EBPFSPY_TEST_FAIL=offcpu_btf &&
	export EBPFSPY_TEST_FAIL &&
	test_when_finished "unset EBPFSPY_TEST_FAIL" &&
	conf yes &&
	daemon_start -v -c ebpfspy.conf -o out3 &&
	daemon_progs >progs.raw &&
	cat progs.raw &&
	grep "^offcpu_switch_raw$" progs.raw &&
	./w2002 -m split -t 2 >w.out &&
	daemon_stop &&
	grep "tp_btf sched_switch did not load" "$DAEMON_LOG" &&
	s=$(cat out3/offcpu/w2002/*.folded | folded_sum ";wait_sleep;") &&
	echo "wait_sleep: $s ns of 2 s" &&
	test "$s" -ge 1500000000 &&
	test "$s" -le 2500000000
'

test_done
