#!/bin/sh
test_description='the shape of src/: folders in pipeline order

Each folder of src/ includes only its own headers and those of the
folders below it in the pipeline (config, util, proc, elf, session,
sym, runtime, python, unwind, profile, push, sink, round, metrics, then
the top of src/), with no exception: config/ is the contract and includes nothing
(README, "Architecture"); no circle between folders, nor between
modules through config, reload or watch; only session calls libbpf on
the daemon'"'"'s maps; only the top modules live directly in src/; no
comment names a src/ file that is not there; no file of src/ or bpf/
over 700 lines.'
. "$(dirname "$0")/test-lib.sh"

layout () {
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/layout.py" "$@"
}

test_expect_success PYTHON3 'src/ keeps its shape' '
	layout "$EBPFSPY_SOURCE_DIR/src" check >out 2>&1 ||
	{ cat out; false; } &&
	test_must_be_empty out
'

test_expect_success PYTHON3 'the report counts no circle and no upward edge' '
	layout "$EBPFSPY_SOURCE_DIR/src" report >out &&
	grep "^upward edges: 0\$" out &&
	grep "^circles between folders: 0\$" out &&
	grep "^violations: 0\$" out
'

test_expect_success PYTHON3 'no file of src/ or bpf/ over 700 lines' '
	layout "$EBPFSPY_SOURCE_DIR/src" big
'

test_expect_success PYTHON3 'the check finds an include that goes up' '
	mkdir -p src/util src/sink &&
	echo "#include \"sink/sinks.h\"" >src/util/log.c &&
	: >src/sink/sinks.h &&
	test_expect_code 1 layout src check >out &&
	grep "^util/log.c: includes sink/sinks.h, a folder above util\$" out
'

test_expect_success PYTHON3 'the parser'"'"'s header is no exception' '
	rm -rf src && mkdir -p src/proc &&
	echo "#include \"config.h\"" >src/proc/target.c &&
	: >src/config.h &&
	test_expect_code 1 layout src check >out &&
	grep "^proc/target.c: includes config.h, a folder above proc\$" out
'

test_expect_success PYTHON3 'the contract includes nothing above it' '
	rm -rf src && mkdir -p src/config src/util &&
	echo "#include \"util/log.h\"" >src/config/config.h &&
	: >src/util/log.h &&
	test_expect_code 1 layout src check >out &&
	grep "^config/config.h: includes util/log.h, a folder above config\$" out
'

test_expect_success PYTHON3 'the ELF floor is below the symbolizer' '
	rm -rf src && mkdir -p src/elf src/sym src/unwind &&
	echo "#include \"sym/symfile.h\"" >src/elf/elf.c &&
	echo "#include \"elf/elf.h\"" >src/unwind/unwind_table.c &&
	: >src/sym/symfile.h && : >src/elf/elf.h &&
	test_expect_code 1 layout src check >out &&
	grep "^elf/elf.c: includes sym/symfile.h, a folder above elf\$" out &&
	test_line_count = 1 out
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

test_expect_success PYTHON3 'the check finds a circle through reload' '
	rm -rf src && mkdir src &&
	echo "#include \"reload.h\"" >src/ebpfspyd.c &&
	echo "#include \"ebpfspyd.h\"" >src/reload.c &&
	: >src/reload.h && : >src/ebpfspyd.h &&
	test_expect_code 1 layout src check >out &&
	grep "^module circle: ebpfspyd <-> reload\$" out
'

test_expect_success PYTHON3 'the check finds a comment naming a file not there' '
	rm -rf src && mkdir -p src/sym bpf &&
	printf "/* see src/sym/elf.c and src/elf.c */\nint x;\n" \
	    >src/sym/elf.c &&
	printf "int y; // src/gone.h\n" >bpf/k.h &&
	test_expect_code 1 layout src check >out &&
	grep "^src/sym/elf.c:1: comment names src/elf.c, which does not exist\$" out &&
	grep "^bpf/k.h:1: comment names src/gone.h, which does not exist\$" out &&
	! grep "src/sym/elf.c," out
'

test_expect_success PYTHON3 'big lists a file over 700 lines' '
	rm -rf src bpf && mkdir -p src/util &&
	seq 701 >src/util/log.c && seq 700 >src/util/log.h &&
	test_expect_code 1 layout src big >out &&
	test "$(cat out)" = "src/util/log.c: 701 lines, more than 700"
'

test_done
