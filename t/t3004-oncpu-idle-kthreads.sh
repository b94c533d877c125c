#!/bin/sh
test_description='the idle task and kernel threads are counted only when configured'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# Kernel threads the kernel runs on any machine: kworkers, ksoftirqd,
# rcu, migration.
KTHREADS='^(kworker|ksoftirqd|rcu_|migration|kcompactd|jbd2|kswapd|watchdog)'

test_expect_success ROOT,BPF 'by default: no idle task, no kernel thread' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	dd if=/dev/zero of=data bs=1M count=64 conv=fsync 2>/dev/null &&
	sync &&
	idle=$(daemon_stat idle) &&
	kthread=$(daemon_stat kthread) &&
	daemon_stop &&
	echo "idle $idle kthread $kthread" &&
	test_path_is_missing out/cpu/swapper &&
	ls out/cpu >services &&
	! grep -E "$KTHREADS" services
'

# The idle task runs only when a CPU has nothing else to do: on a busy
# machine that can take a while, so wait for its first profile.
test_expect_success ROOT,BPF 'collect_idle: the idle task is profiled as swapper' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	collect_idle = yes
	EOF
	sed -i "s/^collect_interval = .*/collect_interval = 1/" ebpfspy.conf &&
	daemon_start -c ebpfspy.conf -o out &&
	n=0 &&
	while ! ls out/cpu/swapper/*.folded >/dev/null 2>&1; do
		n=$((n + 1)) && test $n -lt 600 && sleep 0.1 || return 1
	done &&
	daemon_stop &&
	folded cpu swapper >idle.folded &&
	n=$(folded_sum "^swapper;" <idle.folded) &&
	echo "$n idle samples" &&
	test "$n" -gt 0 &&
	grep -E "^swapper;.*(do_idle|cpu_startup_entry|default_idle|pv_native_safe_halt|cpuidle)" idle.folded
'

# Kernel threads run when something hands them work, and how much
# depends on the machine: on a fast disk three writes can be over
# before a sample lands in a kworker.  So give them work (writes with
# fsync, many small files for the journal, dropped caches, the tasks
# moved between CPUs for the migration threads) in one-second rounds
# until a kernel thread has a profile, for at most a minute.
kthreads_stir () {
	dd if=/dev/zero of=data bs=1M count=16 conv=fsync 2>/dev/null &&
	mkdir -p many && (cd many && seq 1 200 | xargs touch) &&
	sync && rm -rf many data &&
	echo 1 >/proc/sys/vm/drop_caches &&
	taskset -pc 0 $$ >/dev/null && taskset -pc 0-$(($(nproc) - 1)) $$ >/dev/null
}

test_expect_success ROOT,BPF 'collect_kthreads: kernel threads get profiles' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	collect_kthreads = yes
	EOF
	sed -i "s/^collect_interval = .*/collect_interval = 1/" ebpfspy.conf &&
	daemon_start -c ebpfspy.conf -o out &&
	n=0 &&
	while ! ls out/cpu 2>/dev/null | grep -qE "$KTHREADS"; do
		n=$((n + 1)) && test $n -le 60 && kthreads_stir && sleep 1 || {
			echo "no kernel thread profile after $n rounds" &&
			daemon_stat kthread
			ls out/cpu
			daemon_stop
			return 1
		}
	done &&
	daemon_stop &&
	ls out/cpu >services &&
	cat services &&
	grep -E "$KTHREADS" services
'

test_done
