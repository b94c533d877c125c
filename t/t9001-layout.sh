#!/bin/sh
test_description='the shape of src/: folders in pipeline order

Each folder of src/ includes only its own headers, util/ and the folders
below it in the pipeline (util, proc, session, sym, python, unwind,
profile, push, sink, round, metrics, then the top of src/), with one
exception, config.h (README, "Architecture"); no circle between
folders; only session calls libbpf on the daemon'"'"'s maps; only the
top modules live directly in src/.'
. "$(dirname "$0")/test-lib.sh"

layout () {
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/layout.py" "$@"
}

test_expect_success PYTHON3 'src/ keeps its shape' '
	layout "$EBPFSPY_SOURCE_DIR/src" check >out 2>&1 ||
	{ cat out; false; } &&
	test_must_be_empty out
'

test_expect_success PYTHON3 'the check finds an include that goes up' '
	mkdir -p src/util src/sink &&
	echo "#include \"sink/sinks.h\"" >src/util/log.c &&
	: >src/sink/sinks.h &&
	test_expect_code 1 layout src check >out &&
	grep "^util/log.c: includes sink/sinks.h, a folder above util\$" out
'

test_expect_success PYTHON3 'the check finds a libbpf call outside session' '
	rm -rf src && mkdir -p src/round &&
	printf "void f(void) { bpf_map_lookup_elem(fd, k, v); }\n" \
	    >src/round/pids.c &&
	test_expect_code 1 layout src check >out &&
	grep "^round/pids.c: calls libbpf (bpf_map_lookup_elem); only session may\$" out
'

test_expect_success PYTHON3 'the check finds a circle' '
	rm -rf src && mkdir -p src/sym src/proc &&
	echo "#include \"proc/proc.h\"" >src/sym/a.c &&
	echo "#include \"sym/a.h\"" >src/proc/proc.c &&
	: >src/sym/a.h && : >src/proc/proc.h &&
	test_expect_code 1 layout src check >out &&
	grep "^circle: " out
'

test_done
