#!/bin/sh
test_description='configure says which architectures work

ebpfspy runs on x86_64 only (issue 32): its BPF programs need a
vmlinux.h of the target, and only bpf/vmlinux/x86/ is committed.
configure stops on any other host with a message that says so, before
it looks for a compiler; --enable-arm64-userspace lets an aarch64 host
through, to build the userspace for a portability check
(tools/cross-arm64.sh), never a daemon that can run.  CC=false stops
each run at the compiler check, so no run gets further than needed.'
. "$(dirname "$0")/test-lib.sh"

configure=$EBPFSPY_SOURCE_DIR/configure

test_expect_success 'configure is there' '
	test -x "$configure"
'

test_expect_success 'a riscv64 host is refused, naming the one that works' '
	test_must_fail "$configure" --host=riscv64-linux-gnu CC=false \
	    >out 2>err &&
	grep "error: ebpfspy runs on x86_64 only, not riscv64" err &&
	! grep "C compiler" out err
'

test_expect_success 'an aarch64 host is refused, naming the cross check' '
	test_must_fail "$configure" --host=aarch64-linux-gnu CC=false \
	    >out 2>err &&
	grep "error: ebpfspy runs on x86_64 only, not aarch64" err &&
	grep "enable-arm64-userspace" err &&
	! grep "C compiler" out err
'

test_expect_success '--enable-arm64-userspace lets aarch64 through, and says what it is' '
	test_must_fail "$configure" --host=aarch64-linux-gnu \
	    --enable-arm64-userspace CC=false >out 2>err &&
	! grep "runs on x86_64 only" err &&
	grep "userspace only, for a portability check" out err
'

test_expect_success '--enable-arm64-userspace is refused on an x86_64 host' '
	test_must_fail "$configure" --host=x86_64-linux-gnu \
	    --enable-arm64-userspace CC=false >out 2>err &&
	grep "error: --enable-arm64-userspace needs an aarch64 host" err
'

test_expect_success 'configure --help documents the option' '
	"$configure" --help >out &&
	grep "^  --enable-arm64-userspace" out
'

test_done
