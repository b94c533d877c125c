#!/bin/sh
test_description='what cannot start says why, on the terminal, exit 1

Each start-up error exits 1 with one line that names the path or the
capability and the reason, in the foreground (-d) and when daemonizing,
where the parent prints what the child reports whatever the system log
does: not root, no BTF (an empty /sys/kernel/btf in a mount namespace
of its own), a kernel without bpf_loop (a test hook: the probe told it
fails), an output,
spool or pidfile directory that cannot be written.  A start with
capabilities missing that only cost names says which, and starts.'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq SETPRIV 'setpriv --version'
test_lazy_prereq UNSHARE 'unshare -m true'
test_lazy_prereq SETARCH 'setarch --uname-2.6 true'

test_expect_success 'setup' '
	cat >ebpfspy.conf <<-EOF
	[daemon]
	collect_interval = 60
	[metrics]
	listen =
	EOF
	mkdir ro
'

# fails_with MESSAGE ARGS...: ebpfspyd ARGS exits 1, printing MESSAGE
# (an ERE) as its last line of stderr and nothing on stdout, both in
# the foreground and daemonizing.
fails_with () {
	msg=$1 &&
	shift &&
	test_expect_code 1 "$@" -d -c "$TRASH_DIRECTORY/ebpfspy.conf" \
	    -t 1 >out 2>err &&
	test_must_be_empty out &&
	tail -n 1 err >last &&
	grep -E "^$msg\$" last &&
	test_expect_code 1 "$@" -c "$TRASH_DIRECTORY/ebpfspy.conf" \
	    -t 1 >out 2>err &&
	test_must_be_empty out &&
	tail -n 1 err >last &&
	grep -E "^ebpfspyd: $msg\$" last &&
	! grep "see the system log" err
}

test_expect_success ROOT,SETPRIV 'not root: needs root, or CAP_BPF and CAP_PERFMON' '
	fails_with "needs root, or CAP_BPF and CAP_PERFMON \\(uid 65534, without CAP_BPF and CAP_PERFMON\\)" \
	    setpriv --reuid=65534 --regid=65534 --clear-groups \
	    ebpfspyd -o "$TRASH_DIRECTORY/profiles"
'

test_expect_success ROOT,SETPRIV 'root without CAP_PERFMON: says which one' '
	fails_with "needs root, or CAP_BPF and CAP_PERFMON \\(uid 0, without CAP_PERFMON\\)" \
	    setpriv --bounding-set=-perfmon,-sys_admin --inh-caps=-all \
	    ebpfspyd -o "$TRASH_DIRECTORY/profiles"
'

test_expect_success ROOT,UNSHARE 'no BTF: names /sys/kernel/btf/vmlinux' '
	cat >nobtf.sh <<-\EOF &&
	mount -t tmpfs none /sys/kernel/btf && exec "$@"
	EOF
	fails_with "no kernel BTF: /sys/kernel/btf/vmlinux: No such file or directory .*CONFIG_DEBUG_INFO_BTF.*" \
	    unshare -m sh nobtf.sh ebpfspyd -o "$TRASH_DIRECTORY/profiles"
'

# A kernel is judged by the features it has, not by its number: a
# distribution kernel older by number carries them back (RHEL 9's 5.14).
test_expect_success ROOT,BPF,SETARCH 'a kernel older by number, with the features: runs' '
	setarch --uname-2.6 ebpfspyd -d -c "$TRASH_DIRECTORY/ebpfspy.conf" \
	    -o "$TRASH_DIRECTORY/profiles" -t 1 >out 2>err &&
	cat err &&
	! grep -i "older than" err
'

test_expect_success ROOT,BPF 'a kernel without bpf_loop: says which feature' '
	EBPFSPY_TEST_FAIL=probe_bpf_loop &&
	export EBPFSPY_TEST_FAIL &&
	test_when_finished "unset EBPFSPY_TEST_FAIL" &&
	test_expect_code 1 ebpfspyd -d -c "$TRASH_DIRECTORY/ebpfspy.conf" \
	    -o "$TRASH_DIRECTORY/profiles" -t 1 >out 2>err &&
	cat err &&
	grep -E "^kernel [^ ]+ has no BPF helper bpf_loop \\(Linux 5\\.17\\): ebpfspyd needs Linux 5\\.17 or later$" err
'

test_expect_success ROOT,UNSHARE 'an output directory that cannot be written' '
	cat >ro.sh <<-EOF &&
	mount -o bind,ro "$TRASH_DIRECTORY/ro" "$TRASH_DIRECTORY/ro" &&
	exec "\$@"
	EOF
	fails_with "output directory $TRASH_DIRECTORY/ro is not writable: Read-only file system" \
	    unshare -m sh ro.sh ebpfspyd -o "$TRASH_DIRECTORY/ro"
'

test_expect_success ROOT 'an output directory that cannot be made' '
	: >file &&
	fails_with "output directory $TRASH_DIRECTORY/file/out cannot be made" \
	    ebpfspyd -o "$TRASH_DIRECTORY/file/out" &&
	grep "mkdir $TRASH_DIRECTORY/file: Not a directory" err
'

test_expect_success ROOT 'a spool directory that cannot be made, with a push' '
	cat >push.conf <<-EOF &&
	[metrics]
	listen =
	[pyroscope]
	url = http://127.0.0.1:9
	spool_dir = $TRASH_DIRECTORY/file/spool
	EOF
	test_expect_code 1 ebpfspyd -c push.conf -o "$TRASH_DIRECTORY/profiles" \
	    -t 1 >out 2>err &&
	tail -n 1 err >last &&
	grep "^ebpfspyd: spool directory $TRASH_DIRECTORY/file/spool cannot be made\$" last
'

test_expect_success 'a pidfile in a missing directory' '
	test_expect_code 1 ebpfspyd -c ebpfspy.conf -p "$TRASH_DIRECTORY/no/such.pid" \
	    -o "$TRASH_DIRECTORY/profiles" -t 1 >out 2>err &&
	echo "ebpfspyd: pidfile $TRASH_DIRECTORY/no/such.pid: No such file or directory" >expect &&
	test_cmp expect err
'

test_expect_success ROOT,BPF,SETPRIV 'missing capabilities that cost names: named, and it starts' '
	setpriv --bounding-set=-all,+bpf,+perfmon --inh-caps=-all \
	    ebpfspyd -c ebpfspy.conf -o "$TRASH_DIRECTORY/profiles" -t 1 >out 2>err &&
	grep "^ebpfspyd: without CAP_SYS_PTRACE: frames of other users" err &&
	grep "^ebpfspyd: without CAP_DAC_READ_SEARCH: " err &&
	grep "^ebpfspyd: without CAP_CHECKPOINT_RESTORE: " err &&
	grep "^ebpfspyd: without CAP_SYSLOG: " err
'

# A directory of its own: the last test'"'"'s daemon may still hold its own.
test_expect_success ROOT,BPF 'root: no warning, no output, exit 0' '
	ebpfspyd -c ebpfspy.conf -o "$TRASH_DIRECTORY/profiles-root" -t 1 \
	    >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err
'

test_done
