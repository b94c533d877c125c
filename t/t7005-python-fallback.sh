#!/bin/sh
test_description='Python fallbacks: an unsupported interpreter, and [python] enabled

An interpreter of a version without offsets (a fake 3.15) is refused,
the refusal counted, and the process profiled natively; with [python]
enabled = no Python processes are profiled natively too, and a reload
that enables it walks them from then on.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-python.sh"

test_expect_success ROOT,BPF 'a fake Python 3.15 is refused and profiled natively' '
	mkworkload fakepy t7005f &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 999
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./t7005f 2 >f.out &&
	daemon_wait_log "t7005f: Python not walked \\(version\\)" &&
	refused=$(daemon_state_value "refused version [0-9]+") &&
	echo "refused for their version: $refused" &&
	test "$refused" -ge 1 &&
	daemon_stop &&
	folded cpu t7005f >f.folded &&
	s=$(folded_sum "^t7005f;(.*;)?main;fake_work;fake_burn" <f.folded) &&
	echo "$s samples in fake_burn" &&
	test "$s" -ge 100
'

test_expect_success ROOT,BPF,DEB '[python] enabled = no: native; a reload turns it on' '
	rm -rf out &&
	python_link deb t7005 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 999
	[python]
	enabled = no
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	{ ./t7005-deb "$PYWORK" split 8 >w.out & } &&
	w=$! &&
	workload_wait w.out &&
	sleep 2 &&
	sed -i "s/enabled = no/enabled = yes/" ebpfspy.conf &&
	n=$(grep -c "^reloaded" daemon.log || :) &&
	daemon_signal HUP &&
	daemon_wait_log_count "^reloaded" $((n + 1)) &&
	wait $w &&
	daemon_stop &&
	folded cpu t7005-deb >w.folded &&
	native=$(folded_sum "^t7005-deb;[^(]*\$" <w.folded) &&
	py=$(folded_sum "^t7005-deb;<module> \\(pywork\\.py:[0-9]+\\);main" <w.folded) &&
	echo "before the reload: $native native samples; after: $py in Python" &&
	test "$native" -ge 100 &&
	test "$py" -ge 100
'

test_done
