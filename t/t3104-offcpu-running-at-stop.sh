#!/bin/sh
test_description='off-CPU: a thread that blocked and runs again is not counted at stop'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# A thread keeps its offcpu_start entry while it lives, marked unused
# once it runs again.  The final round counts the waits still going on:
# an unused entry is not one.  The shell blocks reading a FIFO, then
# becomes burn (same pid, same thread), which spins through the stop.
test_expect_success ROOT,BPF 'a wait that ended is not counted again at stop' '
	mkworkload burn b3104 &&
	profile_config <<-\EOF &&
	[profile]
	cpu = no
	offcpu = yes
	EOF
	mkfifo go &&
	daemon_start -c ebpfspy.conf -o out &&
	t0=$(date +%s%N) &&
	{ sh -c "read x <go; exec ./b3104 -t 30" >b.out & } &&
	w=$! &&
	sleep 1 &&
	echo go >go &&
	workload_wait b.out &&
	sleep 1 &&
	daemon_stop &&
	t1=$(date +%s%N) &&
	kill $w && wait $w;
	n=$(folded offcpu b3104 | folded_sum "^b3104;") &&
	echo "blocked $n ns in a run of $((t1 - t0)) ns" &&
	test "$n" -le $((t1 - t0))
'

test_done
