#!/bin/sh
test_description='every shell script of the tree parses

The benchmarks, tools, CI and tests are run by hand or by CI only now
and then: a script its shell cannot parse (a merge that lost a closing
brace) would go unseen until a benchmark is run.  Each is read by the
shell of its #! line with -n, and bench/lib-bench.sh, which is sourced,
by bash.'
. "$(dirname "$0")/test-lib.sh"

# "shell file" for each script: the shell named by its first line.
scripts () (
	cd "$EBPFSPY_SOURCE_DIR" &&
	for f in .ci/run bench/*.sh tools/*.sh t/*.sh; do
		test -f "$f" || continue
		case $(sed -n 1p "$f") in
		*bash*)	echo "bash $f" ;;
		'#!/bin/sh'*)	echo "sh $f" ;;
		*)	case $f in
			bench/lib-*|bench/*)	echo "bash $f" ;;
			*)	echo "sh $f" ;;
			esac ;;
		esac
	done
)

test_expect_success 'the scripts are found' '
	scripts >list &&
	grep -q "^bash bench/lib-bench.sh\$" list &&
	test $(wc -l <list) -ge 40
'

test_expect_success 'each parses with its shell' '
	bad= &&
	while read -r shell f; do
		(cd "$EBPFSPY_SOURCE_DIR" && $shell -n "$f") 2>err ||
		{ cat err; bad="$bad $f"; }
	done <list &&
	echo "unparsable:${bad:- none}" &&
	test -z "$bad"
'

test_done
