#!/bin/sh
test_description='short-lived processes are named, and leave nothing behind'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success ROOT,BPF 'start the daemon, note its state' '
	mkworkload burn b4000 &&
	profile_config <<-\EOF &&
	[daemon]
	collect_interval = 1
	[profile]
	sample_rate = 997
	[symbols]
	cache_rounds = 2
	EOF
	sed -i "1,2d" ebpfspy.conf &&
	daemon_start -v -c ebpfspy.conf -o out &&
	daemon_wait_log_count "^round [0-9]+:" 2 &&
	tracked0=$(daemon_state_value "pids: [0-9]+ tracked") &&
	map0=$(daemon_state_value "[0-9]+ in the BPF pid map") &&
	tables0=$(daemon_state_value "unknown; [0-9]+ tables") &&
	echo "$tracked0 $map0 $tables0" >before &&
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
	echo "$named of $all samples named" &&
	test "$all" -ge 1000 &&
	test "$named" -ge $((all * 95 / 100))
'

test_expect_success ROOT,BPF,PYTHON3 'the pid map and the caches are back to their size' '
	read tracked0 map0 tables0 <before &&
	n=$(grep -c "^round [0-9]*:" daemon.log) &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 3)) &&
	tracked=$(daemon_state_value "pids: [0-9]+ tracked") &&
	map=$(daemon_state_value "[0-9]+ in the BPF pid map") &&
	tables=$(daemon_state_value "unknown; [0-9]+ tables") &&
	echo "before: $tracked0 $map0 $tables0 after: $tracked $map $tables" &&
	test "$tracked" -le $((tracked0 + 100)) &&
	test "$map" -le $((map0 + 100)) &&
	grep "^ready " pids >readies &&
	test_line_count = 200 readies &&
	bpftool -j map dump name pid_config >map.json &&
	python3 -c "
import json, sys
def entries(x):
    # One map gives a list of entries; several maps of that name (the
    # daemons of other tests) give a list of maps holding their entries.
    if isinstance(x, list):
        for y in x:
            yield from entries(y)
    elif isinstance(x, dict):
        if \"elements\" in x:
            yield from entries(x[\"elements\"])
        elif \"key\" in x:
            yield x
keys = set()
for e in entries(json.load(open(\"map.json\"))):
    k = e.get(\"formatted\", e)[\"key\"]
    if isinstance(k, list):
        k = int.from_bytes(bytes(int(b, 16) for b in k), \"little\")
    keys.add(int(k))
pids = {int(l.split()[1]) for l in open(\"readies\")}
left = keys & pids
print(len(keys), \"entries,\", len(left), \"of the workload\")
sys.exit(1 if left else 0)
" &&
	daemon_stop
'

test_done
