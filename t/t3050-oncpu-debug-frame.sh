#!/bin/sh
test_description='unwind tables from the .debug_frame of a separate debug file

A library built without unwind tables (-fno-asynchronous-unwind-tables
-fno-unwind-tables, no frame pointers) has CFI only in .debug_frame;
stripped of it, that CFI lives only in its debug file, found by build
id under debug_dirs.  With unwind = dwarf a frame without a table ends
the stack: samples in the library reach main only through that file.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq TOOLS 'cc --version && objcopy --version && readelf --version'

ID=3050dfdfdf000000000000000000000000000000

# Is there an .eh_frame with bytes in it in readelf -SW's output?  (The
# linker leaves an empty one.)
has_eh_frame () {
	grep -E "\.eh_frame +PROGBITS +[0-9a-f]+ [0-9a-f]+ 0*[1-9a-f]"
}

test_expect_success TOOLS 'a library whose CFI is only in its debug file' '
	cat >lib.c <<-\EOF &&
	__attribute__((noinline)) unsigned long
	d3050_inner(unsigned long x)
	{
		int	 i;

		for (i = 0; i < 200000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		return x + 1;
	}

	__attribute__((noinline)) unsigned long
	d3050_outer(unsigned long x)
	{
		x = d3050_inner(x);
		return d3050_inner(x ^ 7) * 3;
	}
	EOF
	cat >main.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	#include <time.h>

	unsigned long	 d3050_outer(unsigned long);

	int
	main(int argc, char **argv)
	{
		double	 cpu = atof(argv[1]);
		unsigned long	 x = 1;

		while ((double)clock() / CLOCKS_PER_SEC < cpu)
			x = d3050_outer(x);
		printf("%lu\n", x);
		return 0;
	}
	EOF
	cc -O2 -g -fPIC -shared -nostartfiles -fomit-frame-pointer \
	    -fno-asynchronous-unwind-tables -fno-unwind-tables \
	    -Wl,--build-id=0x$ID -o libd3050.full lib.c &&
	readelf -SW libd3050.full >sections &&
	! has_eh_frame <sections &&
	grep -q "\.debug_frame" sections &&
	mkdir -p dbg/.build-id/30 &&
	objcopy --only-keep-debug libd3050.full \
	    dbg/.build-id/30/${ID#30}.debug &&
	strip --strip-debug -o libd3050.so libd3050.full &&
	readelf -SW libd3050.so >sections &&
	! has_eh_frame <sections &&
	! grep -q "\.debug_frame" sections &&
	cc -O2 -g -o d3050 main.c -L. -ld3050 -Wl,-rpath,"$PWD"
'

# run DIRS: d3050 profiled with unwind = dwarf and debug_dirs = DIRS,
# its folded stacks in DIRS-named file $2.
run () {
	rm -rf out &&
	profile_config <<-EOF &&
	[profile]
	sample_rate = 499
	unwind = dwarf
	unwind_table_bytes = 67108864
	[symbols]
	debug_dirs = $1
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./d3050 2 >w.out &&
	built=$(daemon_state_value "\(([0-9]+) from debug files\)") &&
	daemon_stop &&
	folded cpu d3050 >"$2"
}

# share FILE: of the samples in d3050_inner, those under main;d3050_outer.
share () {
	in=$(folded_sum ";d3050_inner(;|\$)" <"$1") &&
	whole=$(folded_sum "^d3050;(.*;)?main;d3050_outer;d3050_inner(;|\$)" \
	    <"$1") &&
	echo "$whole of $in samples in d3050_inner reach main" >&2 &&
	test "$in" -ge 300 &&
	percent $whole $in
}

test_expect_success ROOT,BPF,TOOLS 'samples in the library reach main' '
	run "/nonexistent:$PWD/dbg" debug.folded &&
	echo "$built tables from debug files" &&
	test "$built" -ge 1 &&
	p=$(share debug.folded) &&
	echo "$p%" &&
	test "$p" -ge 97
'

test_expect_success ROOT,BPF,TOOLS 'without the debug file, the stack ends there' '
	run /nonexistent nodebug.folded &&
	test "$built" -eq 0 &&
	p=$(share nodebug.folded) &&
	echo "$p%" &&
	test "$p" -lt 50 &&
	in=$(folded_sum ";d3050_inner(;|\$)" <nodebug.folded) &&
	t=$(folded_sum "^d3050;\\[truncated\\];d3050_inner(;|\$)" \
	    <nodebug.folded) &&
	echo "$t of $in end in [truncated]" &&
	test $((t * 100)) -ge $((in * 90))
'

test_done
