#!/bin/sh
test_description='Python line tables: the decoders agree with CPython

For every code object of a few stdlib modules, each interpreter prints
its line table and the line it gives each instruction (co_lines(), or
dis.findlinestarts() before 3.10); src/python/pysym.c must give the same line
for every instruction: co_lnotab (3.8, 3.9), co_linetable (3.10) and
the location table (3.11+).'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-python.sh"

for n in $PYTHON_ALL; do
	P=$(echo $n | tr a-z A-Z)
	test_expect_success $P "$n: every instruction's line" '
		"$(python_path $n)" "$EBPFSPY_SOURCE_DIR/t/helper/pylines.py" \
		    argparse typing dis json.decoder asyncio.base_events \
		    >$n.tables &&
		pylines <$n.tables >$n.check &&
		cat $n.check &&
		grep " 0 mismatched\$" $n.check
	'
done

test_done
