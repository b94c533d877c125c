#!/bin/sh
test_description='native source lines and inlined frames from DWARF

t/helper/inlinew.c built -O2 -g: mix() is always inlined into
hash_block(), where the workload spends its time.  The chains src/dwarf/
reads (t/helper/dwarfq) must equal addr2line -i -f on every instruction
of hash_block: in the binary itself, in a debug file of a stripped build
(objcopy --only-keep-debug, --add-gnu-debuglink), and in debug files
dwz moved into a supplementary file (.gnu_debugaltlink); in the peers'"'"'
DWARF 5 fixtures (zlib-compressed sections too) and in libc6-dbg'"'"'s
debug file of libc.  Then the daemon'"'"'s profiles show "mix (inlined)"
below hash_block, unless [symbols] inlines is off, and pprof gives the
frames the lines addr2line gives.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

SRC="$EBPFSPY_SOURCE_DIR/t/helper/inlinew.c"
FIX=/work/shared/fixtures/peers/otel-ebpf-profiler/rust-crates/symblib/testdata

test_lazy_prereq TOOLS 'cc --version && objcopy --version &&
	addr2line --version && objdump --version'
test_lazy_prereq DWZ 'dwz --version'
test_lazy_prereq FIXTURES 'test -r "$FIX/inline"'
test_lazy_prereq LIBCDBG '
	id=$(readelf -n /lib/x86_64-linux-gnu/libc.so.6 |
	    awk "/Build ID/ { print \$3 }") &&
	test -r /usr/lib/debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id |
	    cut -c3-).debug'

# same FILE ADDRFILE [ALT]: dwarfq and addr2line -i -f agree on them.
same () {
	dwarfq ${3:+-a "$3"} "$1" $(cat "$2") >dwarfq.out &&
	addr2line -i -f -e "$1" $(cat "$2") |
	    sed "s/ (discriminator [0-9]*)//" >addr2line.out &&
	test_cmp addr2line.out dwarfq.out
}

# insns FILE FUNC: the address of each instruction of FUNC.
insns () {
	objdump -d --no-show-raw-insn "$1" |
	    awk "/<$2>:\$/ { on = 1; next } /^\$/ { on = 0 }
	    on && /^ +[0-9a-f]+:/ { sub(/:.*/, \"\"); print \$1 }"
}

test_expect_success TOOLS 'a -O2 -g build, a stripped one and its debug file' '
	cc -O2 -g -fno-omit-frame-pointer -Wl,--build-id=0x51100000aa \
	    -o inl5110g "$SRC" &&
	cc -O2 -g -fno-omit-frame-pointer -Wl,--build-id=0x51100000bb \
	    -o inl5110d.full "$SRC" &&
	objcopy --only-keep-debug inl5110d.full inl5110d.debug &&
	strip -o inl5110d.s inl5110d.full &&
	objcopy --add-gnu-debuglink=inl5110d.debug inl5110d.s inl5110d &&
	chmod +x inl5110g inl5110d &&
	insns inl5110g hash_block >g.addrs &&
	insns inl5110d.full hash_block >d.addrs &&
	test $(wc -l <g.addrs) -ge 5 &&
	addr2line -i -f -e inl5110g $(cat g.addrs) | grep -qx mix
'

test_expect_success TOOLS 'chains equal addr2line -i: in the binary' '
	same inl5110g g.addrs &&
	grep -qx mix dwarfq.out &&
	test $(grep -c "inlinew.c:[1-9]" dwarfq.out) -ge 5
'

test_expect_success TOOLS 'chains equal addr2line -i: in its debug file' '
	same inl5110d.debug d.addrs
'

test_expect_success TOOLS,DWZ 'dwz: the same chains through the supplementary file' '
	cp inl5110d.debug z1.debug &&
	cc -O2 -g -fno-omit-frame-pointer -o z2.full "$SRC" &&
	objcopy --only-keep-debug z2.full z2.debug &&
	dwz -m alt.debug -M /nonexistent/alt.debug z1.debug z2.debug &&
	readelf -S z1.debug 2>/dev/null | grep -q gnu_debugaltlink &&
	dwarfq inl5110d.debug $(cat d.addrs) >before.out &&
	dwarfq -a alt.debug z1.debug $(cat d.addrs) >dwz.out &&
	test_cmp before.out dwz.out &&
	grep -qx mix dwz.out &&
	grep -qx hash_block dwz.out &&
	dwarfq z1.debug $(cat d.addrs) >noalt.out &&
	! grep -qx hash_block noalt.out
'

test_expect_success FIXTURES 'the DWARF 5 fixtures, plain and zlib-compressed' '
	nm "$FIX/inline" | awk "\$2 ~ /^[tT]\$/ && \$3 !~ /^\\$/ { print \$1 }" |
	    sort -u >fx.all &&
	addr2line -f -e "$FIX/inline" $(cat fx.all) | paste - - |
	    awk "\$2 !~ /^\\?/ && \$2 !~ /:\\?/ { n++ } END { print n }" &&
	for a in $(cat fx.all); do
		addr2line -e "$FIX/inline" $a | grep -q "inline.c:[0-9]" &&
		echo $a || :
	done >fx.addrs &&
	test $(wc -l <fx.addrs) -ge 3 &&
	same "$FIX/inline" fx.addrs &&
	same "$FIX/inline-compressed-dwarf" fx.addrs
'

# binutils names a file by its directory entry and name joined
# (./stdlib/./stdlib/abort.c), libdw as the line table has it, picks
# another row's file where rows share an address, and a function's
# __GI_ alias: the lines must be the same, the names mostly.
test_expect_success LIBCDBG 'libc6-dbg: lines equal addr2line -i'"'"'s' '
	id=$(readelf -n /lib/x86_64-linux-gnu/libc.so.6 |
	    awk "/Build ID/ { print \$3 }") &&
	dbg=/usr/lib/debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id |
	    cut -c3-).debug &&
	nm -D --defined-only /lib/x86_64-linux-gnu/libc.so.6 |
	    awk "\$2 ~ /^[tTiW]\$/ { print \$1 }" | sort -u | sed -n "1~7p" |
	    head -200 >libc.addrs &&
	test $(wc -l <libc.addrs) -ge 100 &&
	dwarfq "$dbg" $(cat libc.addrs) >dwarfq.out &&
	addr2line -i -f -e "$dbg" $(cat libc.addrs) |
	    sed "s/ (discriminator [0-9]*)//" >addr2line.out &&
	test $(wc -l <dwarfq.out) = $(wc -l <addr2line.out) &&
	awk "NR % 2 == 0" dwarfq.out | sed "s/.*://" >d.lines &&
	awk "NR % 2 == 0" addr2line.out | sed "s/.*://" >a.lines &&
	test_cmp a.lines d.lines &&
	test $(grep -c "\.[ch]:[1-9]" dwarfq.out) -ge 50 &&
	awk "NR % 2 == 1" dwarfq.out >d.names &&
	awk "NR % 2 == 1" addr2line.out >a.names &&
	n=$(wc -l <d.names) &&
	same=$(paste -d "|" a.names d.names | awk -F"|" "\$1 == \$2" |
	    wc -l) &&
	echo "$same of $n names the same" &&
	test "$same" -ge $((n * 90 / 100))
'

# perf puts most of hash_block's samples on mix's lines; of its
# instructions three in ten are mix's.  Those of the first round a
# process is seen in may be named before its DWARF is read.
test_expect_success ROOT,BPF,TOOLS 'profile: mix (inlined) below hash_block' '
	# Of the host'"'"'s DWARF, the small files only (libc6-dbg'"'"'s takes
	# 0.5 s to open): the round'"'"'s time goes to the workload'"'"'s.
	printf "[daemon]\ncollect_interval = 1\n[symbols]\ndwarf_bytes = 1048576\n" \
	    >ebpfspy.conf &&
	daemon_start -c ebpfspy.conf -o out &&
	{ ./inl5110g -c 120 >g.out & pg=$!; } &&
	{ ./inl5110d -c 120 >d.out & pd=$!; } &&
	workload_wait g.out && workload_wait d.out &&
	daemon_wait_log "^round 5 done" 90 &&
	kill $pg $pd && wait $pg $pd;
	daemon_stop &&
	for s in inl5110g inl5110d; do
		folded cpu $s >$s.folded &&
		all=$(folded_sum "^$s;" <$s.folded) &&
		hb=$(folded_sum "^$s;(.*;)?main;hash_block(;|\$)" <$s.folded) &&
		mix=$(folded_sum "^$s;(.*;)?main;hash_block;mix \\(inlined\\)(;|\$)" \
		    <$s.folded) &&
		echo "$s: $mix of $hb in hash_block in mix, of $all" &&
		test "$all" -ge 10 &&
		test "$hb" -ge $((all * 70 / 100)) &&
		test "$mix" -ge $((hb * 5 / 100)) || return 1
	done
'

# pprof: each name has its file and line (today one Location a name, at
# the line of its first address: frametab.c), mix's one of its own.
test_expect_success ROOT,BPF,TOOLS,GO 'pprof: mix (inlined) at its lines' '
	go tool pprof -lines -top -nodecount=100 out/cpu/inl5110g/*.pb.gz \
	    >pprof.top 2>&1 &&
	cat pprof.top &&
	grep -E " mix \(inlined\) .*/inlinew\.c:2[234]( \(inline\))?\$" pprof.top &&
	grep -E " hash_block .*/inlinew\.c:(29|3[0-6])\$" pprof.top
'

test_expect_success ROOT,BPF,TOOLS 'inlines = no: no inlined frame' '
	printf "[daemon]\ncollect_interval = 1\n[symbols]\ninlines = no\n" \
	    >ebpfspy.conf &&
	rm -rf out g.out &&
	daemon_start -c ebpfspy.conf -o out &&
	{ ./inl5110g -c 120 >g.out & pg=$!; } &&
	workload_wait g.out &&
	daemon_wait_log "^round 4 done" 90 &&
	kill $pg && wait $pg;
	daemon_stop &&
	folded cpu inl5110g >no.folded &&
	all=$(folded_sum "^inl5110g;(.*;)?main;hash_block(;|\$)" <no.folded) &&
	test "$all" -ge 10 &&
	! grep -q "(inlined)" no.folded
'

test_done
