#!/bin/sh
test_description='a sanitizer report in the daemon'\''s log fails the
script (make check-sanitized): a fake ebpfspyd that is ready, then
prints what UBSan prints and aborts, as halt_on_error and
abort_on_error make it; the tests of an inner script that use it pass,
and yet the script fails'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'a fake daemon that UBSan stops' '
	mkdir bin inner &&
	cat >bin/ebpfspyd <<-\EOF &&
	#!/bin/sh
	echo "ready: fake"
	trap "echo \"src/x.c:1:2: runtime error: applying zero offset to null pointer\"; echo \"SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior src/x.c:1:2\"; kill -ABRT \$\$" TERM
	while :; do sleep 1; done
	EOF
	chmod +x bin/ebpfspyd &&
	cat >inner/t-inner.sh <<-EOF
	#!/bin/sh
	test_description="inner"
	. "$TEST_DIRECTORY/test-lib.sh"
	. "$TEST_DIRECTORY/lib-daemon.sh"
	test_expect_success "start" "daemon_start"
	test_expect_success "stop, whatever its status" "daemon_stop || :"
	test_done
	EOF
'

run_inner () {
	(
		unset EBPFSPY_TEST_OPTS &&
		EBPFSPY_BUILD_DIR=$TRASH_DIRECTORY/bin \
		    sh inner/t-inner.sh --root="$TRASH_DIRECTORY/inner"
	) >inner.out 2>&1
}

test_expect_success 'its report fails the script that passed its tests' '
	test_must_fail run_inner &&
	cat inner.out &&
	grep "^ok 1 - start" inner.out &&
	grep "^ok 2 - stop" inner.out &&
	grep "^not ok 3 - no sanitizer report in a daemon.s log" inner.out &&
	grep "^#.*runtime error: applying zero offset to null pointer" \
	    inner.out
'

test_expect_success 'without a report it passes' '
	sed -i "/^trap/d" bin/ebpfspyd &&
	run_inner &&
	grep "^# passed all 2 test(s)" inner.out
'

test_done
