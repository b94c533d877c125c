#!/bin/sh
test_description='unwind tables shared by files of the same contents, never by claim

Two copies of one program (two inodes, as two containers of one image
have) get one table: the second file'"'"'s, built from its own CFI, is
found to be the same rows and borrows the first'"'"'s.  A third program
claims the same build id but is built otherwise: its table is its own,
and its stacks stay whole.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq TOOLS 'cc --version && objcopy --version && readelf --version'

ID=30515a5a5a000000000000000000000000000000

# build NAME FLAGS: the fpless workload, built here with the build id.
build () {
	cc $2 -g -Wl,-z,lazy -Wl,--build-id=0x$ID -o "$1" \
	    "$EBPFSPY_SOURCE_DIR/t/helper/fpless.c"
}

test_expect_success TOOLS 'two copies and an impostor' '
	build s3051a -O2 &&
	cp s3051a s3051b &&
	build s3051c -O1 &&
	for f in s3051a s3051c; do
		readelf -n $f | grep "Build ID: $ID" || return 1
		objcopy -O binary --only-section=.eh_frame $f $f.eh || return 1
	done &&
	! cmp -s s3051a.eh s3051c.eh
'

# whole NAME: the share of NAME's samples that reach main with their
# callers.
whole () {
	all=$(folded_sum "^$1;" <"$1.folded") &&
	good=$(folded_sum "$(fpless_whole "$1")" <"$1.folded") &&
	echo "$1: $good of $all samples reach main" >&2 &&
	test "$all" -ge 200 &&
	percent $good $all
}

shared () {
	daemon_state_value "[0-9]+ shared\\)"
}

test_expect_success ROOT,BPF,TOOLS 'profile the three one after the other' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	unwind = dwarf
	unwind_table_bytes = 67108864
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./s3051a -c 1 >a.out &&
	s0=$(shared) &&
	./s3051b -c 1 >b.out &&
	s1=$(shared) &&
	./s3051c -c 1 >c.out &&
	daemon_stop &&
	echo "shared tables: $s0 before the copy ran, $s1 after" &&
	test "$s1" -gt "$s0" &&
	for s in s3051a s3051b s3051c; do
		folded cpu $s >$s.folded || return 1
	done
'

test_expect_success ROOT,BPF,TOOLS 'the copy, on the shared table, reaches main' '
	p=$(whole s3051a) && test "$p" -ge 97 &&
	p=$(whole s3051b) && test "$p" -ge 97
'

test_expect_success ROOT,BPF,TOOLS 'the impostor, on a table of its own, too' '
	p=$(whole s3051c) && test "$p" -ge 97
'

test_done
