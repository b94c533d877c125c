#!/bin/sh
test_description='unwind tables shared by files of the same contents, never by claim

Two copies of one program (two inodes, as two containers of one image
have) get one table: the second file'"'"'s, built from its own CFI, is
found to be the same rows and borrows the first'"'"'s.  A third program
claims the same build id but is built otherwise: its table is its own,
and its stacks stay whole.  The records of copies no process maps any
more go after a minute; the table they shared stays.'
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

idle_freed () {
	daemon_state_value "[0-9]+ idle records freed"
}

files () {
	daemon_state_value "unwind: [0-9]+ files"
}

test_expect_success ROOT,BPF,TOOLS 'copies run and gone: their records go, the table stays' '
	for i in 1 2 3 4 5; do
		cp s3051a s3051d$i || return 1
	done &&
	# Only these programs: the records counted are theirs.
	cp ebpfspy.conf idle.conf &&
	printf "[targets]\ntargets_only = yes\n[target \"s3051\"]\ncomm = s3051*\n" \
	    >>idle.conf &&
	daemon_start -c idle.conf -o idle &&
	./s3051a -c 1 >a2.out &&
	for i in 1 2 3 4 5; do
		./s3051d$i -c 0.3 >d$i.out || return 1
	done &&
	s0=$(shared) && f0=$(files) && i0=$(idle_freed) &&
	echo "after the copies: $f0 files, $s0 shared, $i0 freed" &&
	test "$s0" -ge 5 &&
	# Past UNWIND_MAPS_IDLE (60 units of 1.07 s): a process whose maps
	# are read sweeps them.
	sleep 70 &&
	./s3051a -c 1 >a3.out &&
	s1=$(shared) && f1=$(files) && i1=$(idle_freed) &&
	echo "a minute on: $f1 files, $s1 shared, $i1 freed" &&
	test "$i1" -ge $((i0 + 5)) &&
	test "$s1" -le $((s0 - 5)) && test "$f1" -le $((f0 - 5)) &&
	daemon_stop &&
	cat idle/cpu/s3051/*.folded >s3051a.idle.folded &&
	all=$(folded_sum "^s3051a;" <s3051a.idle.folded) &&
	good=$(folded_sum "$(fpless_whole s3051a)" <s3051a.idle.folded) &&
	echo "s3051a: $good of $all samples reach main" &&
	test "$all" -ge 400 &&
	test "$(percent $good $all)" -ge 97
'

test_done
