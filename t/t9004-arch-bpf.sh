#!/bin/sh
test_description='bpf/arch.h compiles for both BPF targets

The BPF programs take every register, the thread pointer and the
signal frame from bpf/arch.h.  There is no arm64 vmlinux.h to build
them for arm64 (doc/arm64.md), so t/helper/arch_regs.bpf.c compiles
the header, and the table walker with it, against
t/helper/arch-vmlinux/vmlinux.h, the few kernel types they read laid
out as each kernel has them; x86 also against the real
bpf/vmlinux/x86/vmlinux.h, which must give the stub'"'"'s offsets.  Each
register macro is a function of its own whose load offset is read in
the disassembly.'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq OBJDUMP 'llvm-objdump --version'

src=$EBPFSPY_SOURCE_DIR

bpf_compile () {
	clang -g -O2 -target bpf -D__TARGET_ARCH_$1 -I"$src/bpf" -I"$2" \
	    -Wall -Wno-unused-function -Werror \
	    -c "$src/t/helper/arch_regs.bpf.c" -o "$3"
}

# "name offset" for each arch_* function's first load from r1.
offsets () {
	llvm-objdump -d --no-show-raw-insn "$1" | awk '
	/^[0-9a-f]+ <arch_[a-z]+>:$/ {
		f = $2; gsub(/[<>:]/, "", f); done = 0; next
	}
	f ~ /^arch_(ip|sp|fp|lr|user)$/ && !done && /\(r1 \+ [0-9]+\)/ {
		s = $0; sub(/.*\(r1 \+ /, "", s); sub(/\).*/, "", s)
		print f, s; done = 1
	}'
}

cat >x86.expect <<\END
arch_ip 128
arch_sp 152
arch_fp 32
arch_user 136
END

cat >arm64.expect <<\END
arch_ip 256
arch_sp 248
arch_fp 232
arch_lr 240
arch_user 264
END

test_expect_success CLANG,OBJDUMP 'x86 against the real vmlinux.h: ip, sp, bp, cs' '
	bpf_compile x86 "$src/bpf/vmlinux/x86" real.o &&
	offsets real.o >real.out &&
	test_cmp x86.expect real.out
'

test_expect_success CLANG,OBJDUMP 'x86 against the stub: the same offsets' '
	bpf_compile x86 "$src/t/helper/arch-vmlinux" x86.o &&
	offsets x86.o >x86.out &&
	test_cmp x86.expect x86.out
'

test_expect_success CLANG,OBJDUMP 'arm64: pc, sp, x29, x30 and pstate of user_pt_regs' '
	bpf_compile arm64 "$src/t/helper/arch-vmlinux" arm64.o &&
	offsets arm64.o >arm64.out &&
	test_cmp arm64.expect arm64.out
'

test_expect_success CLANG,OBJDUMP 'the walker compiles for arm64, with its x30 rows' '
	llvm-objdump -t arm64.o >syms &&
	grep " arch_walk\$" syms &&
	llvm-objdump -d arm64.o >arm64.dis &&
	llvm-objdump -d x86.o >x86.dis &&
	# The signature stripped from return addresses, 2^48 - 1: in
	# arch_strip and in the walker'"'"'s steps on arm64, nowhere on x86.
	test $(grep -c "= 281474976710655 ll" arm64.dis) -ge 3 &&
	! grep "= 281474976710655 ll" x86.dis
'

test_done
