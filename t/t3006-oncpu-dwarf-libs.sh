#!/bin/sh
test_description='on-CPU stacks through a signal frame, lazily bound PLT entries and OpenSSL

Workloads built as Debian builds (-O2 -g, no frame pointers, -z lazy):
a SIGPROF handler, calls into a shared library through the PLT of the
program and of the library, and SHA-256 and SHA-512 in libcrypto
(whose SHA-512 realigns the stack: a CFA expression).  At least 97% of
the samples of each must reach main with the workload'"'"'s callers in
order.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# Kernel frames below the innermost user frame: they start at an entry
# point (asm_sysvec_apic_timer_interrupt, entry_SYSCALL_64...).
KTAIL='(;(asm_|entry_)[^;]*(;[^;]*)*)?$'
# The signal trampoline, __restore_rt: libc has no symbol for it.
RESTORER='(__restore_rt|libc\.so\.6\+0x[0-9a-f]+)'

# share SERVICE FOLDED WHOLE-ERE: the share of the samples of FOLDED
# that match ^SERVICE;(.*;)?main WHOLE-ERE, in whole percent.
share () {
	all=$(folded_sum "^$1;" <"$2") &&
	good=$(folded_sum "^$1;(.*;)?main$3" <"$2") &&
	echo "$1: $good of $all samples reach main with their callers" >&2 &&
	test "$all" -ge 500 &&
	percent $good $all
}

test_expect_success ROOT,BPF 'profile the three workloads, unwind = auto' '
	mkworkload uwlibs u3006s &&
	mkworkload uwlibs u3006p &&
	mkworkload uwlibs u3006c &&
	profile_unwind_config &&
	profile_run u3006s -m signal -n 700 &&
	profile_run u3006p -m plt -n 15000 &&
	profile_run u3006c -m crypto -n 12000
'

# The handler runs on the interrupted frame: main, or sig_spin.
test_expect_success ROOT,BPF 'signal: 97% reach main, the handler through the signal frame' '
	p=$(share u3006s u3006s.folded \
	    "(;sig_spin)?(;$RESTORER;on_tick(;tick_work)?)?$KTAIL") &&
	echo "$p%" &&
	test "$p" -ge 97 &&
	t=$(folded_sum ";tick_work(;|\$)" <u3006s.folded) &&
	tw=$(folded_sum "^u3006s;(.*;)?main(;sig_spin)?;$RESTORER;on_tick;tick_work$KTAIL" \
	    <u3006s.folded) &&
	s=$(folded_sum ";sig_spin$KTAIL" <u3006s.folded) &&
	sw=$(folded_sum "^u3006s;(.*;)?main;sig_spin$KTAIL" <u3006s.folded) &&
	echo "tick_work $t (whole $tw), sig_spin on top $s (whole $sw)" &&
	test "$t" -ge 200 && test "$s" -ge 200 &&
	test $((tw * 100)) -ge $((t * 97)) &&
	test $((sw * 100)) -ge $((s * 97))
'

# lw_step is reached through the library's own PLT stub, lw_mix
# through the program's: the stubs have no symbol (NAME+0x...).
test_expect_success ROOT,BPF 'PLT: 97% reach main, through both PLTs' '
	p=$(share u3006p u3006p.folded \
	    ";plt_loop(;u3006p\\+0x[0-9a-f]+|;lw_mix(;lw_step|;libuwplt\\.so\\+0x[0-9a-f]+)?)?$KTAIL") &&
	echo "$p%" &&
	test "$p" -ge 97 &&
	l=$(folded_sum ";lw_step(;|\$)" <u3006p.folded) &&
	lw=$(folded_sum "^u3006p;(.*;)?main;plt_loop;lw_mix;lw_step$KTAIL" \
	    <u3006p.folded) &&
	stub=$(folded_sum "^u3006p;(.*;)?main;plt_loop(;lw_mix;libuwplt\\.so|;u3006p)\\+0x[0-9a-f]+$KTAIL" \
	    <u3006p.folded) &&
	pp=$(perf_plt_permille ./u3006p -m plt -n 15000) &&
	echo "lw_step $l (whole $lw), $stub in the PLT stubs (perf: $pp/1000)" &&
	test "$l" -ge 200 &&
	{ test "$pp" -lt 10 || test "$stub" -ge 10; } &&
	test $((lw * 100)) -ge $((l * 97))
'

# Below EVP_Digest: libcrypto's own functions, most without a
# symbol.
test_expect_success ROOT,BPF 'OpenSSL: 97% reach main through EVP_Digest' '
	p=$(share u3006c u3006c.folded ";crypto_loop;EVP_Digest(;[^;]*)*\$") &&
	echo "$p%" &&
	test "$p" -ge 97 &&
	s5=$(folded_sum "^u3006c;(.*;)?main;crypto_loop;EVP_Digest;(.*;)?SHA512_Update(;|\$)" \
	    <u3006c.folded) &&
	s2=$(folded_sum "^u3006c;(.*;)?main;crypto_loop;EVP_Digest;(.*;)?SHA256_Update(;|\$)" \
	    <u3006c.folded) &&
	echo "SHA512_Update $s5, SHA256_Update $s2" &&
	test "$s5" -ge 100 && test "$s2" -ge 20
'

# Frame pointers alone: what the tables make.
test_expect_success ROOT,BPF 'unwind = fp loses the callers' '
	mv u3006c.folded auto.folded &&
	profile_unwind_config 499 fp &&
	profile_run u3006c -m crypto -n 12000 &&
	p=$(share u3006c u3006c.folded ";crypto_loop;EVP_Digest(;[^;]*)*\$") &&
	echo "$p% with frame pointers" &&
	test "$p" -lt 90
'

test_done
