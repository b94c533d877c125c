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
	: whole too: main calling printf, a fault in sort_phase, and the &&
	: dynamic loader from its entry, where a slow VM spends over 5% &&
	main=$(folded_sum "^f4010;_start;__libc_start_main[^;]*;__libc_start_call_main;main(;|\$)" \
	    <short.folded) &&
	start=$(folded_sum "^f4010;ld-linux[^;]*;_dl_start(;|\$)" <short.folded) &&
	n=$(cat marked) &&
	echo "$whole of $all samples whole in main'"'"'s phases, $main reach" \
	    "main, $start in ld.so, $t marked [truncated] ($n marked in all)" &&
	test "$all" -ge 500 &&
	test $((whole * 100)) -ge $(((all - start) * 90)) &&
	test $(((main + start) * 100)) -ge $((all * 95)) &&
	test $((main + start + t)) -ge $((all - all / 100)) &&
	test "$n" -ge "$t"
'

test_done
