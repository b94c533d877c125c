#!/bin/sh
test_description='on-CPU stacks of code built without frame pointers, walked with .eh_frame tables'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# The share of samples whose user stack is whole: main, then the
# callers of the workload's own functions in order, with whatever libc
# frames (qsort_r's: qsort jumps to it) and kernel frames lie below the
# workload's innermost function.  GCC may rename hash_block
# (hash_block.constprop.0).
whole_share () {
	all=$(folded_sum "^f3005;" <"$1") &&
	good=$(folded_sum "^f3005;(.*;)?main(;sort_phase(;qsort(_r)?(;.*)?)?|;hash_phase(;hash_block[^;]*(;.*)?)?|;clock_gettime[^;]*(;.*)?)?\$" <"$1") &&
	echo "$good of $all samples reach main with their callers" >&2 &&
	test "$all" -ge 500 &&
	percent $good $all
}

# Room for the tables of everything else the machine runs: what is
# tested here is the walk, not the eviction of tables.
test_expect_success ROOT,BPF 'profile a workload built with -O2 -g, unwind = auto' '
	mkworkload fpless f3005 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	unwind = auto
	unwind_table_bytes = 67108864
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./f3005 -c 3 >w.out &&
	daemon_state_value "unwind: [0-9]+ files, [0-9]+ tables loaded" \
	    >/dev/null &&
	grep "unwind:" "$DAEMON_LOG" | tail -2 &&
	grep -E -o "unwind_row_cache_hits [0-9]+" "$DAEMON_LOG" |
	    tail -1 | sed "s/.* //" >hits &&
	grep -E -o "unwind_frames_table [0-9]+" "$DAEMON_LOG" |
	    tail -1 | sed "s/.* //" >frames &&
	daemon_stop &&
	folded cpu f3005 >auto.folded &&
	test -s auto.folded
'

# The rows of return addresses met again come from the walker's
# per-CPU cache, not a search: most of them, with the stacks above
# still whole.
test_expect_success ROOT,BPF 'most rows come from the row cache' '
	echo "$(cat hits) rows from the cache, $(cat frames) frames by table" &&
	test "$(cat hits)" -gt 0 &&
	test $(($(cat hits) * 2)) -ge "$(cat frames)"
'

test_expect_success ROOT,BPF 'at least 97% of the samples reach main with their callers' '
	p=$(whole_share auto.folded) &&
	echo "$p%" &&
	test "$p" -ge 97
'

test_expect_success ROOT,BPF 'qsort is under sort_phase, compare_keys under qsort' '
	q=$(folded_sum "^f3005;.*;qsort(_r)?(;|\$)" <auto.folded) &&
	qs=$(folded_sum "^f3005;(.*;)?main;sort_phase;qsort(_r)?(;|\$)" \
	    <auto.folded) &&
	c=$(folded_sum ";compare_keys(;|\$)" <auto.folded) &&
	cq=$(folded_sum "^f3005;(.*;)?main;sort_phase;qsort(_r)?;(.*;)?compare_keys(;|\$)" \
	    <auto.folded) &&
	h=$(folded_sum ";hash_block[^;]*(;|\$)" <auto.folded) &&
	hm=$(folded_sum "^f3005;(.*;)?main;hash_phase;hash_block[^;]*(;|\$)" \
	    <auto.folded) &&
	echo "qsort $q (under sort_phase $qs), compare_keys $c (whole $cq)," \
	    "hash_block $h (whole $hm)" &&
	test "$c" -ge 50 && test "$h" -ge 50 &&
	test $((qs * 100)) -ge $((q * 97)) &&
	test $((cq * 100)) -ge $((c * 97)) &&
	test $((hm * 100)) -ge $((h * 97))
'

# A whole walk ends at the outermost frame: the few cut short (a
# sample at an instant the tables cannot tell) say so.
test_expect_success ROOT,BPF 'whole stacks have no [truncated] frame' '
	t=$(folded_sum "^f3005;\\[truncated\\];" <auto.folded) &&
	all=$(folded_sum "^f3005;" <auto.folded) &&
	echo "$t of $all marked [truncated]" &&
	test $((t * 100)) -le $((all * 3))
'

# The same with frame pointers only: the walk above is what makes it.
test_expect_success ROOT,BPF 'unwind = fp loses the callers' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	unwind = fp
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./f3005 -c 2 >w.out &&
	daemon_stop &&
	folded cpu f3005 >fp.folded &&
	p=$(whole_share fp.folded) &&
	echo "$p% with frame pointers" &&
	test "$p" -lt 97
'

# profile_mode MODE [UNWIND]: fpless -m MODE profiled with tables
# (unwind = UNWIND, default auto), its folded stacks on stdout.
profile_mode () {
	rm -rf out &&
	profile_config <<-EOF &&
	[profile]
	sample_rate = 499
	unwind = ${2:-auto}
	unwind_table_bytes = 67108864
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./f3005 -m "$1" -c 3 >w.out &&
	daemon_stop &&
	folded cpu f3005
}

# The signal interrupts spin_phase, or main reading the clock (in the
# vDSO); the restorer (__restore_rt) has no symbol of its own.
test_expect_success ROOT,BPF 'a SIGALRM handler: through the signal frame to main' '
	profile_mode signal >sig.folded &&
	a=$(folded_sum ";alarm_work(;|\$)" <sig.folded) &&
	am=$(folded_sum "^f3005;(.*;)?main(;(spin_phase|clock_s|clock_gettime[^;]*|__vdso_clock_gettime))+;[^;]*;on_alarm;alarm_work(;|\$)" \
	    <sig.folded) &&
	s=$(folded_sum ";spin_phase\$" <sig.folded) &&
	sm=$(folded_sum "^f3005;(.*;)?main;spin_phase\$" <sig.folded) &&
	echo "alarm_work $a (whole $am), spin_phase $s (whole $sm)" &&
	test "$a" -ge 50 &&
	test $((am * 100)) -ge $((a * 95)) &&
	test $((sm * 100)) -ge $((s * 97))
'

# The PLT stub (named f3005+0x...) has a CFA rule of its own.
test_expect_success ROOT,BPF 'calls through the lazily bound PLT' '
	profile_mode plt >plt.folded &&
	all=$(folded_sum "^f3005;" <plt.folded) &&
	whole=$(folded_sum "^f3005;(.*;)?main(;plt_phase(;.*)?|;clock_gettime[^;]*(;.*)?)?\$" \
	    <plt.folded) &&
	stub=$(folded_sum ";plt_phase;f3005\+0x[0-9a-f]+\$" <plt.folded) &&
	pp=$(perf_plt_permille ./f3005 -m plt -c 2) &&
	echo "$whole of $all whole, $stub in the PLT stub (perf: $pp/1000)" &&
	{ test "$pp" -lt 10 || test "$stub" -ge 20; } &&
	test $((whole * 100)) -ge $((all * 97))
'

# With unwind = dwarf a frame without a table ends the stack: samples
# in the vDSO reach main only through the vDSO's own .eh_frame.
test_expect_success ROOT,BPF 'samples in the vDSO reach main through its table' '
	profile_mode vdso dwarf >vdso.folded &&
	all=$(folded_sum "^f3005;" <vdso.folded) &&
	v=$(folded_sum ";__vdso_clock_gettime(;|\$)" <vdso.folded) &&
	vm=$(folded_sum "^f3005;(.*;)?main;vdso_phase;clock_gettime[^;]*;__vdso_clock_gettime(;|\$)" \
	    <vdso.folded) &&
	whole=$(folded_sum "^f3005;(.*;)?main(;vdso_phase(;.*)?|;clock_gettime[^;]*(;.*)?)?\$" \
	    <vdso.folded) &&
	echo "$whole of $all whole; in the vDSO $v, through libc to main $vm" &&
	grep "unwind: .* vdso" "$DAEMON_LOG" | tail -1 &&
	test "$v" -ge 100 &&
	test $((vm * 100)) -ge $((v * 97)) &&
	test $((whole * 100)) -ge $((all * 97))
'

# A walk stopped by unwind_depth keeps its innermost frames and says
# it was cut at its outer end, in every output.
test_expect_success ROOT,BPF 'a stack cut short ends in a [truncated] frame' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	unwind = auto
	unwind_depth = 3
	unwind_table_bytes = 67108864
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./f3005 -c 2 >w.out &&
	n=$(daemon_state_value "unwind_truncated [0-9]+") &&
	daemon_stop &&
	folded cpu f3005 >depth.folded &&
	all=$(folded_sum "^f3005;" <depth.folded) &&
	t=$(folded_sum "^f3005;\\[truncated\\];[^;[]+;[^;]+;[^;]+(;|\$)" \
	    <depth.folded) &&
	m=$(folded_sum ";_start(;|\$)" <depth.folded) &&
	echo "$t of $all cut at 3 frames, $m reach _start; $n marked in all" &&
	test "$all" -ge 300 && test "$m" -eq 0 &&
	test $((t * 100)) -ge $((all * 97)) &&
	test "$n" -ge "$t" &&
	for f in out/cpu/f3005/*.pb.gz
	do
		python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" "$f" ||
		return 1
	done >depth.pprof &&
	grep -q "^f3005;\\[truncated\\];" depth.pprof &&
	grep -q "\\[truncated\\]" out/cpu/f3005/latest.svg
'

test_done
