#!/bin/sh
test_description='pprof files as the best agents write them

What the daemon writes decodes with protoc against profile.proto; go
tool pprof reads mappings (the program first, with its path and build
id), addresses in the files'"'"' terms, the kernel'"'"'s own mapping,
mangled names apart from demangled ones, source files and lines (Python
frames: one function per Python function, lines on its locations; Go
frames: files and lines from the pclntab, go tool pprof -list shows a
Go function'"'"'s source), and
the target'"'"'s labels on every sample; off-CPU profiles have no period
type (offcpu:offcpu:nanoseconds:: in Pyroscope, as Grafana Alloy'"'"'s); the
pprof-format package reads them and writes them back the same.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-python.sh"

PROTO=$EBPFSPY_SOURCE_DIR/src/profile/profile.proto
test_lazy_prereq PROTOC 'protoc --version'
test_lazy_prereq PPROF_FORMAT '
	NODE_PATH=$(npm root -g 2>/dev/null) node -e "require(\"pprof-format\")"
'

test_expect_success GO 'a stripped Go workload' '
	go_workload g6002
'

test_expect_success ROOT,BPF,DEB 'profile native, off-CPU, Python and Go workloads' '
	mkworkload burn b6002 &&
	mkworkload waiter w6002 &&
	python_link deb y6002 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	offcpu = yes
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b6002 -c 2 >burn.out &&
	./w6002 -t 1 >wait.out &&
	./y6002-deb "$PYWORK" names 2 >/dev/null &&
	if test -x g6002; then ./g6002 2 >g.out || return 1; fi &&
	daemon_stop &&
	ls out/cpu/b6002/*.pb.gz out/offcpu/w6002/*.pb.gz out/cpu/y6002-deb/*.pb.gz
'
# decode FILE: the profile as protoc prints it.
decode () {
	gunzip -c "$1" | protoc --decode=perftools.profiles.Profile \
	    -I "$(dirname "$PROTO")" "$(basename "$PROTO")"
}

test_expect_success ROOT,BPF,DEB,PROTOC 'protoc decodes every file against profile.proto' '
	for f in out/cpu/b6002/*.pb.gz out/offcpu/w6002/*.pb.gz \
	    out/cpu/y6002-deb/*.pb.gz; do
		decode "$f" >"$f.txt" || return 1
	done &&
	cat out/cpu/b6002/*.pb.gz.txt >b.txt &&
	grep -q "^mapping {" b.txt &&
	grep -q "^  memory_start: [1-9]" b.txt &&
	grep -q "^  build_id: [1-9]" b.txt &&
	grep -q "^  has_functions: true" b.txt &&
	grep -q "^  mapping_id: [1-9]" b.txt &&
	grep -q "^  address: [1-9]" b.txt &&
	grep -q "^period_type {" b.txt &&
	cat out/offcpu/w6002/*.pb.gz.txt >w.txt &&
	grep -q "^sample_type {" w.txt &&
	! grep -q "^period_type" w.txt &&
	! grep -q "^period:" w.txt &&
	cat out/cpu/y6002-deb/*.pb.gz.txt >y.txt &&
	grep -q "^    line: [1-9]" y.txt &&
	grep -q "^  filename: [1-9]" y.txt
'

# raw FILE: go tool pprof -raw of it, its stderr in FILE.err.
raw () {
	go tool pprof -raw "$1" 2>"$1.err"
}

test_expect_success ROOT,BPF,GO 'go tool pprof: the program first, its path and build id' '
	f=$(ls out/cpu/b6002/*.pb.gz | head -1) &&
	raw "$f" >b.raw &&
	! grep "Main binary filename not available" "$f.err" &&
	id=$(readelf -n b6002 | sed -n "s/.*Build ID: //p") &&
	test -n "$id" &&
	sed -n "/^Mappings/,\$p" b.raw >b.maps &&
	cat b.maps &&
	grep -E "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $PWD/b6002 $id \[FN\]\$" b.maps &&
	grep -E "^[0-9]+: .*/libc\.so\.6 [0-9a-f]+ \[FN\](\[FL\]\[LN\])?\$" b.maps
'

test_expect_success ROOT,BPF,GO 'addresses are in the file'"'"'s terms: addr2line names them' '
	sed -n "/^Locations/,/^Mappings/p" b.raw >b.locs &&
	grep -E "^ +[0-9]+: 0x[0-9a-f]+ M=1 burn_a " b.locs &&
	for fn in burn_a burn_b work main; do
		a=$(sed -n "s/^ *[0-9]*: \(0x[0-9a-f]*\) M=1 $fn .*/\1/p" b.locs |
		    head -1) &&
		test -n "$a" &&
		echo "$fn at $a" &&
		test "$(addr2line -f -e b6002 "$a" | head -1)" = "$fn" ||
		return 1
	done
'

test_expect_success ROOT,BPF,GO 'kernel frames: the kernel'"'"'s mapping, kernel addresses' '
	f=$(ls out/offcpu/w6002/*.pb.gz | head -1) &&
	raw "$f" >w.raw &&
	k=$(sed -n "s/^\([0-9]*\): 0x0\/0xffffffffffffffff\/0x0 \[kernel\.kallsyms\] .*\[FN\]\$/\1/p" w.raw) &&
	test -n "$k" &&
	grep -E "^ +[0-9]+: 0xffff[0-9a-f]{12} M=$k (__)?schedule " w.raw
'

test_expect_success ROOT,BPF,GO 'off-CPU: no period type, as Alloy'"'"'s' '
	grep "^PeriodType: *\$" w.raw &&
	grep "^Period: 0\$" w.raw &&
	grep "^offcpu/nanoseconds\$" w.raw
'

test_expect_success ROOT,BPF,GO 'the target'"'"'s labels: go tool pprof -tags' '
	go tool pprof -tags out/cpu/b6002/*.pb.gz >b.tags 2>/dev/null &&
	cat b.tags &&
	grep -E "^ *service_name: Total" b.tags &&
	grep -E "\( *100%\): b6002\$" b.tags
'

line=$(grep -n "while clock() < end:" "$PYWORK" | cut -d: -f1)

test_expect_success ROOT,BPF,DEB,GO 'python: one function per Python function, its file and lines' '
	f=$(ls out/cpu/y6002-deb/*.pb.gz | head -1) &&
	go tool pprof -top "$f" >y.top 2>/dev/null &&
	test "$(grep -c " burn_for\$" y.top)" = 1 &&
	raw "$f" >y.raw &&
	grep -E "^ +[0-9]+: 0x0 burn_for $PYWORK:$line s=0\$" y.raw &&
	go tool pprof -list "^burn_for\$" "$f" >y.list 2>/dev/null &&
	cat y.list &&
	grep "ROUTINE =* burn_for in $PYWORK\$" y.list &&
	grep -E "^ +[0-9.]+m?s +[0-9.]+m?s +$line: +while clock\(\) < end:\$" y.list
'

# lines_of FUNC: the first and last lines of a function of g6002.go (a
# blank line follows each).
lines_of () {
	awk -v f="$1" '$0 ~ "^func " f "\\(" { s = NR }
	    s && !e && /^$/ { e = NR - 1 } END { print s, e }' g6002.go
}

test_expect_success ROOT,BPF,GO 'go: files and lines from the pclntab, go tool pprof -list shows the source' '
	f=$(ls out/cpu/g6002/*.pb.gz | head -1) &&
	raw "$f" >g.raw &&
	grep -E "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $PWD/g6002 [0-9a-f]* ?\[FN\]\[FL\]\[LN\]\$" g.raw &&
	for fn in burnAlpha burnBeta; do
		set -- $(lines_of $fn) &&
		go tool pprof -list "^main\.$fn\$" "$f" >$fn.list 2>/dev/null &&
		cat $fn.list &&
		grep "ROUTINE =* main\.$fn in $PWD/g6002\.go\$" $fn.list &&
		hot=$(sed -n "s/^ *[0-9][0-9.]*m\{0,1\}s .* \([0-9][0-9]*\):.*/\1/p" \
		    $fn.list) &&
		echo "$fn: lines $1-$2, samples at: $hot" &&
		test -n "$hot" &&
		for l in $hot; do
			test "$l" -ge "$1" && test "$l" -le "$2" || return 1
		done || return 1
	done &&
	grep -E "^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ main\.burnAlpha $PWD/g6002\.go:[0-9]+ s=0\$" g.raw
'

# loc_line FUNC: the line of FUNC's location in g.raw, in its range.
loc_line () {
	set -- "$1" $(lines_of "$1") &&
	l=$(sed -n "s|^ *[0-9]*: 0x[0-9a-f]* M=[0-9]* main\.$1 $PWD/g6002\.go:\([0-9]*\) s=0\$|\1|p" \
	    g.raw | head -1) &&
	echo "$1: lines $2-$3, its location at $l" &&
	test -n "$l" && test "$l" -ge "$2" && test "$l" -le "$3"
}

test_expect_success ROOT,BPF,GO 'go: an inlined function has its own file and lines' '
	loc_line triple &&
	loc_line burnBeta &&
	loc_line burnAlpha
'

test_expect_success ROOT,BPF,DEB,GO 'folded files keep their readable names, Go'"'"'s too' '
	folded cpu g6002 >g.folded &&
	grep -q ";main\.burnBeta;main\.triple " g.folded &&
	! grep -q "g6002\.go" g.folded
'

test_expect_success ROOT,BPF,DEB 'folded files keep their readable names' '
	folded cpu y6002-deb >y.folded &&
	grep -q ";burn_for (pywork\.py:$line)" y.folded &&
	folded cpu b6002 >b.folded &&
	grep -q "^b6002;.*main;work;burn_a " b.folded
'

test_expect_success ROOT,BPF,DEB,PPROF_FORMAT 'the pprof-format package reads them and writes them back the same' '
	for f in out/cpu/b6002/*.pb.gz out/offcpu/w6002/*.pb.gz \
	    out/cpu/y6002-deb/*.pb.gz; do
		NODE_PATH=$(npm root -g) node \
		    "$EBPFSPY_SOURCE_DIR/t/helper/pprof_roundtrip.js" "$f" ||
		return 1
	done >rt.out &&
	cat rt.out &&
	! grep -v "^mappings [1-9][0-9]* locations [1-9]" rt.out
'

test_done
