#!/bin/sh
test_description='files whose CFI claims more than they hold cost the
daemon neither memory, nor rounds, nor descriptors

Four unprivileged processes map sixteen sparse files each: 128 MiB
files of 32 KiB on disk whose .eh_frame and .eh_frame_hdr claim 48 MiB
each, in a hole.  Each build read both whole (zeros), eight such files
took the daemon from 31 MB to 1.41 GB and a round 13 s late, and each
queued build kept its file open.  Now a build reads no more CFI than
its file holds on disk: the daemon'"'"'s peak resident memory stays
under 64 MiB, its rounds come on time, its descriptors few, and the
refusals are counted, on SIGUSR1 and on /metrics.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-nobody.sh"

test_expect_success ROOT,NOBODY,PYTHON3 'sixty-four sparse files of the user' '
	nobody_setup &&
	for p in 1 2 3 4; do
		python3 "$EBPFSPY_SOURCE_DIR/t/helper/sparse_elf.py" \
		    home/uwremap $(seq -f "home/sp$p-%02g.so" 16) || return 1
	done &&
	chown -R nobody home &&
	du -sk home &&
	nobody_conf
'
PORT=$(cat port 2>/dev/null)

now_ms () {
	date +%s%3N
}

# watch SECS: for SECS seconds, the longest wait for a round (in ms,
# to $GAP) and the most descriptors the daemon held (to $FDS).
watch () {
	GAP=0 FDS=0
	end=$(( $(now_ms) + $1 * 1000 ))
	last=$(now_ms)
	n=$(grep -E "^round [0-9]+ done" "$DAEMON_LOG" | wc -l)
	while t=$(now_ms) && test $t -lt $end; do
		m=$(grep -E "^round [0-9]+ done" "$DAEMON_LOG" | wc -l)
		if test $m -gt $n || test $((t - last)) -gt $GAP; then
			test $((t - last)) -gt $GAP && GAP=$((t - last))
			test $m -gt $n && last=$t n=$m
		fi
		f=$(ls /proc/$DPID/fd | wc -l)
		test $f -gt $FDS && FDS=$f
		sleep 0.1
	done
}

test_expect_success ROOT,BPF,NOBODY,CURL,PYTHON3 'four processes map them: memory, rounds and descriptors bounded' '
	daemon_start -c ebpfspy.conf -o out &&
	DPID=$(daemon_pid) &&
	daemon_wait_log "^round [0-9]+ done" &&
	base=$(awk "/^VmHWM:/ { print \$2 }" /proc/$DPID/status) &&
	pids= &&
	for p in 1 2 3 4; do
		(cd home && as_nobody ./uwremap keep 120 sp$p-*.so >../p$p.ready) &
		pids="$pids $!"
	done &&
	test_when_finished "kill $pids 2>/dev/null || :" &&
	for p in 1 2 3 4; do
		workload_wait p$p.ready || return 1
	done &&
	watch 8 &&
	# A loaded machine finds and refuses the sixty-four later than
	# eight seconds (CI once had 48 after 38 s): wait for them, up to
	# 98 s, while their processes live (they spin for 120 s).
	i=0 &&
	while refused=$(daemon_state_value "[0-9]+ refused") &&
	    test "${refused:-0}" -lt 64 && test $i -lt 90; do
		sleep 1; i=$((i + 1))
	done &&
	echo "refused: $refused after $((8 + i)) s" &&
	hwm=$(awk "/^VmHWM:/ { print \$2 }" /proc/$DPID/status) &&
	limit=$(awk "/^Max open files/ { print \$4 }" /proc/$DPID/limits) &&
	echo "peak RSS $base KiB before, $hwm KiB after; longest round" \
	    "wait $GAP ms; at most $FDS of $limit descriptors" &&
	{ kill $pids 2>/dev/null || :; } &&
	{ wait $pids 2>/dev/null || :; } &&
	echo "$hwm $GAP $FDS" >figures &&
	test $hwm -lt 65536 &&
	test $GAP -lt 2000 &&
	test $FDS -lt 128
'

test_expect_success ROOT,BPF,NOBODY,CURL,PYTHON3 'the refusals are counted, on SIGUSR1 and /metrics' '
	test_when_finished "kill -KILL $DPID 2>/dev/null || :" &&
	refused=$(daemon_state_value "[0-9]+ refused") &&
	curl -sS --max-time 5 "http://127.0.0.1:$PORT/metrics" >metrics.out &&
	m=$(awk "\$1 == \"ebpfspy_unwind_refused_total\" { print \$2 }" \
	    metrics.out) &&
	echo "refused: $refused on SIGUSR1, $m on /metrics" &&
	test "$refused" -ge 64 && test "$m" = "$refused" &&
	daemon_stop
'

test_done
