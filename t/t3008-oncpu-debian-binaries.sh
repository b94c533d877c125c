#!/bin/sh
test_description='on-CPU stacks of Debian binaries as they ship

python3 hashing a big buffer with hashlib (libpython, _hashlib,
libcrypto: no frame pointers anywhere), xz and gzip compressing a file.
At least 95% of the samples of each must reach main.  Python is
profiled natively ([python] enabled = no): the native chain from main
through the interpreter to libcrypto is what is tested.  With the
Python walker on, the interpreter'"'"'s frames give way to Python
functions, and 95% of the samples must show the Python function, then
_hashlib and libcrypto.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq DEBBINS '
	test -x /usr/bin/python3 && test -x /usr/bin/xz && test -x /bin/gzip
'

# Each program runs as ./COMM, a symlink to the binary as Debian ships
# it, so that the comm is this test's own.
test_expect_success ROOT,BPF,DEBBINS 'profile python3 hashlib, xz and gzip' '
	seq 1 5000000 >data &&
	ln -s "$(readlink -f /usr/bin/python3)" p3008 &&
	ln -s "$(readlink -f /usr/bin/xz)" x3008 &&
	ln -s "$(readlink -f /bin/gzip)" g3008 &&
	profile_unwind_config &&
	profile_run p3008 -c "
import hashlib
b = bytes(range(256)) * (1 << 16)
for i in range(300):
    hashlib.sha256(b).digest()
" &&
	profile_run x3008 -2 -T1 -c data &&
	profile_run g3008 -9 -c data data
'

# reach COMM ERE: the share of COMM's samples that match
# ^COMM;(.*;)?__libc_start_call_main;ERE -- main is not named in a
# stripped program: its frame is the one libc calls.
reach () {
	all=$(folded_sum "^$1;" <$1.folded) &&
	good=$(folded_sum "^$1;(.*;)?__libc_start_call_main;$2" <$1.folded) &&
	echo "$1: $good of $all samples reach main" >&2 &&
	test "$all" -ge 300 &&
	percent $good $all
}

# within_chain COMM LEAF CHAIN: of COMM's samples with a frame matching LEAF,
# at least 200, 95% lie under ^COMM;(.*;)?__libc_start_call_main;CHAIN.
within_chain () {
	l=$(folded_sum "^$1;.*;$2(;|\$)" <$1.folded) &&
	lm=$(folded_sum "^$1;(.*;)?__libc_start_call_main;$3(.*;)?$2(;|\$)" \
	    <$1.folded) &&
	echo "$2: $l samples, $lm whole" &&
	test "$l" -ge 200 &&
	test $((lm * 100)) -ge $((l * 95))
}

# python3.11's main jumps to Py_BytesMain: no frame of its own.
test_expect_success ROOT,BPF,DEBBINS 'python3: 95% reach main, hashing under the interpreter' '
	p=$(reach p3008 "Py_BytesMain(;|\$)") &&
	echo "$p%" &&
	test "$p" -ge 95 &&
	within_chain p3008 "libcrypto[^;]*" \
	    "Py_BytesMain;(.*;)?_PyEval_EvalFrameDefault;(.*;)?_hashlib[^;]*;(.*;)?SHA256_Update;"
'

# With the Python walker on, the interpreter's own frames (main
# among them) give way to Python functions; the native frames above the
# innermost one come from the same walk.
test_expect_success ROOT,BPF,DEBBINS 'python3, Python frames on: _hashlib and libcrypto above hot' '
	ln -s "$(readlink -f /usr/bin/python3)" q3008 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	unwind_table_bytes = 67108864
	EOF
	profile_run q3008 -c "
import hashlib
def hot(b):
    for i in range(300):
        hashlib.sha256(b).digest()
hot(bytes(range(256)) * (1 << 16))
" &&
	all=$(folded_sum "^q3008;" <q3008.folded) &&
	good=$(folded_sum "^q3008;<module> \\(<string>:6\\);hot \\(<string>:5\\);(.*;)?_hashlib[^;]*;(.*;)?SHA256_Update;libcrypto[^;]*(;|\$)" \
	    <q3008.folded) &&
	echo "$good of $all samples: hot, then _hashlib and libcrypto" &&
	test "$all" -ge 300 &&
	test $((good * 100)) -ge $((all * 95))
'

test_expect_success ROOT,BPF,DEBBINS 'xz: 95% reach main, liblzma under lzma_code' '
	p=$(reach x3008 "xz\+0x[0-9a-f]+(;|\$)") &&
	echo "$p%" &&
	test "$p" -ge 95 &&
	within_chain x3008 "liblzma[^;]*" "xz\+0x[0-9a-f]+;(.*;)?lzma_code;"
'

test_expect_success ROOT,BPF,DEBBINS 'gzip: 95% reach main' '
	p=$(reach g3008 "gzip\+0x[0-9a-f]+(;|\$)") &&
	echo "$p%" &&
	test "$p" -ge 95
'

test_done
