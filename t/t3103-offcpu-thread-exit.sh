#!/bin/sh
test_description='off-CPU: the timestamp map does not keep exited threads'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success ROOT,BPF,PYTHON3 '1000 short-lived threads leave no entry behind' '
	mkworkload waiter w3103 &&
	profile_config <<-\EOF &&
	[profile]
	cpu = no
	offcpu = yes
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./w3103 -m spawn >w.out &&
	pid=$(sed -n "s/^ready //p" w.out) &&
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/bpf_map_entries.py" offcpu_start \
	    value.pid=$pid >left &&
	daemon_stop &&
	test_must_be_empty left &&
	n=$(folded offcpu w3103 | folded_sum ";short_thread;") &&
	echo "short_thread blocked $n ns" &&
	test "$n" -ge 500000000
'

test_done
