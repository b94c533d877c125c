#!/bin/sh
test_description='services of processes outside units and containers: a
shell by its script or command, an interpreter by its script, helpers and
memfd programs by their parent, names cleaned, the daemon itself only
with profile_self'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# The process trees run in a cgroup of their own that is no unit.
SLICE=t4110.slice
. "$EBPFSPY_SOURCE_DIR/t/lib-slice.sh"

# services_with ERE: the services whose folded stacks match ERE.
services_with () {
	grep -lE "$1" out/cpu/*/*.folded 2>/dev/null | cut -d/ -f3 | sort -u
}

test_expect_success 'setup' '
	mkworkload burn l4110 &&
	mkworkload burn w4110 &&
	: a burn named like the helper sleep, to give it samples &&
	mkworkload burn sleep &&
	mkworkload burn "c:4110" &&
	cat >job4110.sh <<-\EOF &&
	i=0
	while test $i -lt 300000; do i=$((i + 1)); done
	./sleep -t 1.5 >sleep.out
	./l4110 -t 1.5 >l.out
	EOF
	cat >mock4110.py <<-\EOF &&
	import time
	def mock4110_spin(until):
	    n = 0
	    while time.time() < until:
	        n += 1
	    return n
	mock4110_spin(time.time() + 2)
	EOF
	sed s/mock4110_spin/proxy4110_spin/ mock4110.py >proxy4110.py &&
	cat >harness4110.py <<-\EOF &&
	import subprocess, sys
	procs = [subprocess.Popen(a.split()) for a in sys.argv[1:]]
	sys.exit(max(p.wait() for p in procs))
	EOF
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	EOF
	cat >mf4110.py <<-\EOF
	import os, sys
	fd = os.memfd_create("sealed-91", 0)
	with open(sys.argv[1], "rb") as f:
	    os.write(fd, f.read())
	pid = os.fork()
	if pid == 0:
	    os.execve(fd, ["burn", "-t", "2"], os.environ)
	sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0)
	EOF
'

test_expect_success ROOT,BPF,CGROUP2 'a shell script is its service, sleep goes to it' '
	slice &&
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	in_slice sh job4110.sh &&
	daemon_stop &&
	ls out/cpu &&
	: the shell loop itself &&
	folded cpu job4110 | grep -q "^sh;" &&
	: the helper named sleep, though it ran 1.5 s: other sleeps of the &&
	: machine go to their own parents services, none to sleep &&
	n=$(folded cpu job4110 | folded_sum "^sleep;") &&
	echo "sleep: $n samples under job4110" &&
	test "$n" -ge 300 &&
	test_path_is_missing out/cpu/sleep &&
	: a program the script runs for longer keeps its name &&
	test "$(services_with "^l4110;")" = l4110
'

test_expect_success ROOT,BPF,CGROUP2 'sh -c: named by its first command, reserved words skipped' '
	slice &&
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	in_slice sh -c "A=1 ./w4110 -t 1.5 >w.out; i=0
		while test \$i -lt 300000; do i=\$((i + 1)); done" &&
	in_slice sh -c "i=0
		while test \$i -lt 300000; do i=\$((i + 1)); done; true" &&
	daemon_stop &&
	ls out/cpu &&
	folded cpu w4110 | grep -q "^w4110;" &&
	folded cpu w4110 | grep -q "^sh;" &&
	: the second shell names itself &&
	test_path_is_missing out/cpu/while &&
	test_path_is_missing out/cpu/i=0
'

# The issue: one python3 service held a test harness's workload, mock
# server and proxy.  Here a harness starts two Python scripts.
test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'interpreters are named by their scripts, not python3' '
	slice &&
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	in_slice python3 harness4110.py "python3 mock4110.py" \
	    "python3 -u proxy4110.py" &&
	daemon_stop &&
	ls out/cpu &&
	m=$(folded cpu mock4110 | folded_sum "^python3;") &&
	p=$(folded cpu proxy4110 | folded_sum "^python3;") &&
	echo "mock4110: $m python3 samples, proxy4110: $p" &&
	test "$m" -ge 100 && test "$p" -ge 100 &&
	test "$(services_with "mock4110_spin")" = mock4110 &&
	test "$(services_with "proxy4110_spin")" = proxy4110
'

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'a memfd program goes to its parent, a name loses its colon' '
	slice &&
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	in_slice python3 mf4110.py "$PWD/w4110" &&
	in_slice "./c:4110" -t 1.5 >c.out &&
	daemon_stop &&
	ls out/cpu &&
	: other memfd programs of the machine go to their parents too &&
	n=$(folded cpu mf4110 | folded_sum "^memfd:sealed-91;") &&
	echo "memfd:sealed-91: $n samples under mf4110" &&
	test "$n" -ge 300 &&
	! ls out/cpu | grep memfd &&
	folded cpu c_4110 | grep -q "^c:4110;" &&
	test_path_is_missing "out/cpu/c:4110"
'

# The daemon under test runs as e4110d, a copy, so that its samples are
# told from those of other daemons on the machine (all named ebpfspyd).
test_expect_success ROOT,BPF,CGROUP2 'profile_self: the daemon is service ebpfspyd only when set' '
	slice &&
	rm -rf out bin &&
	mkdir bin &&
	cp "$(command -v ebpfspyd)" e4110d &&
	printf "#!/bin/sh\nexec \"%s/e4110d\" \"\$@\"\n" "$PWD" >bin/ebpfspyd &&
	chmod +x bin/ebpfspyd &&
	for self in yes no; do
		rm -rf out &&
		printf "[daemon]\ncollect_interval = 1\n[profile]\n%s\n%s\n" \
		    "sample_rate = 997" "profile_self = $self" >self.conf &&
		opath=$PATH && PATH=$PWD/bin:$PATH &&
		daemon_start -c self.conf -o out &&
		PATH=$opath &&
		in_slice sh job4110.sh &&
		in_slice sh job4110.sh &&
		daemon_stop &&
		services_with "^e4110d;" >self.$self || return 1
	done &&
	cat self.yes self.no &&
	test "$(cat self.yes)" = ebpfspyd &&
	test_must_be_empty self.no
'

test_expect_success ROOT,BPF,CGROUP2 'profile_self changes on reload' '
	slice &&
	rm -rf out &&
	sed "s/profile_self = no/profile_self = yes/" self.conf >yes.conf &&
	cp self.conf reload.conf &&
	grep -q "profile_self = no" reload.conf &&
	opath=$PATH && PATH=$PWD/bin:$PATH &&
	daemon_start -c reload.conf -o out &&
	PATH=$opath &&
	in_slice sh job4110.sh &&
	services_with "^e4110d;" >before &&
	cp yes.conf reload.conf &&
	daemon_signal HUP &&
	daemon_wait_log "^reloaded " &&
	in_slice sh job4110.sh &&
	in_slice sh job4110.sh &&
	daemon_stop &&
	test_must_be_empty before &&
	test "$(services_with "^e4110d;")" = ebpfspyd
'

test_done
