#!/bin/sh
test_description='Python off-CPU: a thread blocked in time.sleep is in its Python stack

nap() sleeps; the off-CPU profile shows nap with the time the workload
measured, +-10%, on every interpreter.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-python.sh"

test_expect_success ROOT,BPF 'profile nap() off-CPU' '
	profile_config <<-\EOF &&
	[profile]
	cpu = no
	offcpu = yes
	EOF
	daemon_start -v -c ebpfspy.conf -o out &&
	pids= &&
	for n in $PYTHONS; do
		python_link $n t7003 &&
		{ PYWORK_GO=go ./t7003-$n "$PYWORK" nap 3 >$n.out & } &&
		pids="$pids $!" || return 1
	done &&
	: a thread blocked before its process is known has no Python stack &&
	for p in $pids; do
		daemon_wait_log "^pid $p: Python 3\\.[0-9]+ " || return 1
	done &&
	: >go &&
	for p in $pids; do
		wait $p || return 1
	done &&
	daemon_stop
'

nap=$(pywork_line nap)

for n in $PYTHON_ALL; do
	P=$(echo $n | tr a-z A-Z)
	test_expect_success ROOT,BPF,$P "$n: nap() blocked for what it measured, +-10%" '
		folded offcpu t7003-$n >$n.folded &&
		want=$(( $(sed -n "s/^blocked nap //p" $n.out) / 1000000 )) &&
		got=$(( $(folded_sum "^t7003-$n;<module> \\(pywork\\.py:[0-9]+\\);nap \\(pywork\\.py:$nap\\);" <$n.folded) / 1000000 )) &&
		echo "$n: nap measured $want ms, profiled $got ms" &&
		within $got $want $((want / 10))
	'
done

test_done
