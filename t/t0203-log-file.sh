#!/bin/sh
test_description='the log file, bounded and reopened, and the umask

With -l or [daemon] log_file the daemon logs to a file, 0640, that a
size bounds (the file full becomes FILE.1), opened again at each
reload; whatever umask starts it, what it writes is not for other
users.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success 'a relative log_file is a config error with its line' '
	printf "[daemon]\\nlog_file = ebpfspyd.log\\n" >rel.conf &&
	test_expect_code 1 ebpfspyd -n -c rel.conf 2>err &&
	grep "rel.conf:2: \\[daemon\\] log_file: ebpfspyd.log: expected an absolute path" err
'

test_expect_success 'a log file that cannot be opened stops the start' '
	printf "[daemon]\\n" >plain.conf &&
	mkdir adir &&
	test_expect_code 1 ebpfspyd -c plain.conf -o "$TRASH_DIRECTORY/o" \
	    -l "$TRASH_DIRECTORY/adir" 2>err &&
	grep "log file .*adir: " err
'

# umask 0 in the shell: the daemon sets its own.
test_expect_success ROOT,BPF '-l: the daemon logs to the file, 0640, under its own umask' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 97
	EOF
	sed -i "s/^collect_interval = .*/collect_interval = 1/" ebpfspy.conf &&
	mask=$(umask) &&
	umask 0 &&
	daemon_start -v -v -c ebpfspy.conf -o "$TRASH_DIRECTORY/out" \
	    -l "$TRASH_DIRECTORY/l.log" &&
	umask $mask &&
	grep "ebpfspyd\\[[0-9]*\\]: info: ready: " l.log &&
	# One stamped line for each line of a message, even of libbpf.
	cp l.log snapshot &&
	grep "libbpf: " snapshot >/dev/null &&
	! grep -v "^[0-9T:+-]* ebpfspyd\[[0-9]*\]: [a-z]*: " snapshot &&
	stat -c %a l.log >actual &&
	echo 640 >expect &&
	test_cmp expect actual &&
	n=0 &&
	while ! ls out/cpu/*/*.folded >/dev/null 2>&1; do
		n=$((n + 1)) && test $n -lt 100 && sleep 0.1 || return 1
	done &&
	find out -perm /o=rwx >others &&
	test_must_be_empty others
'

test_expect_success ROOT,BPF 'a reload opens the file again: logrotate moved it' '
	mv l.log l.log.moved &&
	! grep "^reloaded " daemon.log &&
	daemon_signal HUP &&
	daemon_wait_log "^reloaded " &&
	grep "info: reloaded " l.log &&
	! grep "info: reloaded " l.log.moved
'

test_expect_success ROOT,BPF 'log_file_bytes bounds it: the full file becomes .1' '
	daemon_stop &&
	rm -rf out &&
	profile_config <<-EOF &&
	[profile]
	sample_rate = 97
	EOF
	{
		printf "[daemon]\\ncollect_interval = 1\\n" &&
		printf "log_file = %s/c.log\\n" "$TRASH_DIRECTORY" &&
		printf "log_file_bytes = 4096\\n" &&
		grep -v "^\\[daemon\\]\$\\|^collect_interval" ebpfspy.conf
	} >c.conf &&
	mv c.conf ebpfspy.conf &&
	cat ebpfspy.conf &&
	ebpfspyd -n -v -c ebpfspy.conf | grep "^log_file_bytes = 4096" &&
	daemon_start -v -v -c ebpfspy.conf -o "$TRASH_DIRECTORY/out" &&
	i=0 &&
	while ! test -f c.log.1; do
		i=$((i + 1)) && test $i -lt 300 && sleep 0.1 || return 1
	done &&
	sleep 2 &&
	daemon_stop &&
	for f in c.log c.log.1; do
		size=$(stat -c %s $f) &&
		echo "$f: $size bytes" &&
		test $size -gt 0 && test $size -le 4096 || return 1
	done &&
	grep "info: exiting" c.log
'

test_done
