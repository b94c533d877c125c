#!/bin/sh
test_description='make install, then systemctl start ebpfspyd

The build tree is installed with make install DESTDIR=..., and a
systemd of its own (PID 1 of new pid, mount and cgroup namespaces, the
installed tree laid over / with overlayfs, no unit but the installed
ebpfspyd.service and empty targets) runs the installed unit as it is,
with all its hardening: it starts, holds exactly the capabilities of
its CapabilityBoundingSet, no new privileges and a system call filter,
writes its pidfile in its RuntimeDirectory, profiles into the state
directory of the installed configuration, reloads, and stops with a
final round.  In the pid namespace of this systemd the service'"'"'s /proc
does not show the processes BPF reports, by their host pids: kernel
frames are named, user frames are not (a drop-in binding the host'"'"'s
/proc fails systemd'"'"'s namespace set-up).  Skipped where systemd runs
the host: the namespace is for machines without it.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-caps.sh"

SD=$EBPFSPY_SOURCE_DIR/tools/systemd-ns.sh

test_lazy_prereq SYSTEMD_NS '
	test -x /lib/systemd/systemd &&
	systemctl --version &&
	! test -d /run/systemd/system &&
	unshare --pid --fork --mount --cgroup true &&
	{ test -f /sys/fs/cgroup/cgroup.controllers ||
	    test -d /sys/fs/cgroup/systemd; }
'

sd () {
	sh "$SD" run "$TRASH_DIRECTORY/sd" "$@"
}

test_atexit 'sh "$SD" stop "$TRASH_DIRECTORY/sd"'

test_expect_success ROOT,SYSTEMD_NS 'make install DESTDIR=...' '
	make -C "$EBPFSPY_BUILD_DIR" install DESTDIR="$TRASH_DIRECTORY/dest" \
	    >install.log 2>&1 &&
	unit=$(cd dest && find . -path "*/systemd/system/ebpfspyd.service") &&
	unit=${unit#.} &&
	test -n "$unit" &&
	conf=$(sed -n "s/^ExecStartPre=[^ ]* -n -c //p" "dest$unit") &&
	test_path_is_file "dest$conf" &&
	outdir=$(sed -n "s/^dir = //p" "dest$conf") &&
	test_path_is_dir "dest$outdir" &&
	# The configuration may hold a password; profiles are root'"'"'s.
	stat -c "%a %n" "dest$conf" "dest$outdir" >actual &&
	printf "640 %s\\n750 %s\\n" "dest$conf" "dest$outdir" >expect &&
	test_cmp expect actual
'

test_expect_success ROOT,SYSTEMD_NS 'a systemd of its own runs' '
	mkdir sd &&
	sh "$SD" start "$TRASH_DIRECTORY/sd" "$unit" "$TRASH_DIRECTORY/dest"
'

test_expect_success ROOT,BPF,SYSTEMD_NS 'systemctl start ebpfspyd' '
	{ sd systemctl start ebpfspyd || { cat sd/service.log; false; }; } &&
	sd systemctl is-active ebpfspyd &&
	main=$(sd systemctl show -p MainPID --value ebpfspyd) &&
	test "$main" != 0 &&
	sd cat /run/ebpfspyd/ebpfspyd.pid >pid &&
	echo "$main" >expect &&
	test_cmp expect pid
'

# The service's host pid, from its cgroup, for its /proc/PID/status.
test_expect_success ROOT,BPF,SYSTEMD_NS 'exactly the unit'"'"'s capabilities, no new privileges, a filter' '
	if test -f /sys/fs/cgroup/cgroup.controllers; then
		h=/sys/fs/cgroup
	else
		h=/sys/fs/cgroup/systemd
	fi &&
	host=$(cat "$h/$(cat sd/cgroup)/system.slice/ebpfspyd.service/cgroup.procs") &&
	test -n "$host" &&
	mask=$(caps_mask $(unit_caps "dest$unit")) &&
	printf "CapEff:\\t%s\\nCapBnd:\\t%s\\nNoNewPrivs:\\t1\\nSeccomp:\\t2\\n" \
	    $mask $mask >expect &&
	grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/$host/status >actual &&
	test_cmp expect actual
'

test_expect_success ROOT,BPF,SYSTEMD_NS 'it profiles, reloads, and stops with a final round' '
	mkworkload burn sdburn &&
	./sdburn -m syscall -t 4 >burn.out &&
	sd systemctl reload ebpfspyd &&
	sd systemctl is-active ebpfspyd &&
	test "$(sd systemctl show -p MainPID --value ebpfspyd)" = "$main" &&
	sd systemctl stop ebpfspyd &&
	! sd systemctl is-active ebpfspyd &&
	ls dest$outdir/cpu/sdburn/*.pb.gz &&
	cat dest$outdir/cpu/sdburn/*.folded >folded &&
	all=$(folded_sum "" <folded) &&
	named=$(folded_sum "entry_SYSCALL|do_syscall_64" <folded) &&
	echo "$named of $all samples named" &&
	test "$all" -gt 0 &&
	test "$named" -ge $((all / 2)) &&
	sd test ! -e /run/ebpfspyd &&
	# UMask=0027: nothing it wrote is for other users.
	find dest$outdir -perm /o=rwx >others &&
	test_must_be_empty others
'

# A configuration with errors: the check before the start fails, and
# Restart=on-failure would start it again every RestartSec forever;
# the start limit stops that.  RestartSec is 3 s here (a drop-in), so
# that the 5 starts of the limit take seconds, and still slower than
# systemd's default limit (5 in 10 s), which a unit without its own
# would then never reach.
test_expect_success ROOT,BPF,SYSTEMD_NS 'a config error: systemd gives up after the start limit' '
	sd sh -c "printf \"[daemon]\\ncolect_interval = 1\\n\" >>$conf" &&
	sd sh -c "printf \"[Service]\\nRestartSec=3s\\n\" \
	    >${unit%/*}/ebpfspyd.service.d/fast-restart.conf" &&
	sd systemctl daemon-reload &&
	test_must_fail sd systemctl start ebpfspyd &&
	n=0 &&
	while test "$(sd systemctl show -p ActiveState --value ebpfspyd)" != \
	    failed; do
		n=$((n + 1)) && test $n -lt 60 && sleep 1 || {
			sd systemctl status ebpfspyd
			return 1
		}
	done &&
	starts=$(grep -c "colect_interval: unknown key" sd/service.log) &&
	sleep 4 &&
	sd systemctl show -p ActiveState -p Result -p NRestarts ebpfspyd &&
	echo "$starts starts, then systemd gave up" &&
	test "$(grep -c "colect_interval: unknown key" sd/service.log)" = \
	    "$starts" &&
	test "$starts" -le 5 &&
	sd systemctl is-failed ebpfspyd
'

test_done
