#!/bin/sh
test_description='HotSpot JVMs found and refused by the daemon

Busy JVMs (JDK 17, Temurin 25) are found when first sampled and
counted; a process mapping a libjvm.so whose tables are garbage, or
lack a field, is refused for that reason, counted once, and profiled
natively, the daemon alive; with [jvm] enabled = no none is read.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-jvm.sh"

# The last "jvm:" line of the daemon's state, after a SIGUSR1.
jvm_state () {
	daemon_state_value "jvm: " >/dev/null &&
	grep -E -o "jvm: .*" "$DAEMON_LOG" | tail -1
}

fake_start () {
	{ fakejava $1 20 >fake-$1.out & } &&
	eval "fake_$1=\$!" &&
	test_when_finished "kill $! 2>/dev/null; :" &&
	while ! grep -q ready fake-$1.out; do
		kill -0 $! || return 1
		sleep 0.01
	done
}

test_expect_success ROOT,BPF 'fake libjvm.so: refused by reason, counted once' '
	profile_config <<-EOF &&
	[profile]
	sample_rate = 499
	[metrics]
	listen = unix:$TRASH_DIRECTORY/metrics.sock
	[jvm]
	enabled = yes
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	fake_start garbage &&
	fake_start field &&
	daemon_wait_log "pid $fake_garbage: JVM not read \\(tables\\)" &&
	daemon_wait_log "pid $fake_field: JVM not read \\(field: _heaps\\)" &&
	jvm_state >state &&
	cat state &&
	grep -E "refused file 0 tables 1 version 0 field 1 arch 0;" state &&
	test $(grep -c "JVM not read" "$DAEMON_LOG") = 2 &&
	curl -sS --max-time 5 --unix-socket "$TRASH_DIRECTORY/metrics.sock" \
	    http://localhost/metrics >metrics.out &&
	grep "^ebpfspy_jvm_refused_total" metrics.out &&
	grep -x "ebpfspy_jvm_refused_total{reason=\"tables\"} 1" metrics.out &&
	grep -x "ebpfspy_jvm_refused_total{reason=\"field\"} 1" metrics.out &&
	grep -x "ebpfspy_jvm_refused_total{reason=\"version\"} 0" metrics.out &&
	daemon_is_alive_ $(daemon_pid)
'

for n in jdk17 jdk25; do
	P=$(echo $n | tr a-z A-Z)
	test_expect_success ROOT,BPF,$P "$n: a busy JVM is found" '
		jvm_compile $n $n &&
		before=$(jvm_state | sed -E "s/.*; found ([0-9]+),.*/\\1/") &&
		jvm_start $n $n JvmWork 30 &&
		n=0 &&
		while :; do
			after=$(jvm_state | sed -E "s/.*; found ([0-9]+),.*/\\1/") &&
			test "$after" -gt "$before" && break
			n=$((n + 1))
			test $n -lt 100 || return 1
		done &&
		echo "JVMs found: $before, then $after" &&
		! grep "pid $JVM_PID: JVM not read" "$DAEMON_LOG"
	'
done

test_expect_success ROOT,BPF '[jvm] enabled = no: nothing is read' '
	daemon_stop &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	[jvm]
	enabled = no
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	fake_start garbage &&
	daemon_wait_log "^ready: " &&
	jvm_state >state2 &&
	jvm_state >state2 &&
	grep -E "jvm: disabled, 0 processes; found 0, walked 0; refused file 0 tables 0" \
	    state2 &&
	daemon_stop
'

test_done
