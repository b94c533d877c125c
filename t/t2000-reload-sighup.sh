#!/bin/sh
test_description='SIGHUP reloads the configuration, or keeps the old one'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"

# The daemon reads etc/ebpfspy.conf, a symlink to real/ebpfspy.conf: the
# inotify watch is on etc/, so the edits below, made in real/, reach the
# daemon only through SIGHUP.
conf=$TRASH_DIRECTORY/real/ebpfspy.conf
link=$TRASH_DIRECTORY/etc/ebpfspy.conf

# dump_state: SIGUSR1, then the state line with the values in force, in
# the file state.
dump_state () {
	dump_n_=$(grep -c "^state: collect_interval" "$DAEMON_LOG")
	daemon_signal USR1 &&
	daemon_wait_log_count "^state: collect_interval" $((dump_n_ + 1)) &&
	grep "^state: collect_interval" "$DAEMON_LOG" | tail -n 1 >state
}

# write_conf INTERVAL RATE: the whole configuration, in real/.
write_conf () {
	printf "[daemon]\ncollect_interval = %s\n" "$1" >"$conf" &&
	printf "[profile]\nsample_rate = %s\n" "$2" >>"$conf"
}

# reload N: SIGHUP, and wait for the Nth `reloaded' or `reload failed'.
reload () {
	daemon_signal HUP &&
	daemon_wait_log_count "^(reloaded |reload failed)" "$1"
}

test_expect_success ROOT,BPF 'setup: start with a configuration' '
	mkdir real etc &&
	ln -s ../real/ebpfspy.conf "$link" &&
	write_conf 60 97 &&
	daemon_start -v -c "$link" -o "$TRASH_DIRECTORY/out" &&
	dump_state &&
	grep "collect_interval 60, sample_rate 97," state
'

test_expect_success ROOT,BPF 'SIGHUP reloads a good change' '
	write_conf 30 49 &&
	reload 1 &&
	grep "^reloaded $link\$" "$DAEMON_LOG" &&
	dump_state &&
	grep "collect_interval 30, sample_rate 49," state &&
	grep "reloads 1, reload failures 0" "$DAEMON_LOG"
'

test_expect_success ROOT,BPF 'a bad change is refused, the old config stays' '
	write_conf 5 fast &&
	reload 2 &&
	grep "^$link:4: \[profile\] sample_rate: fast: not a number\$" \
	    "$DAEMON_LOG" &&
	grep "^reload failed, keeping the previous configuration\$" \
	    "$DAEMON_LOG" &&
	dump_state &&
	grep "collect_interval 30, sample_rate 49," state &&
	grep "reloads 1, reload failures 1" "$DAEMON_LOG"
'

test_expect_success ROOT,BPF 'a missing file is refused, the old config stays' '
	rm "$conf" &&
	reload 3 &&
	grep "^$link: No such file or directory\$" "$DAEMON_LOG" &&
	dump_state &&
	grep "collect_interval 30, sample_rate 49," state &&
	grep "reloads 1, reload failures 2" "$DAEMON_LOG"
'

test_expect_success ROOT,BPF 'a restart-only change is warned and not applied' '
	printf "[profile]\nsample_rate = 33\npid_map_entries = 2048\n" \
	    >"$conf" &&
	reload 4 &&
	grep "^$link: \[profile\] pid_map_entries: changed to 2048, takes" \
	    "$DAEMON_LOG" &&
	grep -c "^reloaded " "$DAEMON_LOG" >count &&
	echo 2 >expect &&
	test_cmp expect count &&
	dump_state &&
	# The live keys are applied; collect_interval is back to its default.
	grep "collect_interval 15, sample_rate 33," state
'

test_expect_success ROOT,BPF '-o still overrides the output dir after reloads' '
	printf "[output]\ndir = /nonexistent/elsewhere\n" >"$conf" &&
	reload 5 &&
	dump_state &&
	grep "output $TRASH_DIRECTORY/out\$" state
'

test_expect_success ROOT,BPF 'an emptied file is refused, the old config stays' '
	write_conf 40 51 &&
	reload 6 &&
	: >"$conf" &&
	daemon_signal HUP &&
	daemon_wait_log "^$link: no section and no key, keeping the previous" &&
	dump_state &&
	grep "collect_interval 40, sample_rate 51," state &&
	grep "reloads 4, reload failures 3" "$DAEMON_LOG"
'

test_expect_success ROOT,BPF 'a section header alone asks for the defaults' '
	printf "# defaults on purpose\n[daemon]\n" >"$conf" &&
	reload 7 &&
	dump_state &&
	grep "collect_interval 15, sample_rate 97," state
'

test_expect_success ROOT,BPF 'a steady stream of SIGHUPs still reloads, within 2 s' '
	write_conf 45 53 &&
	pid=$(daemon_pid) &&
	(
		i=0
		while test $i -lt 60
		do
			kill -s HUP $pid || exit 1
			sleep 0.1
			i=$((i + 1))
		done
	) &
	hups=$! &&
	daemon_wait_log_count "^(reloaded |reload failed)" 8 &&
	# The stream (6 s) still runs: the reload did not wait for its end.
	kill -0 $hups &&
	wait $hups &&
	dump_state &&
	grep "collect_interval 45, sample_rate 53," state
'

test_expect_success ROOT,BPF 'the daemon still runs and stops cleanly' '
	daemon_stop &&
	grep "^exiting\$" "$DAEMON_LOG"
'

test_done
