#!/bin/sh
test_description='reload switches off-CPU profiling on and off, on-CPU data kept'
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

test_expect_success ROOT,BPF 'offcpu switched on by a reload in the middle of a round' '
	mkworkload burn b2002 &&
	mkworkload waiter w2002 &&
	conf no &&
	daemon_start -c ebpfspy.conf -o out &&
	{ ./b2002 -t 6 >b.out & } && b=$! &&
	{ ./w2002 -m split -t 6 >w.out & } && w=$! &&
	workload_wait b.out && workload_wait w.out &&
	sleep 2 &&
	conf yes &&
	daemon_wait_log "^reloaded " &&
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

test_done
