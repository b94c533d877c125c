#!/bin/sh
test_description='on-CPU and off-CPU at once, each type the right one'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success ROOT,BPF 'burn and waiter profiled together' '
	mkworkload burn b3102 &&
	mkworkload waiter w3102 &&
	profile_config <<-\EOF &&
	[profile]
	cpu = yes
	offcpu = yes
	sample_rate = 499
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	{ ./w3102 -m split -t 4 >w.out & } &&
	w=$! &&
	./b3102 -c 2 >b.out &&
	wait $w &&
	daemon_stop
'

test_expect_success ROOT,BPF 'cpu: the burn split, the waiter barely there' '
	a=$(folded cpu b3102 | folded_sum ";burn_a(;|\$)") &&
	b=$(folded cpu b3102 | folded_sum ";burn_b(;|\$)") &&
	w=$(folded cpu w3102 | folded_sum "^w3102;") &&
	echo "burn_a $a burn_b $b waiter $w" &&
	test $((a + b)) -ge 500 &&
	within $(percent $a $((a + b))) 75 5 &&
	test "$w" -le $(( (a + b) / 20 ))
'

test_expect_success ROOT,BPF 'offcpu: the waiter waits, the burn does not' '
	s=$(folded offcpu w3102 | folded_sum ";wait_sleep;") &&
	p=$(folded offcpu w3102 | folded_sum ";wait_pipe;") &&
	ws=$(sed -n "s/^blocked wait_sleep //p" w.out) &&
	wp=$(sed -n "s/^blocked wait_pipe //p" w.out) &&
	burn=$(folded offcpu b3102 | folded_sum "^b3102;") &&
	echo "wait_sleep $s wait_pipe $p (measured $ws $wp), burn $burn" &&
	within $(( (s + p) / 1000000 )) $(( (ws + wp) / 1000000 )) $(( (ws + wp) / 10000000 )) &&
	test "$burn" -le 40000000 &&
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" --summary \
	    out/offcpu/w3102/*.pb.gz >summary &&
	grep "^sample_types: offcpu/nanoseconds" summary &&
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" --summary \
	    out/cpu/b3102/*.pb.gz >summary &&
	grep "^sample_types: cpu/nanoseconds" summary
'

test_done
