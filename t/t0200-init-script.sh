#!/bin/sh

test_description='the LSB init script and the systemd unit

Drives conf/ebpfspyd.init (as built, paths filled in) against the ebpfspyd
of the build tree, with a pidfile and a config in the trash directory:
start, status, reload, restart, stop and their LSB exit codes, once with
start-stop-daemon and once with its fallback.  The daemon it starts holds
exactly the unit'"'"'s capabilities, no new privileges and umask 0027, the
state directory it is given is made 0750 (a 0755 one too), and nobody
reads no profile.  Starting needs ROOT and BPF: the daemon loads its BPF
programs before it reports that it is ready.'

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-caps.sh"

INIT=$EBPFSPY_BUILD_DIR/conf/ebpfspyd.init
UNIT=$EBPFSPY_BUILD_DIR/conf/ebpfspyd.service
EBPFSPYD=$EBPFSPY_BUILD_DIR/ebpfspyd
PIDFILE="$TRASH_DIRECTORY/run dir/ebpfspyd.pid"
CONF="$TRASH_DIRECTORY/ebpfspy.conf"

test_lazy_prereq START_STOP_DAEMON '
	PATH=$PATH:/sbin:/usr/sbin && command -v start-stop-daemon
'
test_lazy_prereq SYSTEMD_ANALYZE 'systemd-analyze --version'
test_lazy_prereq BURN 'test -x "$EBPFSPY_BUILD_DIR/t/helper/burn"'
test_lazy_prereq NOBODY '
	test "$(id -u)" = 0 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true
'

# The daemon runs from /, and DAEMON_ARGS is split at blanks: -o needs an
# absolute path without the blank of "trash directory".  A link to the
# trash directory from a new directory in $TMPDIR is one.
PROFILES=
test_expect_success 'a path to the trash directory without blanks' '
	tmp=$(mktemp -d) &&
	test_atexit "rm -rf \"$tmp\"" &&
	case $tmp in
	*[[:space:]]*) false ;;
	esac &&
	ln -s "$TRASH_DIRECTORY" "$tmp/trash" &&
	PROFILES=$tmp/trash/profiles
'

# init ACTION: run the init script as $mode says: "ssd" passes the
# settings in the environment and uses start-stop-daemon, "fallback"
# passes them in a defaults file and does without.
init () {
	case $mode in
	ssd)
		env DAEMON="$EBPFSPYD" PIDFILE="$PIDFILE" CONFIG="$CONF" \
		    DAEMON_ARGS="-o $PROFILES" STATEDIR="$PROFILES" \
		    SYSLOG_SOCKET="$TRASH_DIRECTORY/no-syslog" \
		    NOSYSLOG_LOGFILE="$TRASH_DIRECTORY/log dir/nosyslog.log" \
		    EBPFSPYD_DEFAULTS=/dev/null sh "$INIT" "$@" ;;
	fallback)
		cat >defaults <<-EOF &&
		DAEMON="$EBPFSPYD"
		PIDFILE="$PIDFILE"
		CONFIG="$CONF"
		DAEMON_ARGS="-o $PROFILES"
		STATEDIR="$PROFILES"
		START_STOP_DAEMON=
		LOGFILE="$TRASH_DIRECTORY/log dir/chosen.log"
		NOSYSLOG_LOGFILE="$TRASH_DIRECTORY/log dir/nosyslog.log"
		EOF
		env -u DAEMON -u PIDFILE -u CONFIG -u DAEMON_ARGS -u STATEDIR \
		    -u LOGFILE -u SYSLOG_SOCKET -u NOSYSLOG_LOGFILE \
		    EBPFSPYD_DEFAULTS="$TRASH_DIRECTORY/defaults" \
		    sh "$INIT" "$@" ;;
	*)
		BUG "mode $mode" ;;
	esac
}

# Whether process $1 runs (a zombie does not: init may be slow to reap).
pid_alive () {
	pid_state_=$(sed -e "s/^.*) \\(.\\).*\$/\\1/" "/proc/$1/stat" \
	    2>/dev/null) &&
	test -n "$pid_state_" && test "$pid_state_" != Z
}

# The pid in the pidfile, which must be a live ebpfspyd; remembered so
# that whatever happens it is killed at the end.
daemon_pid () {
	read -r pid <"$PIDFILE" &&
	echo "$pid" >>"$TRASH_DIRECTORY/pids" &&
	pid_alive "$pid" &&
	test "$(cat "/proc/$pid/comm")" = ebpfspyd &&
	echo "$pid"
}

# Wait until process $1 has taken the SIGHUP sent to it (its signalfd
# read it): bit 0 of the shared pending mask clears.  Fails if the
# process dies, or after 10 s.
wait_hup_taken () {
	n=200
	while test $n -gt 0; do
		pid_alive "$1" || return 1
		pending=$(sed -n "s/^ShdPnd:[[:space:]]*//p" "/proc/$1/status") ||
			return 1
		case $pending in
		*[13579bdfBDF]) ;;
		?*) return 0 ;;
		esac
		sleep 0.05
		n=$((n - 1))
	done
	echo >&2 "pid $1 left SIGHUP pending"
	return 1
}

test_atexit '
	test -f "$TRASH_DIRECTORY/pids" &&
	for pid in $(sort -u "$TRASH_DIRECTORY/pids"); do
		pid_alive "$pid" && kill -KILL "$pid"
	done
	:
'

test_expect_success 'setup' '
	mkdir "run dir" &&
	cat >"$CONF" <<-\EOF
	[daemon]
	collect_interval = 60
	EOF
'

test_expect_success 'the init script has an LSB header, paths filled in' '
	test -x "$INIT" &&
	sed -n "/^### BEGIN INIT INFO\$/,/^### END INIT INFO\$/p" "$INIT" \
	    >header &&
	grep "^# Provides: *ebpfspyd\$" header &&
	grep "^# Required-Start: " header &&
	grep "^# Required-Stop: " header &&
	grep "^# Default-Start: *2 3 4 5\$" header &&
	grep "^# Default-Stop: *0 1 6\$" header &&
	grep "^# Short-Description: " header &&
	! grep -n "@[A-Za-z_]*@" "$INIT" &&
	sh -n "$INIT"
'

mode=fallback

test_expect_success 'an unknown action prints the usage, exit 2' '
	test_expect_code 2 init frobnicate 2>err &&
	grep "^usage: .*{start|stop|restart|try-restart|reload|force-reload|status}" err
'

test_expect_success 'status without a pidfile: not running, exit 3' '
	test_expect_code 3 init status >out &&
	grep "is not running" out
'

test_expect_success 'stop when not running succeeds' '
	init stop
'

test_expect_success 'reload when not running: exit 7' '
	test_expect_code 7 init reload
'

test_expect_success 'status with a stale pidfile: exit 1; stop removes it' '
	sh -c "echo \$\$" >"$PIDFILE" &&
	test_expect_code 1 init status >out &&
	grep "not running, but .*exists" out &&
	init stop &&
	test_path_is_missing "$PIDFILE" &&
	test_expect_code 3 init status
'

test_expect_success 'a pidfile naming another program is stale' '
	echo $$ >"$PIDFILE" &&
	test_expect_code 1 init status &&
	init stop &&
	test_path_is_missing "$PIDFILE" &&
	kill -0 $$
'

test_expect_success 'start with a bad config fails, leaves no pidfile' '
	test_when_finished "cp good.conf \"\$CONF\"" &&
	cp "$CONF" good.conf &&
	echo "no_such_key = 1" >>"$CONF" &&
	test_must_fail init start >out 2>err &&
	test_path_is_missing "$PIDFILE" &&
	test_expect_code 3 init status
'

test_expect_success 'a missing daemon: start exits 5, stop exits 0' '
	test_expect_code 5 env DAEMON=/nonexistent/ebpfspyd \
	    EBPFSPYD_DEFAULTS=/dev/null sh "$INIT" start 2>err &&
	grep "not installed" err &&
	env DAEMON=/nonexistent/ebpfspyd EBPFSPYD_DEFAULTS=/dev/null \
	    sh "$INIT" stop
'

for mode in ssd fallback; do
	prereq=ROOT,BPF
	test $mode = ssd && prereq=$prereq,START_STOP_DAEMON

	test_expect_success $prereq "$mode: start, then status: running" '
		rm -rf profiles &&
		# As an older package left it.
		mkdir -m 0755 profiles &&
		init start &&
		pid=$(daemon_pid) &&
		init status >out.status &&
		grep "is running (pid $pid)" out.status
	'

	test_expect_success $prereq "$mode: the unit's capabilities, umask 0027" '
		mask=$(caps_mask $(unit_caps "$UNIT")) &&
		printf "CapEff:\\t%s\\nCapBnd:\\t%s\\nNoNewPrivs:\\t1\\n" \
		    $mask $mask >expect &&
		grep -E "^(CapEff|CapBnd|NoNewPrivs):" "/proc/$pid/status" \
		    >actual &&
		echo "Umask:	0027" >>expect &&
		grep "^Umask:" "/proc/$pid/status" >>actual &&
		test_cmp expect actual &&
		stat -c %a profiles >actual &&
		echo 750 >expect &&
		test_cmp expect actual
	'

	# ssd: no syslog socket, so the file for a host without one;
	# fallback: LOGFILE, chosen in the defaults file.
	test_expect_success $prereq "$mode: it logs to a file, 0640" '
		if test $mode = ssd; then
			log="log dir/nosyslog.log"
		else
			log="log dir/chosen.log"
		fi &&
		grep "ebpfspyd\[$pid\]: info: ready: " "$log" &&
		stat -c %a "$log" >actual &&
		echo 640 >expect &&
		test_cmp expect actual &&
		rm -rf "log dir"
	'

	test_expect_success $prereq "$mode: start again: still the same daemon" '
		init start &&
		test "$(daemon_pid)" = "$pid"
	'

	test_expect_success $prereq "$mode: reload keeps the daemon" '
		init reload &&
		wait_hup_taken "$pid" &&
		test "$(daemon_pid)" = "$pid" &&
		init status
	'

	test_expect_success $prereq "$mode: reload refuses a bad config" '
		test_when_finished "cp good.conf \"\$CONF\"" &&
		cp "$CONF" good.conf &&
		echo "sample_rate = 0" >>"$CONF" &&
		test_expect_code 1 init reload >out 2>err &&
		grep "sample_rate" err &&
		test "$(daemon_pid)" = "$pid"
	'

	test_expect_success $prereq "$mode: restart refuses a bad config" '
		test_when_finished "cp good.conf \"\$CONF\"" &&
		cp "$CONF" good.conf &&
		echo "[nonsense]" >>"$CONF" &&
		test_must_fail init restart >out 2>err &&
		test "$(daemon_pid)" = "$pid"
	'

	test_expect_success $prereq "$mode: restart starts a new daemon" '
		init restart &&
		new=$(daemon_pid) &&
		test "$new" != "$pid" &&
		! pid_alive "$pid" &&
		pid=$new &&
		init status
	'

	test_expect_success $prereq,BURN "$mode: it profiles into the -o dir" '
		burn -t 1 >burn.out &&
		test "$(daemon_pid)" = "$pid"
	'

	test_expect_success $prereq "$mode: stop: gone, pidfile removed, status 3" '
		init stop &&
		test_path_is_missing "$PIDFILE" &&
		! pid_alive "$pid" &&
		test_expect_code 3 init status
	'

	test_expect_success $prereq,BURN "$mode: the final round wrote the profiles" '
		ls profiles/cpu/burn/*.pb.gz
	'

	test_expect_success $prereq,BURN,NOBODY "$mode: nobody reads them" '
		find profiles -perm /o=rwx >others &&
		test_must_be_empty others &&
		f=$(ls "$TRASH_DIRECTORY"/profiles/cpu/burn/*.pb.gz | head -n 1) &&
		test_must_fail setpriv --reuid=65534 --regid=65534 \
		    --clear-groups cat "$f" >/dev/null
	'
done

mode=ssd
# The daemon also watches its config file: this shows the new file in
# force after a reload, whichever of SIGHUP and inotify came first.
test_expect_success ROOT,BPF,BURN 'after a reload the new config is in force' '
	test_when_finished "init stop" &&
	cat >"$CONF" <<-EOF &&
	[output]
	dir = $TRASH_DIRECTORY/before
	EOF
	env DAEMON="$EBPFSPYD" PIDFILE="$PIDFILE" CONFIG="$CONF" \
	    DAEMON_ARGS= STATEDIR="$TRASH_DIRECTORY/state" \
	    NOSYSLOG_LOGFILE="$TRASH_DIRECTORY/nosyslog.log" \
	    EBPFSPYD_DEFAULTS=/dev/null sh "$INIT" start &&
	pid=$(daemon_pid) &&
	cat >"$CONF" <<-EOF &&
	[output]
	dir = $TRASH_DIRECTORY/after
	EOF
	init reload &&
	wait_hup_taken "$pid" &&
	burn -t 1 >burn.out &&
	init stop &&
	ls after/cpu/burn/*.pb.gz &&
	test_path_is_missing before/cpu/burn
'

# systemd ---------------------------------------------------------------

test_expect_success 'the unit: forking, pidfile, reload, capabilities' '
	test_path_is_file "$UNIT" &&
	! grep -n "@[A-Za-z_]*@" "$UNIT" &&
	grep "^Type=forking\$" "$UNIT" &&
	pidfile=$(sed -n "s/^PIDFile=//p" "$UNIT") &&
	test -n "$pidfile" &&
	grep "^ExecStart=/.*/ebpfspyd -c /[^ ]* -p $pidfile\$" "$UNIT" &&
	grep "^ExecReload=/bin/kill -HUP \$MAINPID\$" "$UNIT" &&
	grep "^StateDirectory=ebpfspy\$" "$UNIT" &&
	# The pidfile is in the directory systemd makes for it, the one
	# the init script uses.
	rundir=$(sed -n "s/^RuntimeDirectory=//p" "$UNIT") &&
	test "$pidfile" = "/run/$rundir/ebpfspyd.pid" &&
	grep "^: \"\${PIDFILE:=$pidfile}\"\$" "$INIT" &&
	# Exactly the capabilities it uses (t0201 shows what each is for).
	sed -n "s/^CapabilityBoundingSet=//p" "$UNIT" | tr " " "\n" |
	    sort >caps &&
	printf "%s\n" CAP_BPF CAP_CHECKPOINT_RESTORE CAP_DAC_READ_SEARCH \
	    CAP_PERFMON CAP_SYSLOG CAP_SYS_PTRACE >expect &&
	test_cmp expect caps &&
	grep "^NoNewPrivileges=yes\$" "$UNIT" &&
	grep "^ProtectSystem=strict\$" "$UNIT" &&
	grep "^ProtectHome=read-only\$" "$UNIT" &&
	grep "^PrivateTmp=yes\$" "$UNIT" &&
	# Nothing that would keep it from other processes, kallsyms or
	# CAP_SYSLOG.
	! grep -E "^(ProtectProc|ProcSubset|ProtectKernelTunables|ProtectKernelLogs|PrivateUsers)=" "$UNIT"
'

# verify wants the programs to exist: point them at the build tree.
test_expect_success SYSTEMD_ANALYZE 'systemd-analyze verify finds nothing' '
	sed -e "s|^\\(Exec[A-Za-z]*=\\)/[^ ]*/ebpfspyd|\\1$EBPFSPYD|" \
	    "$UNIT" >ebpfspyd.service &&
	grep "^ExecStart=$EBPFSPYD " ebpfspyd.service &&
	systemd-analyze verify --man=no "$TRASH_DIRECTORY/ebpfspyd.service" \
	    >out 2>&1 &&
	test_must_be_empty out
'

test_done
