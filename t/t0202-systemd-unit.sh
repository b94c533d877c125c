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

CG=ebpfspy-t0202-$$

test_lazy_prereq SYSTEMD_NS '
	test -x /lib/systemd/systemd &&
	systemctl --version &&
	! test -d /run/systemd/system &&
	unshare --pid --fork --mount --cgroup true &&
	{ test -f /sys/fs/cgroup/cgroup.controllers ||
	    test -d /sys/fs/cgroup/systemd; }
'

# The cgroup hierarchies systemd uses: all of cgroup2, or the named
# systemd one and the unified one beside the v1 controllers.
hierarchies () {
	if test -f /sys/fs/cgroup/cgroup.controllers; then
		echo /sys/fs/cgroup
	else
		echo /sys/fs/cgroup/systemd
		test -d /sys/fs/cgroup/unified && echo /sys/fs/cgroup/unified
	fi
}

# sd COMMAND...: run COMMAND in the namespaces of our systemd.
sd () {
	nsenter -t "$(cat "$TRASH_DIRECTORY/sd.pid")" -m -p -C "$@"
}

# Killing the namespace's PID 1, systemd, kills everything in it.
test_atexit '
	if test -f "$TRASH_DIRECTORY/sd.pid"; then
		kill -KILL "$(cat "$TRASH_DIRECTORY/sd.pid")" 2>/dev/null
		sleep 0.5
	fi
	if test -f "$TRASH_DIRECTORY/unshare.pid"; then
		kill -KILL "$(cat "$TRASH_DIRECTORY/unshare.pid")" 2>/dev/null
	fi
	for h in $(hierarchies); do
		test -d "$h/$CG" &&
		find "$h/$CG" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	:
'

test_expect_success ROOT,SYSTEMD_NS 'make install DESTDIR=...' '
	make -C "$EBPFSPY_BUILD_DIR" install DESTDIR="$TRASH_DIRECTORY/dest" \
	    >install.log 2>&1 &&
	unit=$(cd dest && find . -path "*/systemd/system/ebpfspyd.service") &&
	unit=${unit#.} &&
	test -n "$unit" &&
	conf=$(sed -n "s/^ExecStartPre=[^ ]* -n -c //p" "dest$unit") &&
	test_path_is_file "dest$conf" &&
	outdir=$(sed -n "s/^dir = //p" "dest$conf") &&
	test_path_is_dir "dest$outdir"
'

test_expect_success ROOT,SYSTEMD_NS 'a systemd of its own runs' '
	mkdir units work &&
	for t in sysinit basic local-fs network-online network multi-user \
	    shutdown sockets timers paths slices umount final; do
		printf "[Unit]\\nDescription=%s, empty\\n" $t >units/$t.target ||
		return 1
	done &&
	cp "dest$unit" units/ &&
	mkdir units/ebpfspyd.service.d &&
	# What it prints, which the journal would hold.
	printf "[Service]\\nStandardOutput=append:%s\\nStandardError=append:%s\\n" \
	    "$TRASH_DIRECTORY/service.log" "$TRASH_DIRECTORY/service.log" \
	    >units/ebpfspyd.service.d/log.conf &&
	cat >sd.sh <<-EOF &&
	set -e
	mount -t proc proc /proc
	for h in $(hierarchies | tr "\\n" " "); do
		mount --bind "\$h/$CG" "\$h"
	done
	for d in dest/*; do
		top=/\${d#dest/}
		mkdir -p "work/\$top"
		mount -t overlay overlay -o \\
		    "lowerdir=\$top,upperdir=$TRASH_DIRECTORY/\$d,workdir=$TRASH_DIRECTORY/work\$top" \\
		    "\$top"
	done
	mount -t tmpfs tmpfs /run
	for d in /lib/systemd/system /usr/lib/systemd/system \\
	    /usr/local/lib/systemd/system /etc/systemd/system \\
	    /lib/systemd/system-generators; do
		test -d "\$d" && mount -t tmpfs tmpfs "\$d"
	done
	cp -r units/* "${unit%/*}/"
	export container=ebpfspy-test
	exec /lib/systemd/systemd --system --unit=multi-user.target \\
	    --log-target=console </dev/null
	EOF
	for h in $(hierarchies); do
		mkdir "$h/$CG" || return 1
	done &&
	sh -c "for h in $(hierarchies | tr "\\n" " "); do
		echo \$\$ >\$h/$CG/cgroup.procs || exit 1
	done
	exec unshare --pid --fork --kill-child --mount --cgroup \
	    --propagation private sh sd.sh" >sd.log 2>&1 &
	echo $! >unshare.pid &&
	n=0 &&
	while ! pid=$(pgrep -P "$(cat unshare.pid)"); do
		n=$((n + 1)) && test $n -lt 100 && sleep 0.1 || return 1
	done &&
	echo $pid >sd.pid &&
	n=0 &&
	until sd systemctl is-system-running >state 2>&1; do
		grep -q degraded state && break
		n=$((n + 1)) && test $n -lt 100 && sleep 0.1 || {
			cat sd.log state; return 1; }
	done
'

test_expect_success ROOT,BPF,SYSTEMD_NS 'systemctl start ebpfspyd' '
	{ sd systemctl start ebpfspyd || { cat service.log; false; }; } &&
	sd systemctl is-active ebpfspyd &&
	main=$(sd systemctl show -p MainPID --value ebpfspyd) &&
	test "$main" != 0 &&
	sd cat /run/ebpfspyd/ebpfspyd.pid >pid &&
	echo "$main" >expect &&
	test_cmp expect pid
'

# The service's host pid, from its cgroup, for its /proc/PID/status.
test_expect_success ROOT,BPF,SYSTEMD_NS 'exactly the unit'"'"'s capabilities, no new privileges, a filter' '
	h=$(hierarchies | head -n 1) &&
	host=$(cat "$h/$CG/system.slice/ebpfspyd.service/cgroup.procs") &&
	test -n "$host" &&
	mask=0 &&
	for cap in $(sed -n "s/^CapabilityBoundingSet=//p" "dest$unit"); do
		n=$(grep -w "define $cap" /usr/include/linux/capability.h |
		    awk "{ print \$3 }") &&
		test -n "$n" &&
		mask=$((mask | (1 << n))) || return 1
	done &&
	printf "CapEff:\\t%016x\\nCapBnd:\\t%016x\\nNoNewPrivs:\\t1\\nSeccomp:\\t2\\n" \
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
	sd test ! -e /run/ebpfspyd
'

test_done
