#!/bin/sh
test_description='debug files of a process in another mount namespace

A stripped workload runs in its own mount namespace, where a tmpfs
mounted on the debug directory holds its debug file; on the host that
directory is empty.  Its frames are named from the debug file it sees,
read through /proc/PID/root.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq UNSHARE 'unshare -m true'

dir_is_empty () {
	test -z "$(ls -A "$1")" || {
		echo >&2 "$1 is not empty on the host"
		return 1
	}
}

test_expect_success ROOT,BPF,UNSHARE 'profile it' '
	cc -fno-omit-frame-pointer -pthread \
	    -Wl,--build-id=0x5005b0b1d1d00000000000000000000000000000 \
	    -o b5005.full "$EBPFSPY_SOURCE_DIR/t/helper/burn.c" -lpthread &&
	strip -o b5005 b5005.full &&
	objcopy --only-keep-debug b5005.full b5005.debug &&
	mkdir -p dbg &&
	profile_config <<-EOF &&
	[symbols]
	debug_dirs = $PWD/dbg
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	unshare -m --propagation private sh -c "
		mount -t tmpfs tmpfs \"$PWD/dbg\" &&
		mkdir -p \"$PWD/dbg/.build-id/50\" &&
		cp b5005.debug \"$PWD/dbg/.build-id/50/05b0b1d1d00000000000000000000000000000.debug\" &&
		exec ./b5005 -c 2" >w.out &&
	daemon_stop &&
	dir_is_empty dbg
'

test_expect_success ROOT,BPF,UNSHARE 'named from the debug file of its namespace' '
	folded cpu b5005 >ns.folded &&
	all=$(folded_sum "^b5005;" <ns.folded) &&
	named=$(folded_sum "^b5005;(.*;)?main;work;burn_[ab](;|\$)" \
	    <ns.folded) &&
	echo "$named of $all named" &&
	test "$all" -ge 50 &&
	test "$named" -ge $((all * 90 / 100))
'

test_done
