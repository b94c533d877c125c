#!/bin/sh
test_description='targets: rules, first match, cgroups, containers, targets_only, reload, labels'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

CG=/sys/fs/cgroup/unified
test -d $CG || CG=/sys/fs/cgroup
CID=3f4e1b2c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f
test_lazy_prereq CGROUP2 '
	test "$(id -u)" = 0 && test -f '$CG'/cgroup.procs &&
	mkdir '$CG'/ebpfspy-probe.slice && rmdir '$CG'/ebpfspy-probe.slice
'

# comment NAME=VALUE FILE: the pprof file carries that label.
has_label () {
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" --summary "$2" |
	grep -qx "comment: $1"
}

test_expect_success ROOT,BPF,PYTHON3 'each rule kind selects its processes, first match wins' '
	mkworkload burn b4100a &&
	mkworkload burn b4100b &&
	mkworkload burn b4100c &&
	mkworkload burn b4100d &&
	{ ./b4100d -t 6 >d.out & } && dpid=$! &&
	workload_wait d.out &&
	profile_config <<-EOF &&
	[target "by-pid"]
	pid = $dpid
	label.service_name = svc-pid
	[target "by-comm-and-exe"]
	comm = b4100[ab]
	exe = $PWD/b4100a
	label.service_name = svc-comm-exe
	label.env = test
	[target "by-comm"]
	comm = b4100*
	label.service_name = svc-comm
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b4100a -t 2 >a.out &&
	./b4100b -t 2 >b.out &&
	./b4100c -t 2 >c.out &&
	wait $dpid &&
	daemon_stop &&
	ls out/cpu >services &&
	cat services &&
	folded cpu svc-comm-exe | grep -q "^b4100a;" &&
	! folded cpu svc-comm-exe | grep -q "^b4100b;" &&
	folded cpu svc-comm | grep -q "^b4100b;" &&
	folded cpu svc-comm | grep -q "^b4100c;" &&
	folded cpu svc-pid | grep -q "^b4100d;" &&
	! folded cpu svc-comm | grep -q "^b4100d;" &&
	has_label env=test out/cpu/svc-comm-exe/*.pb.gz &&
	has_label service_name=svc-comm-exe out/cpu/svc-comm-exe/*.pb.gz &&
	! test -d out/cpu/b4100a
'

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'cgroup rule, a container scope and a systemd unit' '
	rm -rf out &&
	mkdir -p $CG/ebpfspy-test.slice/docker-$CID.scope \
	    $CG/ebpfspy-test.slice/test-unit.service &&
	test_when_finished "rmdir $CG/ebpfspy-test.slice/docker-$CID.scope \
	    $CG/ebpfspy-test.slice/test-unit.service $CG/ebpfspy-test.slice" &&
	mkworkload burn b4100e &&
	mkworkload burn b4100f &&
	mkworkload burn b4100g &&
	profile_config <<-EOF &&
	[target "box"]
	container_id = ${CID%????????????????????????????????????????????????????}
	[target "by-cgroup"]
	cgroup = /ebpfspy-test.slice/test-unit.service
	comm = b4100g
	label.service_name = svc-cgroup
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	sh -c "echo \$\$ >$CG/ebpfspy-test.slice/docker-$CID.scope/cgroup.procs &&
	    exec ./b4100e -t 2" >e.out &&
	sh -c "echo \$\$ >$CG/ebpfspy-test.slice/test-unit.service/cgroup.procs &&
	    exec ./b4100f -t 2" >f.out &&
	sh -c "echo \$\$ >$CG/ebpfspy-test.slice/test-unit.service/cgroup.procs &&
	    exec ./b4100g -t 2" >g.out &&
	daemon_stop &&
	ls out/cpu >services && cat services &&
	folded cpu box | grep -q "^b4100e;" &&
	has_label container_id=$CID out/cpu/box/*.pb.gz &&
	folded cpu test-unit | grep -q "^b4100f;" &&
	has_label service_name=test-unit out/cpu/test-unit/*.pb.gz &&
	folded cpu svc-cgroup | grep -q "^b4100g;"
'

test_expect_success ROOT,BPF,CGROUP2,PYTHON3 'the default target names a container by its id' '
	rm -rf out &&
	mkdir -p $CG/ebpfspy-test.slice/docker-$CID.scope &&
	test_when_finished "rmdir $CG/ebpfspy-test.slice/docker-$CID.scope \
	    $CG/ebpfspy-test.slice" &&
	profile_config </dev/null &&
	daemon_start -c ebpfspy.conf -o out &&
	sh -c "echo \$\$ >$CG/ebpfspy-test.slice/docker-$CID.scope/cgroup.procs &&
	    exec ./b4100e -t 2" >e.out &&
	daemon_stop &&
	short=$(echo $CID | cut -c1-12) &&
	folded cpu $short | grep -q "^b4100e;" &&
	has_label container_id=$CID out/cpu/$short/*.pb.gz
'

test_expect_success ROOT,BPF,PYTHON3 'targets_only: what no target takes is not profiled, in the kernel' '
	rm -rf out &&
	mkworkload burn b4100h &&
	profile_config <<-\EOF &&
	[targets]
	targets_only = yes
	[target "only-a"]
	comm = b4100a
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	{ ./b4100h -t 3 >h.out & } && h=$! &&
	workload_wait h.out &&
	hpid=$(sed -n "s/^ready //p" h.out) &&
	np1=$(daemon_stat not_profiled) &&
	sleep 1 &&
	np2=$(daemon_stat not_profiled) &&
	# The exec event is handled when the loop gets to it: on a busy
	# machine (CI) the entry may come after the second; 10 s at most.
	i=0 &&
	while python3 "$EBPFSPY_SOURCE_DIR/t/helper/bpf_map_entries.py" \
	    pid_config key=$hpid >entries &&
	    ! grep -q "\"type\": 1," entries; do
		i=$((i + 1)) &&
		test $i -lt 50 &&
		sleep 0.2 || break
	done &&
	./b4100a -t 1 >a.out &&
	wait $h &&
	daemon_stop &&
	cat entries &&
	grep -q "\"type\": 1," entries &&
	echo "not_profiled $np1 -> $np2" &&
	test "$np2" -gt "$np1" &&
	test_path_is_missing out/cpu/b4100h &&
	ls out/cpu/only-a
'

test_expect_success ROOT,BPF,PYTHON3 'reload: targets added, changed, removed while workloads run' '
	rm -rf out &&
	mkworkload burn b4100r &&
	profile_config <<-\EOF &&
	[daemon]
	collect_interval = 2
	EOF
	sed -i "1,2d" ebpfspy.conf &&
	daemon_start -v -c ebpfspy.conf -o out &&
	{ ./b4100r -t 9 >r.out & } && r=$! &&
	workload_wait r.out &&
	daemon_wait_log_count "^round [0-9]+:" 1 &&
	cat >ebpfspy.conf <<-\EOF &&
	[daemon]
	collect_interval = 2
	[target "first"]
	comm = b4100r
	label.stage = one
	EOF
	daemon_wait_log_count "^reloaded " 1 &&
	n=$(grep -c "^round [0-9]*:" daemon.log) &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 2)) &&
	cat >ebpfspy.conf <<-\EOF &&
	[daemon]
	collect_interval = 2
	[target "first"]
	comm = b4100r
	label.stage = two
	EOF
	daemon_wait_log_count "^reloaded " 2 &&
	n=$(grep -c "^round [0-9]*:" daemon.log) &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 2)) &&
	cat >ebpfspy.conf <<-\EOF &&
	[daemon]
	collect_interval = 2
	EOF
	daemon_wait_log_count "^reloaded " 3 &&
	wait $r &&
	daemon_stop &&
	ls out/cpu &&
	for f in out/cpu/first/*.pb.gz; do
		python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" --summary $f |
		grep "^comment: stage=" || return 1
	done >stages &&
	grep -q "stage=one" stages && grep -q "stage=two" stages &&
	test -d out/cpu/b4100r &&
	cpu=$(sed -n "s/^cpu //p" r.out) &&
	want=$((cpu * 97 / 1000000000)) &&
	got=$(cat out/cpu/first/*.folded out/cpu/b4100r/*.folded |
	    folded_sum "^b4100r;") &&
	echo "samples: $got of $want" &&
	test "$got" -ge $((want * 85 / 100))
'

test_expect_success ROOT,BPF,PYTHON3 'per-sample labels pid and thread_name' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[targets]
	label_pid = yes
	label_thread_name = yes
	EOF
	mkworkload burn b4100t &&
	daemon_start -c ebpfspy.conf -o out &&
	./b4100t -j 2 -t 2 >t.out &&
	daemon_stop &&
	pid=$(sed -n "s/^ready //p" t.out) &&
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" --labels \
	    out/cpu/b4100t/*.pb.gz >labelled &&
	head -3 labelled &&
	l="{pid=$pid,service_name=b4100t,thread_name=b4100t}" &&
	grep -q "^$l b4100t;" labelled &&
	! grep -v "^$l " labelled
'

test_done
