#!/bin/sh
test_description='ebpfspyd usage, version and command line errors'
. "$(dirname "$0")/test-lib.sh"

cat >usage.expect <<\END
usage: ebpfspyd [-dhnVv] [-c file] [-l file] [-o dir] [-p pidfile] [-t seconds]
END

test_expect_success '-h prints the usage and a line per flag, exits 0' '
	ebpfspyd -h >out 2>err &&
	head -n 1 out >first &&
	test_cmp usage.expect first &&
	for flag in c d h l n o p t V v; do
		grep "^  -$flag  *[a-z]" out || return 1
	done &&
	test_line_count = 11 out &&
	test_must_be_empty err
'

test_expect_success 'an unknown flag prints the usage to stderr, exits 1' '
	test_expect_code 1 ebpfspyd -X >out 2>err &&
	test_must_be_empty out &&
	tail -n 1 err >err.last &&
	test_cmp usage.expect err.last
'

test_expect_success 'a flag without its argument is a usage error' '
	test_expect_code 1 ebpfspyd -c >out 2>err &&
	test_must_be_empty out &&
	tail -n 1 err >err.last &&
	test_cmp usage.expect err.last
'

test_expect_success 'an operand is a usage error' '
	test_expect_code 1 ebpfspyd -n extra >out 2>err &&
	test_must_be_empty out &&
	test_cmp usage.expect err
'

test_expect_success '-V prints the version of the build' '
	version=$(sed -n "s/^VERSION = //p" "$EBPFSPY_BUILD_DIR/Makefile") &&
	test -n "$version" &&
	echo "ebpfspyd $version" >expect &&
	ebpfspyd -V >out 2>err &&
	test_cmp expect out &&
	test_must_be_empty err
'

for t in 0 -1 x 1x "" 99999999999
do
	test_expect_success "-t '$t' is refused" '
		test_expect_code 1 ebpfspyd -n -t "$t" >out 2>err &&
		test_must_be_empty out &&
		echo "ebpfspyd: -t $t: expected seconds, 1 to 2147483647" \
		    >expect &&
		test_cmp expect err
	'
done

test_done
