#!/bin/sh
test_description='short-lived processes are named, and leave nothing behind'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# Processes on the machine: those of a test make check runs beside this
# one are profiled and tracked too, and leave when they exit.
nprocs () {
	ls -d /proc/[0-9]* | wc -l
}

test_expect_success ROOT,BPF 'start the daemon, note its state' '
	mkworkload burn b4000 &&
	profile_config <<-\EOF &&
	[daemon]
	collect_interval = 1
	[profile]
	sample_rate = 997
	[symbols]
	cache_rounds = 2
	[targets]
	# each a service, not counted under the test shell
	short_lived_ms = 0
	EOF
	sed -i "1,2d" ebpfspy.conf &&
	daemon_start -v -c ebpfspy.conf -o out &&
	daemon_wait_log_count "^round [0-9]+:" 2 &&
	tracked0=$(daemon_state_value "pids: [0-9]+ tracked") &&
	map0=$(daemon_state_value "[0-9]+ in the BPF pid map") &&
	tables0=$(daemon_state_value "unknown; [0-9]+ tables") &&
	echo "$tracked0 $map0 $tables0 $(nprocs)" >before &&
	cat before
'

test_expect_success ROOT,BPF '200 processes of 50 ms each' '
	i=0 &&
	while test $i -lt 200; do
		./b4000 -t 0.05 >>pids || return 1
		i=$((i + 1))
	done
'

test_expect_success ROOT,BPF 'their samples are named' '
	n=$(grep -c "^round [0-9]*:" daemon.log) &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 2)) &&
	folded cpu b4000 >short.folded &&
	all=$(folded_sum "^b4000;" <short.folded) &&
	named=$(folded_sum "^b4000;(.*;)?main;work;burn_[ab](;|\$)" <short.folded) &&
	: the exec and the dynamic loader are named frames too, but not &&
	: the workload: a slow VM spends more than 5% of a 0.1 s life there &&
	start=$(folded_sum "^b4000;(.*;)?(_dl_start|__x64_sys_execve)(;|\$)" \
	    <short.folded) &&
	cpu=$(sed -n "s/^cpu //p" pids | awk "{ s += \$1 } END { printf \"%.0f\", s }") &&
	want=$((cpu * 997 / 1000000000)) &&
	echo "$named of $all samples named, $start in exec and ld.so;" \
	    "their CPU time makes $want" &&
	test "$all" -ge 200 &&
	test "$all" -ge $((want * 3 / 10)) &&
	test "$start" -le $((all / 5)) &&
	test "$named" -ge $(((all - start) * 95 / 100))
'

test_expect_success ROOT,BPF,PYTHON3 'the pid map and the caches are back to their size' '
	read tracked0 map0 tables0 procs0 <before &&
	n=$(grep -c "^round [0-9]*:" daemon.log) &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 3)) &&
	tracked=$(daemon_state_value "pids: [0-9]+ tracked") &&
	map=$(daemon_state_value "[0-9]+ in the BPF pid map") &&
	tables=$(daemon_state_value "unknown; [0-9]+ tables") &&
	procs=$(nprocs) &&
	more=$((procs > procs0 ? procs - procs0 : 0)) &&
	echo "before: $tracked0 $map0 $tables0 after: $tracked $map $tables;" \
	    "$procs0 then $procs processes on the machine" &&
	test "$tracked" -le $((tracked0 + more + 100)) &&
	test "$map" -le $((map0 + more + 100)) &&
	grep "^ready " pids >readies &&
	test_line_count = 200 readies &&
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/bpf_map_entries.py" pid_config \
	    >entries &&
	cut -d" " -f1 entries | sort -u >keys &&
	sed "s/^ready //" readies | sort -u >workload &&
	comm -12 keys workload >left &&
	echo "$(wc -l <keys) pids in the map, $(wc -l <left) of the workload" &&
	test_must_be_empty left &&
	daemon_stop
'

test_done
