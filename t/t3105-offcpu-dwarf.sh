#!/bin/sh
test_description='off-CPU stacks of code built without frame pointers, walked with .eh_frame tables'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

blocked () {
	sed -n "s/^blocked $1 \([0-9]*\) .*/\1/p" "$2"
}

# The user stacks of the three waits, whole: the workload's functions
# in order from main or the thread's start routine to libc's nanosleep
# or read, which entered the kernel.  The kernel part names the wait.
SLEEP=';clone3;start_thread;sleep_main;sleep_phase;sleep_wait;(__)?nanosleep;(__)?clock_nanosleep[^;]*;entry_SYSCALL_64[^;]*;(.*;)?do_nanosleep;'
FEED=';_start;__libc_start_main[^;]*;__libc_start_call_main;main;feed_phase;feed_wait;sleep_wait;(__)?nanosleep;(__)?clock_nanosleep[^;]*;entry_SYSCALL_64[^;]*;(.*;)?do_nanosleep;'
READ=';clone3;start_thread;read_main;read_phase;read_wait;(__libc_)?read;entry_SYSCALL_64[^;]*;(.*;)?[a-z_]*pipe_read;'

# run_waits SECS MODE [fp]: fplesswait -g -r -m MODE under the daemon
# of ebpfspy.conf; -r (SCHED_FIFO): nothing preempts it between its
# clock reads and its waits, which would make what it measures longer
# than the time it was off the CPU.  It starts its waits when the daemon has its mappings
# and no table is left to build (uw_procs holds the pid, "0 queued"):
# the waits of a process before its tables are loaded are another
# matter (they are walked by frame pointer and counted), here they
# would spoil the count.  With fp, no table is waited for.  Per-thread
# labels go to the pprof files, read back as
# "{...,thread_name=T} stack ns".
run_waits () {
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	{ ./fw3105 -g -r -m "$2" -t "$1" >w.out & } &&
	w=$! &&
	workload_wait w.out &&
	pid=$(sed -n "s/^ready //p" w.out) &&
	n=0 &&
	until test "$3" = fp || {
		test -n "$(python3 "$EBPFSPY_SOURCE_DIR/t/helper/bpf_map_entries.py" \
		    uw_procs key=$pid)" &&
		test "$(daemon_state_value "tables loaded \([0-9]+ queued")" = 0
	}
	do
		n=$((n + 1)) &&
		test $n -lt 100 || {
			echo >&2 "no tables for $pid"
			kill $w
			return 1
		}
		sleep 0.1
	done &&
	kill -USR1 $w &&
	$RUN_WAITS_HOOK &&
	wait $w &&
	daemon_stop &&
	for f in out/offcpu/fw3105/*.pb.gz; do
		python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" \
		    --labels "$f" || return 1
	done >labelled &&
	sed "s/^{[^}]*} //" labelled >waits.folded &&
	test -s waits.folded
}

# thread_waits NAME: the waits of that thread, folded.
thread_waits () {
	sed -n "s/^{[^}]*thread_name=$1[,}] //p" labelled
}

RUN_WAITS_HOOK=true

# waits_whole: every wait of fw-sleep and fw-read has its whole stack.
waits_whole () {
	thread_waits fw-sleep >sleep.folded &&
	thread_waits fw-read >read.folded &&
	sa=$(folded_sum "" <sleep.folded) &&
	sw=$(folded_sum "^fw3105$SLEEP" <sleep.folded) &&
	ra=$(folded_sum "" <read.folded) &&
	rw=$(folded_sum "^fw3105$READ" <read.folded) &&
	echo "fw-sleep: $sw of $sa ns whole; fw-read: $rw of $ra ns whole" &&
	test "$sa" -gt 0 && test "$ra" -gt 0 &&
	test "$sw" = "$sa" && test "$rw" = "$ra"
}

# waits_counted: each function's blocked time within 1% of what the
# workload measured.
waits_counted () {
	for f in sleep_wait:"$SLEEP" read_wait:"$READ" feed_wait:"$FEED"; do
		want=$(blocked ${f%%:*} w.out) &&
		got=$(folded_sum "^fw3105${f#*:}" <waits.folded) &&
		echo "${f%%:*}: measured $want ns, profiled $got ns" &&
		within $((got / 1000)) $((want / 1000)) $((want / 100000)) ||
		return 1
	done
}

# waits_sound: the run just made meets both.  Some runs on this VM come
# out short by 2-12% of one thread's blocked time right after the daemon
# started, every stack whole and nothing counted lost (seen 1 run in 3
# to 1 in 13, old builds alike; cause not found): such a run is made
# again, at most twice, and said; a defect that holds fails all three.
waits_sound () {
	waits_whole && waits_counted
}

test_expect_success ROOT,BPF,PYTHON3 'waits in nanosleep and read, unwind = auto' '
	mkworkload fplesswait fw3105 &&
	profile_config <<-\EOF &&
	[profile]
	cpu = no
	offcpu = yes
	unwind = auto
	unwind_table_bytes = 67108864
	[targets]
	label_thread_name = yes
	EOF
	run_waits 4 split &&
	tries=1 &&
	until waits_sound
	do
		test $tries -lt 3 || break
		tries=$((tries + 1)) &&
		echo "run $tries: the last was short or not whole:" &&
		cat w.out &&
		{ grep -v -E "^fw3105($SLEEP|$READ)" sleep.folded \
		    read.folded || :; } &&
		run_waits 4 split || return 1
	done &&
	cat w.out &&
	grep "unwind:" "$DAEMON_LOG" | tail -1
'

test_expect_success ROOT,BPF,PYTHON3 'every wait of fw-sleep and fw-read has its whole stack' '
	waits_whole
'

# main also sleeps in sleep_wait, called by feed_wait: the same function
# reached by another path, with its own callers.
test_expect_success ROOT,BPF,PYTHON3 'every nanosleep of main is under feed_wait' '
	ma=$(folded_sum "^fw3105;.*;do_nanosleep;" <waits.folded) &&
	sw=$(folded_sum "^fw3105$SLEEP" <waits.folded) &&
	mw=$(folded_sum "^fw3105$FEED" <waits.folded) &&
	echo "nanosleep waits $ma ns: fw-sleep $sw, main $mw" &&
	test "$mw" -gt 0 &&
	test $((sw + mw)) = "$ma"
'

test_expect_success ROOT,BPF,PYTHON3 'blocked time per function within 1% of what the workload measured' '
	waits_counted
'

test_lazy_prereq EU_STACK 'eu-stack --version'

# eu_stack_blocked: once the three threads of the workload are blocked
# (clock_nanosleep twice, read), eu-stack's view of them in eu.out, and
# each thread's name in tids.
eu_stack_blocked () {
	n=0 &&
	until test "$(cut -d" " -f1 /proc/$pid/task/*/syscall | sort |
	    tr "\n" " ")" = "0 230 230 "
	do
		n=$((n + 1)) &&
		test $n -lt 100 || { echo >&2 "not blocked"; return 1; }
		sleep 0.05
	done &&
	for t in /proc/$pid/task/*; do
		echo "${t##*/} $(cat $t/comm)" || return 1
	done >tids &&
	eu-stack -p $pid >eu.out
}

# user_frames: a stack's user part, root first, each name without its
# symbol version and leading underscores (eu-stack and ebpfspyd may
# pick other aliases: clock_nanosleep@GLIBC_2.2.5 for
# clock_nanosleep@@GLIBC_2.17, __clone3 for clone3).
user_frames () {
	tr ";" "\n" | sed "1d; /^entry_SYSCALL_64/,\$d; s/@.*//; s/^_*//" |
	    tr "\n" ";"
}

test_expect_success ROOT,BPF,PYTHON3,EU_STACK 'eu-stack on the blocked threads: the same functions' '
	RUN_WAITS_HOOK=eu_stack_blocked &&
	run_waits 2 hold &&
	RUN_WAITS_HOOK=true &&
	cat eu.out &&
	while read -r tid name; do
		want=$(sed -n "/^TID $tid:/,/^TID/s/^#[0-9]* *0x[0-9a-f]* //p" \
		    eu.out | sed -n "/^[^ ]*\$/p" | tac |
		    sed "s/@.*//; s/^_*//" | tr "\n" ";") &&
		case $want in
		*sleep_wait*|*read_wait*) ;;
		*) echo >&2 "$tid ($name): $want"; return 1 ;;
		esac &&
		thread_waits $name | grep -E ";entry_SYSCALL_64[^;]*;.*(nanosleep|pipe_read);" |
		    sed "s/ [0-9]*\$//" >t.$tid &&
		test -s t.$tid &&
		while read -r stack; do
			got=$(echo "$stack" | user_frames) &&
			echo "$name: eu-stack $want, ebpfspyd $got" &&
			test "$got" = "$want" || return 1
		done <t.$tid || return 1
	done <tids
'

# The same waits with frame pointers only: the walk above is what
# finds the function that waited.
test_expect_success ROOT,BPF,PYTHON3 'unwind = fp loses sleep_wait and read_wait' '
	sed -i "s/^unwind = auto/unwind = fp/" ebpfspy.conf &&
	run_waits 1 split fp &&
	s=$(folded_sum ";sleep_wait;" <waits.folded) &&
	r=$(folded_sum ";read_wait;" <waits.folded) &&
	echo "with frame pointers: sleep_wait $s ns, read_wait $r ns" &&
	test "$s" = 0 && test "$r" = 0
'

test_done
