#!/bin/sh
test_description='ebpfspyd -n: thousands of errors, 20 lines and a count

A file of 80,000 targets has 78,976 too many: the reader gets the
first 20 errors, one line counting the others, and -n still exits 1
(issue 31, item 10).'
. "$(dirname "$0")/test-lib.sh"

# targets N: a configuration of N targets t0 .. tN-1, two lines each.
targets () {
	awk -v n="$1" "BEGIN { for (i = 0; i < n; i++)
	    printf \"[target \\\"t%d\\\"]\\ncomm = c%d\\n\", i, i }"
}

# unknown N: a [profile] section of N unknown keys k1 .. kN.
unknown () {
	awk -v n="$1" "BEGIN { print \"[profile]\";
	    for (i = 1; i <= n; i++) printf \"k%d = 1\\n\", i }"
}

test_expect_success '80,000 targets: 20 errors, then the 78,956 others counted' '
	targets 80000 >big.conf &&
	test_expect_code 1 ebpfspyd -n -c big.conf >out 2>err &&
	test_must_be_empty out &&
	test_line_count = 21 err &&
	awk "BEGIN { for (i = 1024; i < 1044; i++)
	    printf \"big.conf:%d: [target \\\"t%d\\\"]: too many targets \" \
	    \"(at most 1024)\\n\", 2 * i + 1, i
	    print \"big.conf: and 78956 more errors\" }" >expect &&
	test_cmp expect err &&
	n=$(sed -n "\$s/^big.conf: and \([0-9]*\) more errors\$/\1/p" err) &&
	test $((20 + n)) -eq $((80000 - 1024))
'

test_expect_success '20 errors: all of them, no count' '
	unknown 20 >bad.conf &&
	test_expect_code 1 ebpfspyd -n -c bad.conf 2>err &&
	test_line_count = 20 err &&
	tail -n 1 err >last &&
	echo "bad.conf:21: [profile] k20: unknown key" >expect &&
	test_cmp expect last
'

test_expect_success '21 errors: 20, and one more error' '
	unknown 21 >bad.conf &&
	test_expect_code 1 ebpfspyd -n -c bad.conf 2>err &&
	test_line_count = 21 err &&
	tail -n 2 err >last &&
	printf "%s\n" "bad.conf:21: [profile] k20: unknown key" \
	    "bad.conf: and 1 more error" >expect &&
	test_cmp expect last
'

test_done
