#!/bin/sh
test_description='stripped programs named from their separate debug information

Four builds of the burn workload, each with a build id of its own so
that no table is shared between them, are stripped: one has its debug
file in a build-id tree under debug_dirs, one a .gnu_debuglink to a
debug file beside it, one MiniDebugInfo (.gnu_debugdata), one nothing.
burn_a and burn_b are not exported: only debug information names them.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq TOOLS 'cc --version && objcopy --version && xz --version'

# build NAME BUILD-ID: burn, built here with that build id.
build () {
	cc -fno-omit-frame-pointer -pthread -Wl,--build-id=0x$2 \
	    -o "$1.full" "$EBPFSPY_SOURCE_DIR/t/helper/burn.c" -lpthread
}

test_expect_success TOOLS 'stripped builds and their debug information' '
	build b5000b 5000b0b1d1d00000000000000000000000000000 &&
	build b5000l 5000b0b1d1d10000000000000000000000000000 &&
	build b5000m 5000b0b1d1d20000000000000000000000000000 &&
	build b5000n 5000b0b1d1d30000000000000000000000000000 &&
	strip -o b5000b b5000b.full &&
	mkdir -p dbg/.build-id/50 &&
	objcopy --only-keep-debug b5000b.full \
	    dbg/.build-id/50/00b0b1d1d00000000000000000000000000000.debug &&
	objcopy --only-keep-debug b5000l.full b5000l.debug &&
	strip -o b5000l.s b5000l.full &&
	objcopy --add-gnu-debuglink=b5000l.debug b5000l.s b5000l &&
	nm b5000m.full --defined-only | awk "\$2 ~ /[tT]/ { print \$3 }" \
	    >funcs &&
	objcopy --only-keep-debug b5000m.full mini.full &&
	objcopy -S --keep-symbols=funcs mini.full mini &&
	xz -f mini &&
	strip -o b5000m.s b5000m.full &&
	objcopy --add-section .gnu_debugdata=mini.xz b5000m.s b5000m &&
	strip -o b5000n b5000n.full &&
	chmod +x b5000b b5000l b5000m b5000n &&
	! nm b5000b 2>/dev/null | grep burn_a &&
	! nm -D b5000b | grep burn_a
'

test_expect_success ROOT,BPF,TOOLS 'profile the four at once' '
	profile_config <<-EOF &&
	[symbols]
	debug_dirs = /nonexistent:$PWD/dbg
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	{ ./b5000b -c 1.5 >b.out & pb=$!; } &&
	{ ./b5000l -c 1.5 >l.out & pl=$!; } &&
	{ ./b5000m -c 1.5 >m.out & pm=$!; } &&
	./b5000n -c 1.5 >n.out &&
	wait $pb $pl $pm &&
	daemon_stop
'

# named SERVICE: how many of its samples are in main;work;burn_a|b.
named () {
	folded cpu "$1" >"$1.folded" &&
	all=$(folded_sum "^$1;" <"$1.folded") &&
	named=$(folded_sum "^$1;(.*;)?main;work;burn_[ab](;|\$)" \
	    <"$1.folded") &&
	echo "$1: $named of $all samples named"
}

test_expect_success ROOT,BPF,TOOLS 'by build id in debug_dirs' '
	named b5000b &&
	test "$all" -ge 20 &&
	test "$named" -ge $((all * 90 / 100))
'

test_expect_success ROOT,BPF,TOOLS 'by .gnu_debuglink beside the file' '
	named b5000l &&
	test "$all" -ge 20 &&
	test "$named" -ge $((all * 90 / 100))
'

test_expect_success ROOT,BPF,TOOLS 'by MiniDebugInfo' '
	named b5000m &&
	test "$all" -ge 20 &&
	test "$named" -ge $((all * 90 / 100))
'

test_expect_success ROOT,BPF,TOOLS 'without debug information: module+offset' '
	named b5000n &&
	test "$all" -ge 20 &&
	test "$named" = 0 &&
	grep -q "b5000n+0x" b5000n.folded
'

test_done
