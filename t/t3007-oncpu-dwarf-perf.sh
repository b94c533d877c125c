#!/bin/sh
test_description='on-CPU stacks side by side with perf record --call-graph dwarf

The workloads of t3005 and t3006 (built as Debian builds: -O2 -g, no
frame pointers) are profiled by ebpfspyd and by perf'"'"'s DWARF mode at
the same time, at the same rate.  For main and each of the workload'"'"'s
own functions, the share of the samples whose stack holds it must be
within 2 points of perf'"'"'s.  The stacks are shallow: perf copies 8 KiB
of stack a sample and loses the callers beyond.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

SHARES="$EBPFSPY_SOURCE_DIR/t/helper/stack_shares.py"

test_lazy_prereq PERF 'perf record -q -o perf.probe true'

# run_both COMM ARGS...: ./COMM ARGS... profiled by ebpfspyd and by
# perf at once, both at 997 Hz; COMM.folded and COMM.perf.  A daemon of
# its own for each workload: the stacks of one round fit in the stack
# map.  7 to 12 s of CPU: with 7000 to 12000 samples each, a share
# near one half differs by 0.7 to 0.85 points (one standard deviation)
# between two independent samplings, by 2 points in 0.3 to 2% of the
# runs; the workloads whose shares lie near one half run longest.
run_both () {
	rm -rf out &&
	profile_unwind_config 997 &&
	daemon_start -c ebpfspy.conf -o out &&
	perf record -q -F 997 --call-graph dwarf -o $1.data -- ./"$@" \
	    >$1.out &&
	daemon_stop &&
	folded cpu $1 >$1.folded &&
	perf script -i $1.data -F comm,ip,sym >$1.perf 2>/dev/null &&
	rm $1.data
}

# compare COMM FUNC...: each FUNC's share of COMM's samples, ours
# and perf's, side by side; no two more than 20 thousandths apart.
compare () {
	comm=$1 &&
	shift &&
	python3 "$SHARES" folded $comm "$@" <$comm.folded >ours &&
	python3 "$SHARES" perf $comm "$@" <$comm.perf >perfs &&
	paste ours perfs | awk -v comm=$comm "
	    \$1 == \"samples\" {
		printf \"%s: %d samples, perf %d\\n\", comm, \$2, \$4 }
	    \$1 != \"samples\" {
		printf \"%s: %-14s ebpfspyd %5.1f%%  perf %5.1f%%\\n\",
		    comm, \$1, \$2 / 10, \$4 / 10 }
	    \$1 == \"samples\" && (\$2 < 3000 || \$4 < 3000) { bad = 1 }
	    \$1 != \"samples\" && (\$2 - \$4 > 20 || \$4 - \$2 > 20) {
		print \"  more than 2 points apart\"; bad = 1 }
	    END { exit bad }"
}

test_expect_success ROOT,BPF,PERF 'qsort and a hash loop: within 2 points of perf' '
	mkworkload fpless f3007 &&
	run_both f3007 -c 11 &&
	compare f3007 main sort_phase compare_keys hash_phase hash_block
'

test_expect_success ROOT,BPF,PERF 'a signal handler: within 2 points of perf' '
	mkworkload uwlibs u3007s &&
	run_both u3007s -m signal -n 2500 &&
	compare u3007s main sig_spin on_tick tick_work
'

# perf names the PLT stubs lw_mix@plt and lw_step@plt, ebpfspyd
# u3007p+0x... and libuwplt.so+0x...: the functions are compared.
test_expect_success ROOT,BPF,PERF 'calls through lazily bound PLTs: within 2 points of perf' '
	mkworkload uwlibs u3007p &&
	run_both u3007p -m plt -n 80000 &&
	compare u3007p main plt_loop lw_mix lw_step
'

# SHA-256 only: perf cannot unwind SHA-512's AVX2 loop, whose CFA is
# read 8 bytes below rsp, outside the stack perf copies (t3006 tests
# ours there).
test_expect_success ROOT,BPF,PERF 'OpenSSL SHA-256: within 2 points of perf' '
	mkworkload uwlibs u3007c &&
	run_both u3007c -m sha256 -n 50000 &&
	compare u3007c main crypto_loop EVP_Digest SHA256_Update
'

test_done
