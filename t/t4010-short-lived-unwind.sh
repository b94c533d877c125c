#!/bin/sh
test_description='short-lived processes built without frame pointers

Each of 100 processes of 50 ms runs a file of its own (a fresh copy of
the fpless workload: a new inode, so a new unwind table), built -O2 -g
without frame pointers.  The table of its program is built at its first
sample, so its samples reach main from the first one counted on; a
sample walked before a table was there says so with a [truncated]
frame, and is counted.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success ROOT,BPF '100 fresh programs of 50 ms each' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	unwind = auto
	unwind_table_bytes = 67108864
	[targets]
	short_lived_ms = 0
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	i=0 &&
	while test $i -lt 100; do
		mkworkload fpless f4010 &&
		./f4010 -t 0.05 >>runs &&
		rm f4010 &&
		i=$((i + 1)) || return 1
	done &&
	n=$(daemon_state_value "unwind_truncated [0-9]+") &&
	daemon_stop &&
	echo "$n" >marked &&
	folded cpu f4010 >short.folded
'

test_expect_success ROOT,BPF 'their samples reach main, or say they do not' '
	all=$(folded_sum "^f4010;" <short.folded) &&
	whole=$(folded_sum "$(fpless_whole f4010)" <short.folded) &&
	t=$(folded_sum "^f4010;\\[truncated\\];" <short.folded) &&
	n=$(cat marked) &&
	echo "$whole of $all samples whole, $t marked [truncated]" \
	    "($n marked in all)" &&
	test "$all" -ge 500 &&
	test $((whole * 100)) -ge $((all * 95)) &&
	test $((whole + t)) -ge $((all - all / 100)) &&
	test "$n" -ge "$t"
'

test_done
