#!/bin/sh
test_description='names without their symbol versions

glibc'"'"'s debug file (libc6-dbg) names its exported functions as the
assembler'"'"'s .symver wrote them, version and all:
__libc_start_main@@GLIBC_2.34, memcpy@@GLIBC_2.14 and memcpy@GLIBC_2.2.5.
Frames are named without the version, as perf and gdb show them; the
pprof Function keeps the name as the file has it as its system_name.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null)
test_lazy_prereq LIBC_DBG '
	id=$(readelf -n "$LIBC" | sed -n "s/.*Build ID: //p") &&
	test -n "$id" &&
	dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug &&
	nm "$dbg" >"$TRASH_DIRECTORY/libc.nm" &&
	grep -q " __libc_start_main@@GLIBC_" "$TRASH_DIRECTORY/libc.nm"
'

# addr NAME: the address of the symbol NAME in libc's debug file.
addr () {
	awk -v n="$1" '$3 == n { print $1; exit }' libc.nm
}

test_expect_success LIBC_DBG 'resolve: libc'"'"'s versioned symbols, named without the version' '
	grep -E " (__libc_start_main|memcpy)@" libc.nm &&
	start=$(addr "__libc_start_main@@GLIBC_2.34") &&
	old=$(addr "memcpy@GLIBC_2.2.5") &&
	new=$(addr "memcpy@@GLIBC_2.14") &&
	test -n "$start" && test -n "$old" && test -n "$new" &&
	resolve -f "$LIBC" "$start" "$old" "$new" >names &&
	cat names &&
	printf "__libc_start_main\nmemcpy\nmemcpy\n" >expect &&
	test_cmp expect names
'

# A walk may end [truncated] until libc's unwind table is built (see
# t4010): a second run, when the first had no whole stack.
test_expect_success ROOT,BPF,LIBC_DBG 'a workload whose stacks go through libc, profiled' '
	profile_unwind_config 997 &&
	mkworkload fpless v5100 &&
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	./v5100 -m cpu -c 2 >v.out &&
	daemon_stop &&
	if ! folded cpu v5100 | grep -q ";_start;__libc_start_main"; then
		daemon_start -c ebpfspy.conf -o out &&
		./v5100 -m cpu -c 2 >v.out &&
		daemon_stop
	fi &&
	folded cpu v5100 >v.folded &&
	test -s v.folded
'

test_expect_success ROOT,BPF,LIBC_DBG 'folded: names without versions' '
	grep -E ";_start;__libc_start_main;__libc_start_call_main;main;" v.folded &&
	! grep "@GLIBC" v.folded
'

test_expect_success ROOT,BPF,LIBC_DBG 'pprof: the name as Function.name, with its version as system_name' '
	for f in out/cpu/v5100/*.pb.gz; do
		python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" "$f" &&
		gunzip -c "$f" >>v.bin || return 1
	done >v.pprof &&
	grep -E ";__libc_start_main;" v.pprof &&
	! grep "@GLIBC" v.pprof &&
	grep -a -q "__libc_start_main@@GLIBC_2\.[0-9]" v.bin
'

test_done
