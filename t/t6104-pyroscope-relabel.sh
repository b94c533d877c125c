#!/bin/sh
test_description='relabeling: the series pushed to Pyroscope keep, drop and rename labels

A workload runs in a container scope of its own (a docker-ID.scope
cgroup), so that its samples carry container_id; the daemon pushes to
the mock server.  Without relabeling the series has container_id; with
[targets] drop_labels = container_id it has not, and a restart of the
container would not make a new series; a target renames a label of
its own and keeps only what it names; a reload changes the rules.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-pyroscope.sh"

SLICE=ebpfspy-t6104.slice
. "$EBPFSPY_SOURCE_DIR/t/lib-slice.sh"
CID=5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f3f4e1b2c9a8d7e6f
SCOPE=$CG/$SLICE/docker-$CID.scope

test_atexit 'rmdir "$SCOPE" "${SCOPE%/*}" 2>/dev/null; :'

# write_conf: a round a second pushed to the mock; stdin appended.
write_conf () {
	{
		printf '[daemon]\ncollect_interval = 1\n'
		printf '[output]\nfolded = no\nsvg = no\n'
		printf '[pyroscope]\nurl = %s\n' "$MOCK_URL"
		printf 'spool_dir = %s/spool\n' "$TRASH_DIRECTORY"
		cat
	} >ebpfspy.conf
}

# run NAME: burn for 2 s in the container scope, while the daemon runs;
# wait until a series of service NAME arrived.
run () {
	sh -c "echo \$\$ >$SCOPE/cgroup.procs && exec ./b6104 -t 2" \
	    >burn.out &&
	wait_until "mock_series | awk -F \"\\t\" \"\\\$4 == \\\"$1\\\"\" |
	    grep -q ."
}

# labels NAME: the other labels of the last series of service NAME.
labels () {
	mock_series | awk -F "\t" -v s="$1" '$4 == s { l = $8 } END { print l }'
}

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'setup: a container scope, the mock' '
	mkdir -p "$SCOPE" &&
	mkworkload burn b6104 &&
	mock_start
'

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'without relabeling: container_id is a label' '
	write_conf <<-EOF &&
	[target "box"]
	comm = b6104
	label.team = core
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	run box &&
	labels box >l &&
	cat l &&
	grep "container_id=$CID" l &&
	grep "team=core" l
'

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'a reload: drop_labels = container_id drops it from the series' '
	write_conf <<-EOF &&
	[targets]
	drop_labels = container_id
	[target "box2"]
	comm = b6104
	label.team = core
	EOF
	daemon_signal HUP &&
	daemon_wait_log "^reloaded " &&
	run box2 &&
	labels box2 >l &&
	cat l &&
	! grep "container_id" l &&
	grep "team=core" l
'

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'a target renames a label and keeps only what it names' '
	write_conf <<-EOF &&
	[targets]
	rename_labels = group=squad
	[target "box3"]
	comm = b6104
	label.team = core
	label.env = test
	rename_labels = team=group
	keep_labels = group
	EOF
	daemon_signal HUP &&
	daemon_wait_log_count "^reloaded " 2 &&
	run box3 &&
	labels box3 >l &&
	cat l &&
	! grep "container_id" l &&
	! grep "env=" l &&
	! grep "team=" l &&
	grep "squad=core" l &&
	daemon_stop &&
	mock_stop
'

test_done
