#!/bin/sh
test_description='off-CPU: waiting in the run queue is not blocking'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# 4 busy threads on 2 CPUs spend about half their time runnable but not
# running: preempted, never blocked.
test_expect_success ROOT,BPF '4 busy threads on 2 CPUs show (almost) no off-CPU time' '
	mkworkload burn b3101 &&
	profile_config <<-\EOF &&
	[profile]
	offcpu = yes
	sample_rate = 499
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b3101 -j 4 -c 6 >w.out &&
	daemon_stop &&
	on=$(folded cpu b3101 | folded_sum "^b3101;") &&
	off=$(folded offcpu b3101 | folded_sum "^b3101;") &&
	echo "on-CPU $on samples, off-CPU $off ns" &&
	test "$on" -ge 500 &&
	test "$off" -le 40000000
'

test_done
