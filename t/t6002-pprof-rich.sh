#!/bin/sh
test_description='pprof files as the best agents write them

What the daemon writes decodes with protoc against profile.proto; go
tool pprof reads mappings (the program first, with its path and build
id), addresses in the files'"'"' terms, the kernel'"'"'s own mapping,
mangled names apart from demangled ones, source files and lines (Python
frames: one function per Python function, lines on its locations), and
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

test_expect_success ROOT,BPF,DEB 'profile native, off-CPU and Python workloads' '
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
	daemon_stop &&
	ls out/cpu/b6002/*.pb.gz out/offcpu/w6002/*.pb.gz out/cpu/y6002-deb/*.pb.gz
'
test_done
