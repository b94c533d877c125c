#!/bin/sh
test_description='profiles are not for every user, whatever the umask

ebpfspyd started by hand with umask 022 makes what it writes as the
systemd unit (UMask=0027, StateDirectoryMode=0750) would: its output
directories 0750, its spool 0700, its profiles and flame graphs 0640,
its lock files 0600.  nobody reads no profile, not even through a
directory opened to everyone.'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"

test_lazy_prereq NOBODY '
	test "$(id -u)" = 0 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true
'

as_nobody () {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

test_expect_success 'setup' '
	# Port 9 (discard) is closed here: every push fails and is spooled.
	cat >ebpfspy.conf <<-\EOF
	[daemon]
	collect_interval = 1
	[pyroscope]
	url = http://127.0.0.1:9
	EOF
'

test_expect_success ROOT,BPF 'umask 022: a round of profiles, a spool' '
	umask 022 &&
	daemon_start -c ebpfspy.conf -o "$TRASH_DIRECTORY/out/profiles" &&
	# Until a round wrote its profile: a loaded machine is slow to.
	{ burn -t 60 >/dev/null & echo $! >burn.pid; } &&
	test_when_finished "kill $(cat burn.pid) 2>/dev/null; :" &&
	n=600 &&
	until ls out/profiles/cpu/burn/*.pb.gz >/dev/null 2>&1; do
		test $n -gt 0 || return 1
		sleep 0.1
		n=$((n - 1))
	done &&
	kill "$(cat burn.pid)" &&
	daemon_stop &&
	ls out/profiles/cpu/burn/*.pb.gz out/profiles/cpu/burn/*.folded \
	    out/profiles/cpu/burn/latest.svg out/profiles/spool/*.req
'

test_expect_success ROOT,BPF 'the directories it made are 0750, the spool 0700' '
	stat -c "%a %n" out out/profiles out/profiles/cpu \
	    out/profiles/cpu/burn out/profiles/spool >actual &&
	cat >expect <<-\EOF &&
	750 out
	750 out/profiles
	750 out/profiles/cpu
	750 out/profiles/cpu/burn
	700 out/profiles/spool
	EOF
	test_cmp expect actual
'

test_expect_success ROOT,BPF 'its files are 0640, its locks and spool 0600' '
	(cd out/profiles &&
	    find . -maxdepth 1 -type f -printf "%m %p\\n" &&
	    find cpu/burn spool -type f -printf "%m %p\\n") |
	    sed -e "s|/[0-9T]*Z\\(-[0-9]*\\)*\\.|/TIME.|" \
	    -e "s|spool/[0-9a-f]*\\.req|spool/SEQ.req|" | sort -u >actual &&
	cat >expect <<-\EOF &&
	600 ./.ebpfspyd.lock
	600 spool/.lock
	600 spool/SEQ.req
	640 cpu/burn/TIME.folded
	640 cpu/burn/TIME.pb.gz
	640 cpu/burn/last-hour.svg
	640 cpu/burn/latest.svg
	EOF
	test_cmp expect actual &&
	# Nor any other service'"'"'s.
	find out -perm /o=rwx >others &&
	test_must_be_empty others
'

test_expect_success ROOT,BPF,NOBODY 'nobody reads no profile' '
	f=$(ls out/profiles/cpu/burn/*.pb.gz | head -n 1) &&
	test_must_fail as_nobody cat "$f" >/dev/null &&
	test_must_fail as_nobody ls out/profiles/cpu &&
	# Not even were the directories open to all.
	chmod 0755 out out/profiles out/profiles/cpu out/profiles/cpu/burn &&
	as_nobody ls out/profiles/cpu/burn >/dev/null &&
	test_must_fail as_nobody cat "$f" >/dev/null &&
	test_must_fail as_nobody cat out/profiles/cpu/burn/latest.svg \
	    >/dev/null
'

test_done
