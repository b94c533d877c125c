#!/bin/sh
test_description='services of processes no target, unit or container names:
a short command goes to its parent'"'"'s service, a longer one keeps its
name, none is named after a pid'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# The workloads run in a cgroup of their own that is no unit.
SLICE=t4101.slice
. "$EBPFSPY_SOURCE_DIR/t/lib-slice.sh"

# short_commands N FILE: a script that runs N burns of 50 ms, s4101,
# one after the other, their output in FILE.
short_commands () {
	printf 'i=0\nwhile test $i -lt %s; do\n' "$1"
	printf '\t./s4101 -t 0.05 >>%s || exit 1\n\ti=$((i + 1))\ndone\n' "$2"
}

# pid_named: the services of out/cpu named like a pid: 1234 or [1234].
pid_named () {
	ls out/cpu | grep -E '^\[?[0-9]+\]?$'
}

test_expect_success 'a bad unknown_service is a configuration error' '
	printf "[targets]\nunknown_service = a/b\n" >bad.conf &&
	test_expect_code 1 ebpfspyd -n -c bad.conf 2>err &&
	grep "bad.conf:2: \[targets\] unknown_service: a/b: a service name holds no" err &&
	printf "[targets]\nunknown_service =\n" >bad.conf &&
	test_expect_code 1 ebpfspyd -n -c bad.conf 2>err &&
	grep "unknown_service: .*empty service name" err &&
	printf "[targets]\nshort_lived_ms = -1\n" >bad.conf &&
	test_expect_code 1 ebpfspyd -n -c bad.conf 2>err &&
	grep "short_lived_ms: -1: out of range" err &&
	printf "[targets]\nunknown_service = other\nshort_lived_ms = 0\n" \
	    >good.conf &&
	ebpfspyd -n -v -c good.conf >dump &&
	grep "^unknown_service = other[[:space:]]" dump &&
	grep "^short_lived_ms = 0[[:space:]]" dump
'

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'short commands go to their parent, a longer one keeps its name' '
	slice &&
	mkworkload sh p4101 &&
	mkworkload burn s4101 &&
	mkworkload burn l4101 &&
	: at 997 Hz the first sample of each, dropped, matters less &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	in_slice ./p4101 -c "$(short_commands 40 s.out)
		./l4101 -t 2 >l.out" &&
	daemon_stop &&
	ls out/cpu >services &&
	grep "^ready " s.out >readies &&
	test_line_count = 40 readies &&
	all=$(cat out/cpu/*/*.folded | folded_sum "^s4101;") &&
	short=$(folded cpu p4101 | folded_sum "^s4101;") &&
	cpu=$(sed -n "s/^cpu //p" s.out |
	    awk "{ s += \$1 } END { printf \"%.0f\", s }") &&
	want=$((cpu * 997 / 1000000000)) &&
	echo "s4101: $short samples under p4101 of $all;" \
	    "their CPU time makes $want" &&
	: on a busy machine a process may exit before its first samples &&
	: are let through: the count is no proportion, where they go is &&
	test "$all" -ge 20 &&
	test "$short" = "$all" &&
	test_path_is_missing out/cpu/s4101 &&
	folded cpu l4101 | grep -q "^l4101;" &&
	! folded cpu p4101 | grep -q "^l4101;" &&
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" --summary \
	    out/cpu/p4101/*.pb.gz | grep -qx "comment: service_name=p4101" &&
	test_must_fail pid_named
'

test_expect_success ROOT,BPF,CGROUP2 'subshells that exit at once: no service named after a pid' '
	rm -rf out &&
	slice &&
	profile_config </dev/null &&
	daemon_start -c ebpfspy.conf -o out &&
	in_slice ./p4101 -c "
		i=0
		while test \$i -lt 30; do
			( j=0; while test \$j -lt 100000; do j=\$((j + 1)); done ) &
			i=\$((i + 1))
		done
		wait
		: a parent of 1 s or more is no short command itself
		sleep 1
	" &&
	daemon_stop &&
	ls out/cpu &&
	test_must_fail pid_named &&
	grep -l "^p4101;" out/cpu/*/*.folded | cut -d/ -f3 | sort -u >where &&
	cat where &&
	n=$(cat out/cpu/*/*.folded | folded_sum "^p4101;") &&
	echo "subshell samples: $n" &&
	test "$n" -gt 0 &&
	: the service of their parent, or unknown_service for those gone &&
	: before the daemon looked at them, nothing else &&
	test_must_fail grep -v -x -e p4101 -e unknown where
'

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'short_lived_ms = 0: every command is its own service' '
	rm -rf out &&
	slice &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	[targets]
	short_lived_ms = 0
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	in_slice ./p4101 -c "$(short_commands 20 s0.out)" &&
	daemon_stop &&
	folded cpu s4101 | grep -q "^s4101;" &&
	! folded cpu p4101 | grep -q "^s4101;"
'

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'a login session scope names no service' '
	rm -rf out &&
	mkdir -p $CG/t4101.slice/session-4101.scope &&
	test_when_finished "rmdir $CG/t4101.slice/session-4101.scope \
	    $CG/t4101.slice" &&
	profile_config </dev/null &&
	daemon_start -c ebpfspy.conf -o out &&
	sh -c "echo \$\$ >$CG/t4101.slice/session-4101.scope/cgroup.procs &&
	    exec ./l4101 -t 2" >l.out &&
	daemon_stop &&
	folded cpu l4101 | grep -q "^l4101;" &&
	test_path_is_missing out/cpu/session-4101
'

test_done
