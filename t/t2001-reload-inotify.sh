#!/bin/sh
test_description='the daemon reloads when its configuration file changes'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"

conf=$TRASH_DIRECTORY/etc/ebpfspy.conf

# dump_state: SIGUSR1, then the state line with the values in force, in
# the file state.
dump_state () {
	dump_n_=$(grep -c "^state: collect_interval" "$DAEMON_LOG")
	daemon_signal USR1 &&
	daemon_wait_log_count "^state: collect_interval" $((dump_n_ + 1)) &&
	grep "^state: collect_interval" "$DAEMON_LOG" | tail -n 1 >state
}

# count_log 'ERE' N: exactly N lines of the log match.
count_log () {
	grep -E -c -e "$1" "$DAEMON_LOG" >count
	echo "$2" >count.expect
	test_cmp count.expect count
}

# set_rate N: the whole configuration, with sample_rate N.  Nothing is
# sampled (cpu = no): a daemon that samples is woken by the first
# sample of every new process on the machine, make -j2's other tests'
# included, which would count below as wakeups of the watch.
set_rate () {
	printf "[daemon]\ncollect_interval = 60\n"
	printf "[profile]\ncpu = no\nsample_rate = %s\n" "$1"
}

test_expect_success ROOT,BPF 'setup: start with a configuration' '
	mkdir etc &&
	set_rate 97 >"$conf" &&
	daemon_start -v -c "$conf" -o "$TRASH_DIRECTORY/out" &&
	dump_state &&
	grep "collect_interval 60, sample_rate 97," state
'

test_expect_success ROOT,BPF 'writing the file in place reloads it' '
	set_rate 11 >"$conf" &&
	daemon_wait_log_count "^reloaded " 1 &&
	grep "^$conf: changed (written)\$" "$DAEMON_LOG" &&
	dump_state &&
	grep "sample_rate 11," state
'

test_expect_success ROOT,BPF 'a new file renamed over it is reloaded' '
	set_rate 22 >"$conf.tmp" &&
	mv "$conf.tmp" "$conf" &&
	daemon_wait_log_count "^reloaded " 2 &&
	grep "^$conf: changed (renamed into place)\$" "$DAEMON_LOG" &&
	dump_state &&
	grep "sample_rate 22," state
'

test_expect_success ROOT,BPF 'deleted, the daemon waits; re-created, reloads' '
	rm "$conf" &&
	daemon_wait_log "^$conf: removed, waiting for it to come back\$" &&
	dump_state &&
	grep "sample_rate 22," state &&
	set_rate 33 >"$conf" &&
	daemon_wait_log_count "^reloaded " 3 &&
	dump_state &&
	grep "sample_rate 33," state
'

test_expect_success ROOT,BPF 'a bad edit is refused, the old config stays' '
	printf "[profile]\nsample_rate = 0\n" >"$conf" &&
	daemon_wait_log "^reload failed, keeping the previous configuration" &&
	grep "^$conf:2: \[profile\] sample_rate: 0: out of range" \
	    "$DAEMON_LOG" &&
	dump_state &&
	grep "sample_rate 33," state &&
	count_log "^reloaded " 3
'

test_expect_success ROOT,BPF 'other files of the directory are ignored' '
	changed=$(grep -c ": changed (" "$DAEMON_LOG") &&
	set_rate 1 >etc/other.conf &&
	set_rate 2 >"$conf.tmp" &&
	mv "$conf.tmp" etc/another.conf &&
	# Events with the longest names, more than one read of them, and
	# names that begin with the config file name.
	long=$(printf "%0250d" 0) &&
	for i in $(seq 100); do
		: >"etc/$long.$i" || return 1
	done &&
	: >"$conf.orig" &&
	: >"$conf~" &&
	set_rate 44 >"$conf" &&
	daemon_wait_log_count "^reloaded " 4 &&
	# inotify reports in order: other.conf and another.conf came first.
	count_log ": changed \(" $((changed + 1)) &&
	dump_state &&
	grep "sample_rate 44," state
'

test_expect_success ROOT,BPF 'two quick changes make one reload' '
	# printf is a builtin: the two writes are microseconds apart, well
	# within the reload delay.
	set_rate 55 >"$conf"; set_rate 66 >"$conf" &&
	daemon_wait_log_count "^reloaded " 5 &&
	dump_state &&
	grep "sample_rate 66," state &&
	count_log "^reloaded " 5 &&
	grep "reloads 5, reload failures 1" "$DAEMON_LOG"
'

test_expect_success ROOT,BPF 'an edit and a SIGHUP together make one reload' '
	set_rate 77 >"$conf" && daemon_signal HUP &&
	daemon_wait_log_count "^reloaded " 6 &&
	dump_state &&
	grep "sample_rate 77," state &&
	count_log "^reloaded " 6
'

# wakeups: the daemon's voluntary context switches so far.
wakeups () {
	awk '$1 == "voluntary_ctxt_switches:" { print $2 }' \
	    "/proc/$(daemon_pid)/status"
}

test_expect_success ROOT,BPF 'writes to other files there do not wake it' '
	# 50 writes 20 ms apart by one process: a watch that saw them
	# would wake the daemon for each.  A few wakeups are its own
	# (its timers).
	w0=$(wakeups) &&
	python3 -c "
import time
for i in range(50):
    with open(\"etc/busy.log\", \"w\") as f:
        f.write(\"%d\n\" % i)
    time.sleep(0.02)
" &&
	w1=$(wakeups) &&
	echo "woken $((w1 - w0)) times" &&
	test $((w1 - w0)) -lt 20 &&
	count_log "^reloaded " 6
'

test_expect_success ROOT,BPF 'a file created again waits for its writer' '
	rm "$conf" &&
	daemon_wait_log_count "^$conf: removed, waiting" 2 &&
	exec 3>"$conf" &&
	printf "[daemon]\ncollect_interval = 60\n" >&3 &&
	daemon_wait_log "^$conf: created, waiting for its writer\$" &&
	# Past the reload delay: no reload of half a file.
	sleep 1 &&
	count_log "^reloaded " 6 &&
	printf "[profile]\nsample_rate = 88\n" >&3 &&
	exec 3>&- &&
	daemon_wait_log_count "^reloaded " 7 &&
	grep "^$conf: changed (written)\$" "$DAEMON_LOG" &&
	dump_state &&
	grep "sample_rate 88," state
'

test_expect_success ROOT,BPF 'a file created and closed unseen is reloaded' '
	# Stopped, the daemon reads the events after the writer closed:
	# only the lease tells it the writer is done.
	daemon_signal STOP &&
	mv "$conf" "$conf~" &&
	set_rate 99 >"$conf" &&
	daemon_signal CONT &&
	daemon_wait_log_count "^reloaded " 8 &&
	grep "^$conf: changed (created)\$" "$DAEMON_LOG" &&
	dump_state &&
	grep "sample_rate 99," state &&
	# The new inode is watched: a write in place reloads.
	set_rate 98 >"$conf" &&
	daemon_wait_log_count "^reloaded " 9 &&
	dump_state &&
	grep "sample_rate 98," state
'

test_expect_success ROOT,BPF 'the daemon stops cleanly' '
	daemon_stop &&
	grep "^exiting\$" "$DAEMON_LOG"
'

test_done
