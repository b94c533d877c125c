#!/bin/sh

test_description='the test library itself

Runs small test scripts in the trash directory and checks the TAP they
print and their exit status: passing, failing and skipped tests,
prerequisites and EBPFSPY_REQUIRE_BPF, test_when_finished, test_atexit,
test_must_fail, the trash directory, the default paths, and lib-daemon.sh
against a fake daemon.'

. "$(dirname "$0")/test-lib.sh"

# sub_test NAME [VAR=value...] [option...] <script: write NAME.sh from
# the script on stdin and run it; its stdout, stderr and exit status go to
# NAME.out, NAME.err and NAME.status.  The sub-test puts its trash
# directory under sub/ and ignores the options of this script.
sub_test () {
	sub_name_=$1
	shift
	{
		echo "test_description='sub-test $sub_name_'"
		echo '. "$TEST_DIRECTORY/test-lib.sh"'
		cat
	} >"$sub_name_.sh" &&
	(
		unset EBPFSPY_TEST_OPTS EBPFSPY_REQUIRE_BPF
		while test $# -gt 0; do
			case $1 in
			*=*)
				export "$1"
				shift ;;
			*)
				break ;;
			esac
		done
		exec sh "$sub_name_.sh" --root="$TRASH_DIRECTORY/sub" "$@" \
		    >"$sub_name_.out" 2>"$sub_name_.err"
	)
	echo $? >"$sub_name_.status"
}

# check_sub NAME STATUS <expected-output
check_sub () {
	echo "$2" >expect.status &&
	test_cmp expect.status "$1.status" &&
	cat >expect.out &&
	test_cmp expect.out "$1.out"
}

test_cmp_status_ () {
	echo "$1" >expect.status &&
	test_cmp expect.status "$2.status"
}

# Whether process $1 runs (a zombie does not).
pid_alive () {
	pid_state_=$(sed -e "s/^.*) \(.\).*\$/\1/" "/proc/$1/stat" \
	    2>/dev/null) &&
	test -n "$pid_state_" && test "$pid_state_" != Z
}

sub_trash () {
	echo "$TRASH_DIRECTORY/sub/trash directory.$1"
}

test_expect_success 'a passing test is ok; all passed: exit 0' '
	sub_test pass <<-\EOF &&
	test_expect_success "first" "true"
	test_expect_success "second" "echo hidden output && true"
	test_done
	EOF
	check_sub pass 0 <<-\EOF &&
	ok 1 - first
	ok 2 - second
	1..2
	# passed all 2 test(s)
	EOF
	test_must_be_empty pass.err
'

test_expect_success 'a failing test is not ok, shows its commands and output' '
	sub_test fail <<-\EOF &&
	test_expect_success "passes" "true"
	test_expect_success "fails" "
		echo to stdout &&
		echo to stderr >&2 &&
		false
	"
	test_expect_success "passes again" "true"
	test_done
	EOF
	check_sub fail 1 <<-EOF
	ok 1 - passes
	not ok 2 - fails
	#	
	#	echo to stdout &&
	#	echo to stderr >&2 &&
	#	false
	#	
	# output:
	#	to stdout
	#	to stderr
	ok 3 - passes again
	1..3
	# failed 1 among 3 test(s); trash directory kept: $(sub_trash fail)
	EOF
'

test_expect_success 'the commands and their output run in the trash directory' '
	sub_test cwd <<-\EOF &&
	test_expect_success "cwd" "
		test \"\$(pwd)\" = \"\$TRASH_DIRECTORY\" &&
		case \$TRASH_DIRECTORY in
		*\"/trash directory.cwd\") ;;
		*) false ;;
		esac &&
		test_path_is_missing stray
	"
	test_done
	EOF
	check_sub cwd 0 <<-\EOF
	ok 1 - cwd
	1..1
	# passed all 1 test(s)
	EOF
'

test_expect_success '-v shows the output (on stderr), -x traces' '
	sub_test verbose -v <<-\EOF &&
	test_expect_success "talks" "echo said-to-stdout && echo said-to-stderr >&2"
	test_done
	EOF
	check_sub verbose 0 <<-\EOF &&
	ok 1 - talks
	1..1
	# passed all 1 test(s)
	EOF
	grep "^said-to-stdout\$" verbose.err &&
	grep "^said-to-stderr\$" verbose.err &&
	! grep "^+ " verbose.err &&
	sub_test trace -x <<-\EOF &&
	test_expect_success "traced" "true traced-word"
	test_done
	EOF
	grep -E "^\\++ true traced-word\$" trace.err
'

test_expect_success 'test_expect_failure: a known breakage, and one fixed' '
	sub_test broken <<-\EOF &&
	test_expect_failure "still broken" "false"
	test_expect_failure "fixed" "true"
	test_done
	EOF
	check_sub broken 0 <<-\EOF
	not ok 1 - still broken # TODO known breakage
	ok 2 - fixed # TODO known breakage vanished
	1..2
	# 1 known breakage(s) vanished; update the test(s)
	# still have 1 known breakage(s)
	# passed all 2 test(s)
	EOF
'

test_expect_success 'missing prerequisites skip a test, and say which' '
	sub_test prereq <<-\EOF &&
	test_set_prereq HAVE
	test_lazy_prereq LAZY_YES "echo >>\"\$TRASH_DIRECTORY/../lazy-ran\""
	test_lazy_prereq LAZY_NO "false"
	test_expect_success HAVE "set" "true"
	test_expect_success NOPE "never set" "false"
	test_expect_success LAZY_YES "lazy, true" "true"
	test_expect_success LAZY_YES,HAVE "lazy again, and set" "true"
	test_expect_success LAZY_NO "lazy, false" "false"
	test_expect_success HAVE,LAZY_NO "one of two missing" "false"
	test_expect_success !LAZY_NO "negated missing" "true"
	test_expect_success !HAVE "negated present" "false"
	test_expect_success "have_prereq" "
		test_have_prereq HAVE,!NOPE &&
		! test_have_prereq NOPE
	"
	test_done
	EOF
	check_sub prereq 0 <<-\EOF &&
	ok 1 - set
	ok 2 # skip never set (missing NOPE)
	ok 3 - lazy, true
	ok 4 - lazy again, and set
	ok 5 # skip lazy, false (missing LAZY_NO)
	ok 6 # skip one of two missing (missing LAZY_NO)
	ok 7 - negated missing
	ok 8 # skip negated present (missing !HAVE)
	ok 9 - have_prereq
	1..9
	# passed all 9 test(s)
	EOF
	# A lazy prerequisite is evaluated once.
	test_line_count = 1 sub/lazy-ran
'

test_expect_success 'ROOT, BPF, GO, PYTHON3 and CLANG are known' '
	sub_test builtin <<-\EOF &&
	for p in ROOT BPF GO PYTHON3 CLANG; do
		test_expect_success $p "$p" "true"
	done
	test_done
	EOF
	test_cmp_status_ 0 builtin &&
	grep -E "^ok [1-5] " builtin.out >builtin.oks &&
	test_line_count = 5 builtin.oks &&
	if test "$(id -u)" = 0; then
		grep "^ok 1 - ROOT\$" builtin.out
	else
		grep "^ok 1 # skip ROOT (missing ROOT)\$" builtin.out &&
		grep "^ok 2 # skip BPF (missing BPF)\$" builtin.out
	fi
'

test_expect_success 'EBPFSPY_REQUIRE_BPF=1 turns a skip for BPF or ROOT into a failure' '
	cat >require.script <<-\EOF &&
	test_lazy_prereq BPF "false"
	test_lazy_prereq ROOT "false"
	test_lazy_prereq OTHER "false"
	test_expect_success BPF "wants BPF" "true"
	test_expect_success ROOT,OTHER "wants ROOT" "true"
	test_expect_success OTHER "wants OTHER" "true"
	test_expect_success !BPF "wants no BPF" "true"
	test_done
	EOF
	sub_test skipped <require.script &&
	check_sub skipped 0 <<-\EOF &&
	ok 1 # skip wants BPF (missing BPF)
	ok 2 # skip wants ROOT (missing ROOT,OTHER)
	ok 3 # skip wants OTHER (missing OTHER)
	ok 4 - wants no BPF
	1..4
	# passed all 4 test(s)
	EOF
	sub_test required EBPFSPY_REQUIRE_BPF=1 <require.script &&
	check_sub required 1 <<-EOF
	not ok 1 - wants BPF (missing prerequisite BPF, and EBPFSPY_REQUIRE_BPF=1 forbids skipping)
	not ok 2 - wants ROOT (missing prerequisite ROOT, and EBPFSPY_REQUIRE_BPF=1 forbids skipping)
	ok 3 # skip wants OTHER (missing OTHER)
	ok 4 - wants no BPF
	1..4
	# failed 2 among 4 test(s); trash directory kept: $(sub_trash required)
	EOF
'

test_expect_success 'skip_all skips a whole script, unless BPF is required' '
	cat >skipall.script <<-\EOF &&
	test_lazy_prereq BPF "false"
	if ! test_have_prereq BPF; then
		skip_all="no BPF here"
		test_done
	fi
	test_expect_success "never run" "false"
	test_done
	EOF
	sub_test skipall <skipall.script &&
	check_sub skipall 0 <<-\EOF &&
	1..0 # SKIP no BPF here
	EOF
	sub_test skipall-required EBPFSPY_REQUIRE_BPF=1 <skipall.script &&
	check_sub skipall-required 1 <<-\EOF
	not ok 1 - skipall-required: no BPF here (missing prerequisite BPF, and EBPFSPY_REQUIRE_BPF=1 forbids skipping)
	1..1
	EOF
'

test_expect_success 'test_when_finished runs after the test, even a failing one' '
	sub_test finished <<-\EOF &&
	test_expect_success "fails" "
		test_when_finished \"echo first >>../order\" &&
		test_when_finished \"echo second >>../order\" &&
		false
	"
	test_expect_success "cleanup failure fails the test" "
		test_when_finished false &&
		true
	"
	test_expect_success "passes" "
		test_when_finished \"echo third >>../order\" &&
		true
	"
	test_done
	EOF
	test_cmp_status_ 1 finished &&
	grep "^not ok 1 - fails\$" finished.out &&
	grep "^not ok 2 - cleanup failure fails the test\$" finished.out &&
	grep "^ok 3 - passes\$" finished.out &&
	# Last registered runs first.
	printf "%s\\n" second first third >expect &&
	test_cmp expect sub/order
'

test_expect_success 'test_must_fail: a failure passes; success, crash, no command fail' '
	sub_test mustfail <<-\EOF &&
	test_expect_success "exit 1" "test_must_fail sh -c \"exit 1\""
	test_expect_success "exit 0" "test_must_fail true"
	test_expect_success "SIGSEGV" "test_must_fail sh -c \"kill -SEGV \\\$\\\$\""
	test_expect_success "SIGABRT" "test_must_fail sh -c \"kill -ABRT \\\$\\\$\""
	test_expect_success "not found" "test_must_fail no-such-command-here"
	test_expect_success "expect_code" "
		test_expect_code 3 sh -c \"exit 3\" &&
		! test_expect_code 3 sh -c \"exit 4\"
	"
	test_done
	EOF
	test_cmp_status_ 1 mustfail &&
	grep -E "^(not )?ok" mustfail.out >actual &&
	cat >expect <<-\EOF &&
	ok 1 - exit 1
	not ok 2 - exit 0
	not ok 3 - SIGSEGV
	not ok 4 - SIGABRT
	not ok 5 - not found
	ok 6 - expect_code
	EOF
	test_cmp expect actual &&
	grep "^#	test_must_fail: died by signal 11: " mustfail.out &&
	grep "^#	test_must_fail: command succeeded: true" mustfail.out
'

test_expect_success 'test_atexit runs at the end, last first' '
	sub_test atexit <<-\EOF &&
	test_atexit "echo one >>../atexit"
	test_expect_success "registers" "test_atexit \"echo two >>../atexit\""
	test_done
	EOF
	test_cmp_status_ 0 atexit &&
	printf "%s\\n" two one >expect &&
	test_cmp expect sub/atexit
'

test_expect_success 'test_atexit runs on an interrupt; the harness sees an error' '
	sub_test interrupt <<-\EOF &&
	test_atexit "echo ran >../interrupted"
	test_expect_success "interrupted" "kill -INT \$\$; sleep 5"
	test_expect_success "never reached" "true"
	test_done
	EOF
	test_cmp_status_ 130 interrupt &&
	echo ran >expect &&
	test_cmp expect sub/interrupted &&
	! grep "^1\\.\\." interrupt.out &&
	# bash, unlike dash, runs the exit trap with the redirections of
	# the test still in place.
	cat interrupt.out "$(sub_trash interrupt)/.test-output" >all &&
	grep "^Bail out! " all
'

test_expect_success 'an exit in the middle of a script is an error' '
	sub_test early <<-\EOF &&
	test_expect_success "fine" "true"
	exit 0
	test_done
	EOF
	test_cmp_status_ 1 early &&
	grep "^Bail out! .*exited before test_done" early.out
'

test_expect_success 'the trash directory: removed if all passed, else kept' '
	test_path_is_missing "$(sub_trash pass)" &&
	test_path_is_dir "$(sub_trash fail)" &&
	sub_test debug -d <<-\EOF &&
	test_expect_success "leaves a file" "echo x >left"
	test_done
	EOF
	test_cmp_status_ 0 debug &&
	test_path_is_file "$(sub_trash debug)/left" &&
	# A new run starts from an empty directory.
	sub_test debug <<-\EOF &&
	test_expect_success "empty" "test_path_is_missing left"
	test_done
	EOF
	test_cmp_status_ 0 debug
'

test_expect_success 'test_cmp, test_line_count and friends' '
	printf "a\\nb\\n" >two &&
	printf "a\\nb\\n" >two.copy &&
	printf "a\\nc\\n" >other &&
	: >empty &&
	test_cmp two two.copy &&
	! test_cmp two other >diff 2>&1 &&
	grep "^-b\$" diff &&
	grep "^+c\$" diff &&
	test_line_count = 2 two &&
	test_line_count -gt 1 two &&
	! test_line_count = 3 two 2>/dev/null &&
	test_must_be_empty empty &&
	! test_must_be_empty two 2>/dev/null &&
	! test_must_be_empty no-such-file 2>/dev/null &&
	test_path_is_file two &&
	test_path_is_dir . &&
	test_path_is_missing no-such-file &&
	! test_path_is_missing two 2>/dev/null
'

# Run by prove or by hand: paths from where the script is.
test_expect_success 'without make check, paths default from the script' '
	mkdir -p tree/t tree/build &&
	cp "$TEST_DIRECTORY/test-lib.sh" tree/t/ &&
	cat >tree/t/t1234-paths.sh <<-\EOF &&
	test_description="paths"
	. "$(dirname "$0")/test-lib.sh"
	test_expect_success "show" "
		echo \"source=\$EBPFSPY_SOURCE_DIR\" >>\"\$EBPFSPY_SOURCE_DIR/paths\" &&
		echo \"build=\$EBPFSPY_BUILD_DIR\" >>\"\$EBPFSPY_SOURCE_DIR/paths\" &&
		echo \"path=\${PATH%%:*}\" >>\"\$EBPFSPY_SOURCE_DIR/paths\"
	"
	test_done
	EOF
	tree=$(cd tree && pwd) &&
	(
		cd / &&
		unset TEST_DIRECTORY EBPFSPY_SOURCE_DIR EBPFSPY_BUILD_DIR \
		    EBPFSPY_TEST_OPTS EBPFSPY_REQUIRE_BPF &&
		sh "$tree/t/t1234-paths.sh" >/dev/null &&
		printf "#!/bin/sh\\n" >"$tree/build/ebpfspyd" &&
		chmod +x "$tree/build/ebpfspyd" &&
		sh "$tree/t/t1234-paths.sh" >/dev/null
	) &&
	cat >expect <<-EOF &&
	source=$tree
	build=$tree
	path=$tree
	source=$tree
	build=$tree/build
	path=$tree/build
	EOF
	test_cmp expect tree/paths &&
	test_path_is_missing "$tree/t/trash directory.t1234-paths" &&
	test_path_is_missing "$tree/build/t/trash directory.t1234-paths"
'

# A fake ebpfspyd for lib-daemon.sh: it logs, says "ready: " after a
# while, logs a reload on SIGHUP and a final round on SIGTERM.
test_expect_success 'set up a fake ebpfspyd' '
	mkdir fake &&
	cat >fake/ebpfspyd <<-\EOF &&
	#!/bin/sh
	echo "args: $*"
	status=0
	for a; do
		case $a in
		--fail)
			echo "fake: cannot start"
			exit 3 ;;
		--hang)
			exec sleep 1000 ;;
		--status=*)
			status=${a#--status=} ;;
		esac
	done
	trap "echo reloading configuration" HUP
	trap "echo SIGTERM, final round; exit \$status" TERM
	sleep 0.3
	echo "ready: fake daemon, pid $$"
	while :; do
		sleep 0.05
	done
	EOF
	chmod +x fake/ebpfspyd
'

test_expect_success 'lib-daemon: start, signals, log waits, stop' '
	sub_test daemon FAKE="$TRASH_DIRECTORY/fake" <<-\EOF &&
	. "$TEST_DIRECTORY/lib-daemon.sh"
	PATH=$FAKE:$PATH
	test_expect_success "start waits for ready" "
		daemon_start -c my.conf &&
		grep \"^ready: \" daemon.log &&
		grep \"^args: -d -c my.conf\\\$\" daemon.log
	"
	test_expect_success "daemon_pid is the daemon" "
		pid=\$(daemon_pid) &&
		grep \"pid \$pid\\\$\" daemon.log &&
		kill -0 \$pid
	"
	test_expect_success "two reloads" "
		daemon_signal HUP &&
		daemon_wait_log \"^reloading\" &&
		daemon_signal SIGHUP &&
		daemon_wait_log_count \"^reloading\" 2 &&
		test \$(grep -c ^reloading daemon.log) = 2
	"
	test_expect_success "a wait for what never comes times out" "
		! daemon_wait_log \"^never\" 1 2>err &&
		grep \"^daemon_wait_log: 0 line(s) match\" err
	"
	test_expect_success "stop" "
		daemon_stop &&
		grep \"^SIGTERM, final round\" daemon.log &&
		! kill -0 \$pid 2>/dev/null
	"
	test_expect_success "stop returns the exit status" "
		daemon_start --status=7 &&
		test_expect_code 7 daemon_stop
	"
	test_expect_success "a daemon that fails to start" "
		echo \"ready: the last daemon\" >daemon.log &&
		! daemon_start --fail 2>err &&
		grep \"exited with status 3 before it was ready\" err &&
		grep \"^fake: cannot start\" err
	"
	test_expect_success "left running" "
		daemon_start &&
		daemon_pid >../left-running
	"
	test_done
	EOF
	check_sub daemon 0 <<-\EOF &&
	ok 1 - start waits for ready
	ok 2 - daemon_pid is the daemon
	ok 3 - two reloads
	ok 4 - a wait for what never comes times out
	ok 5 - stop
	ok 6 - stop returns the exit status
	ok 7 - a daemon that fails to start
	ok 8 - left running
	1..8
	# passed all 8 test(s)
	EOF
	# Killed at the end of the script.
	pid=$(cat sub/left-running) &&
	! pid_alive "$pid"
'

test_expect_success 'lib-daemon: a daemon that is never ready times out' '
	sub_test hang FAKE="$TRASH_DIRECTORY/fake" EBPFSPY_TEST_TIMEOUT=1 <<-\EOF &&
	. "$TEST_DIRECTORY/lib-daemon.sh"
	PATH=$FAKE:$PATH
	test_expect_success "hangs" "daemon_start --hang"
	test_done
	EOF
	test_cmp_status_ 1 hang &&
	grep "^not ok 1 - hangs" hang.out &&
	grep "^#	daemon_start: ebpfspyd --hang not ready after 1 s" hang.out
'

test_done
