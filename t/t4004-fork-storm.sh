#!/bin/sh
test_description='a storm of processes loses none of their events

Execs and exits that need no answer do not wake the daemon: it reads
them at the start of a round, or when a quarter of the ring buffer is
unread.  A storm of more of them than the ring buffer holds between two
rounds must wake it in time, so that none is lost, and the processes
are forgotten at the end of a round.  Nothing is sampled here, so no
other event wakes the daemon.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# A 64 KiB ring holds 1365 events of 48 bytes: 3000 processes make
# 6000, more than four times that, in a few seconds.
STORM=3000

# What the test follows, on one line: execs and exits read, ring buffer
# losses, processes tracked.
storm_state () {
	echo "$(daemon_state_value "[0-9]+ execs")" \
	    "$(daemon_state_value "[0-9]+ exits")" \
	    "$(daemon_state_value "ringbuf_lost [0-9]+")" \
	    "$(daemon_state_value "pids: [0-9]+ tracked")"
}

test_expect_success ROOT,BPF 'start the daemon: a small ring, no sampling' '
	profile_config <<-\EOF &&
	[daemon]
	collect_interval = 5
	[profile]
	cpu = no
	offcpu = no
	ringbuf_kb = 64
	EOF
	sed -i "1,2d" ebpfspy.conf &&
	daemon_start -v -c ebpfspy.conf -o out &&
	daemon_wait_log_count "^round [0-9]+:" 1 &&
	storm_state >before &&
	cat before
'

test_expect_success ROOT,BPF "a storm of $STORM processes" '
	i=0 &&
	while test $i -lt $STORM; do
		/bin/true || return 1
		i=$((i + 1))
	done
'

test_expect_success ROOT,BPF 'every exec and exit read, none lost' '
	read execs0 exits0 lost0 tracked0 <before &&
	storm_state >after &&
	read execs exits lost tracked <after &&
	echo "execs $execs0 -> $execs, exits $exits0 -> $exits," \
	    "lost $lost0 -> $lost" &&
	test "$lost" -eq "$lost0" &&
	test "$execs" -ge $((execs0 + STORM)) &&
	test "$exits" -ge $((exits0 + STORM))
'

test_expect_success ROOT,BPF 'the processes are forgotten at the end of a round' '
	read execs0 exits0 lost0 tracked0 <before &&
	n=$(grep -c "^round [0-9]*:" daemon.log) &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 2)) &&
	storm_state >end &&
	read execs exits lost tracked <end &&
	echo "tracked: $tracked0 before, $tracked after" &&
	test "$tracked" -le $((tracked0 + 100)) &&
	daemon_stop
'

test_done
