# test-lib.sh: the shell test library of ebpfspy, in the manner of git's
# t/test-lib.sh.  A test script is
#
#	#!/bin/sh
#	test_description='what this script covers'
#	. "$(dirname "$0")/test-lib.sh"
#	test_expect_success 'description' 'commands'
#	test_expect_success ROOT,BPF 'description' 'commands'
#	test_done
#
# and prints TAP, for automake's TAP driver (make check) and for prove.
#
# Where things are:
#   EBPFSPY_SOURCE_DIR	the source tree; default: the parent of the
#			directory holding the script.
#   EBPFSPY_BUILD_DIR	the build tree; default: $EBPFSPY_SOURCE_DIR/build
#			if it holds an ebpfspyd binary, else
#			$EBPFSPY_SOURCE_DIR (an in-tree build).
# `make check' sets both.  The build tree and its t/helper come first on
# PATH, so `ebpfspyd' is the binary under test.  Each script runs in its
# own empty "trash directory.<script>" under the build tree's t/, removed
# when every test passed.
#
# Options (also taken from $EBPFSPY_TEST_OPTS):
#   -v, --verbose	show the output of the tests' commands (on stderr);
#			otherwise it is hidden, and shown as TAP comments
#			only when a test fails
#   -x		trace the tests' commands (implies -v)
#   -d, --debug	keep the trash directory even when all tests pass
#   -i, --immediate	stop at the first failing test
#   --root=DIR	create the trash directory in DIR
#
# Prerequisites: ROOT (uid 0), BPF (root, and the bpf() syscall works),
# GO, PYTHON3, CLANG; scripts add their own with test_lazy_prereq or
# test_set_prereq.  A test whose prerequisites are missing is skipped --
# except that with EBPFSPY_REQUIRE_BPF=1 (as CI runs) a test skipped for
# want of ROOT or BPF fails instead, so a broken CI machine cannot pass
# by skipping.

LC_ALL=C
LANG=C
TZ=UTC
export LC_ALL LANG TZ
unset CDPATH

test_bug_=
test_done_=
test_atexit_cleanup_=
test_verbose_=
test_trace_=
test_debug_=
test_immediate_=
test_root_=

# shellcheck disable=SC2086	# split EBPFSPY_TEST_OPTS on purpose
for test_arg_ in "$@" ${EBPFSPY_TEST_OPTS-}; do
	case $test_arg_ in
	-v|--verbose)		test_verbose_=t ;;
	-x)			test_trace_=t; test_verbose_=t ;;
	-d|--debug)		test_debug_=t ;;
	-i|--immediate)		test_immediate_=t ;;
	--root=*)		test_root_=${test_arg_#--root=} ;;
	-h|--help)
		echo "usage: $0 [-dixv] [--root=dir]"
		echo "$test_description"
		exit 0 ;;
	*)
		echo "Bail out! $0: unknown option: $test_arg_"
		exit 1 ;;
	esac
done
unset test_arg_

# Internal errors of a test script (a misuse of this library).
# The exit trap reports it to the harness.
BUG () {
	test_bug_=$*
	echo >&2 "BUG in $0: $*"
	exit 1
}

# The process ends without test_done: an `exit' in a test or in the
# script, or a signal.  Clean up and make sure the harness sees an error.
test_exit_trap_ () {
	test -n "$test_done_" && return 0
	test_done_=t
	test -n "$test_atexit_cleanup_" && test_atexit_run_
	if test -n "$test_bug_"; then
		echo "Bail out! BUG in $0: $test_bug_"
	else
		echo "Bail out! $0 exited before test_done (status $1)"
	fi
	test "$1" = 0 && exit 1
	exit "$1"
}

test_signal_trap_ () {
	test -n "$test_atexit_cleanup_" && test_atexit_run_
	exit "$1"
}

trap 'test_exit_trap_ $?' EXIT
trap 'test_signal_trap_ 129' HUP
trap 'test_signal_trap_ 130' INT
trap 'test_signal_trap_ 143' TERM

if test -z "${TEST_DIRECTORY-}"; then
	TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd) ||
		BUG "cannot find the directory of $0"
fi
if test -z "${EBPFSPY_SOURCE_DIR-}"; then
	EBPFSPY_SOURCE_DIR=$(cd "$TEST_DIRECTORY/.." && pwd) ||
		BUG "cannot find the source directory"
fi
if test -z "${EBPFSPY_BUILD_DIR-}"; then
	if test -x "$EBPFSPY_SOURCE_DIR/build/ebpfspyd"; then
		EBPFSPY_BUILD_DIR=$EBPFSPY_SOURCE_DIR/build
	else
		EBPFSPY_BUILD_DIR=$EBPFSPY_SOURCE_DIR
	fi
fi
export TEST_DIRECTORY EBPFSPY_SOURCE_DIR EBPFSPY_BUILD_DIR

test_path_=$EBPFSPY_BUILD_DIR:$EBPFSPY_BUILD_DIR/t/helper
if test "$EBPFSPY_SOURCE_DIR" != "$EBPFSPY_BUILD_DIR"; then
	# Scripted helpers (t/helper/*.py, *.sh) are not copied.
	test_path_=$test_path_:$EBPFSPY_SOURCE_DIR/t/helper
fi
PATH=$test_path_:$PATH
export PATH
unset test_path_

this_test=$(basename "$0" .sh)
TEST_ROOT=${test_root_:-$EBPFSPY_BUILD_DIR/t}
TRASH_DIRECTORY="$TEST_ROOT/trash directory.$this_test"
export TRASH_DIRECTORY

test_count=0
test_success=0
test_failure=0
test_broken=0
test_fixed=0
test_skipped=0
test_in_body_=
test_output_=$TRASH_DIRECTORY/.test-output
test_prereq_ok_=' '
test_prereq_missing_=' '
test_missing_prereq_=
test_missing_required_=
skip_all=

rm -rf "$TRASH_DIRECTORY" ||
	BUG "cannot remove the old $TRASH_DIRECTORY"
mkdir -p "$TRASH_DIRECTORY" && cd "$TRASH_DIRECTORY" ||
	BUG "cannot create $TRASH_DIRECTORY"

# Prerequisites -----------------------------------------------------------

# test_set_prereq NAME: declare NAME satisfied.
test_set_prereq () {
	case $1 in
	''|*[!A-Z0-9_]*)
		BUG "bad prerequisite name: $1" ;;
	esac
	test_prereq_ok_="$test_prereq_ok_$1 "
}

# test_lazy_prereq NAME 'script': NAME is satisfied if the script, run in
# a subshell in the trash directory the first time NAME is asked for,
# succeeds.
test_lazy_prereq () {
	test $# = 2 || BUG "test_lazy_prereq NAME 'script'"
	case $1 in
	''|*[!A-Z0-9_]*)
		BUG "bad prerequisite name: $1" ;;
	esac
	eval "test_lazy_prereq_$1=\$2"
}

test_check_prereq_ () {
	case $test_prereq_ok_ in *" $1 "*) return 0 ;; esac
	case $test_prereq_missing_ in *" $1 "*) return 1 ;; esac
	eval "test_script_=\${test_lazy_prereq_$1-}"
	if test -n "$test_script_" &&
	    (cd "$TRASH_DIRECTORY" && eval "$test_script_") </dev/null \
	    >/dev/null 2>&1; then
		test_prereq_ok_="$test_prereq_ok_$1 "
		return 0
	fi
	test_prereq_missing_="$test_prereq_missing_$1 "
	return 1
}

# test_have_prereq PREREQ[,PREREQ...]: all are satisfied.  !NAME means
# NAME must be missing.  The missing ones are left in
# $test_missing_prereq_, those that EBPFSPY_REQUIRE_BPF=1 forbids to miss
# in $test_missing_required_.
test_have_prereq () {
	test_missing_prereq_=
	test_save_ifs_=$IFS
	IFS=,
	set -- $*
	IFS=$test_save_ifs_
	for test_p_; do
		case $test_p_ in
		!*)
			test_name_=${test_p_#!}
			test_want_= ;;
		*)
			test_name_=$test_p_
			test_want_=t ;;
		esac
		case $test_name_ in
		''|*[!A-Z0-9_]*)
			BUG "bad prerequisite name: $test_p_" ;;
		esac
		if test_check_prereq_ "$test_name_"; then
			test_got_=t
		else
			test_got_=
		fi
		test "$test_got_" = "$test_want_" && continue
		test_missing_prereq_=$test_missing_prereq_${test_missing_prereq_:+,}$test_p_
		if test -n "$test_want_"; then
			case $test_name_ in
			ROOT|BPF)
				test_missing_required_=$test_name_ ;;
			esac
		fi
	done
	test -z "$test_missing_prereq_"
}

test_lazy_prereq ROOT 'test "$(id -u)" = 0'
# Listing programs asks the kernel through bpf(); it fails without the
# capability, or where a seccomp filter or lockdown refuses bpf().
test_lazy_prereq BPF '
	test "$(id -u)" = 0 &&
	PATH=$PATH:/usr/sbin:/sbin &&
	{ bpftool prog list || bpftool feature probe kernel; } >/dev/null
'
test_lazy_prereq GO 'go version'
test_lazy_prereq PYTHON3 'python3 -c "import sys; sys.exit(sys.version_info[0] != 3)"'
test_lazy_prereq CLANG 'clang --version'

# Running tests ------------------------------------------------------------

# Evaluate a test's commands in this shell, stdin from /dev/null, output
# hidden (kept for the failure report) unless verbose.
test_eval_ () {
	if test -n "$test_verbose_"; then
		test_eval_inner_ "$1" </dev/null >&2
	else
		test_eval_inner_ "$1" </dev/null >>"$test_output_" 2>&1
	fi
}

test_eval_inner_ () {
	test -n "$test_trace_" && set -x
	eval "$1"
	test_eval_ret_=$?
	{ set +x; } 2>/dev/null
	return $test_eval_ret_
}

# Run the body, then what test_when_finished registered; 0 if all passed.
test_run_ () {
	test_cleanup_=
	test_cleanup_failed_=
	test_in_body_=t
	: >"$test_output_"
	test_eval_ "$1"
	test_body_ret_=$?
	test_in_body_=
	if test -n "$test_cleanup_"; then
		test_eval_ "$test_cleanup_"
	fi
	test "$test_body_ret_" = 0 && test -z "$test_cleanup_failed_"
}

test_start_ () {
	test_count=$((test_count + 1))
}

# Shows what failed: the commands, then their output.
test_report_failure_ () {
	echo "$1" | sed 's/^/#	/'
	if test -z "$test_verbose_" && test -s "$test_output_"; then
		echo "# output:"
		sed 's/^/#	/' "$test_output_"
	fi
}

test_failed_ () {
	test_failure=$((test_failure + 1))
	echo "not ok $test_count - $1"
	test_report_failure_ "$2"
	if test -n "$test_immediate_"; then
		test_done_=t
		test_atexit_run_
		echo "# stopped at the first failure (-i); trash directory kept"
		exit 1
	fi
}

# Decide whether to skip; 0 if the test was reported (skipped, or failed
# for a missing prerequisite that may not be missing).
test_skip_ () {
	test -z "$2" && return 1
	test_missing_required_=
	test_have_prereq "$2" && return 1
	if test "${EBPFSPY_REQUIRE_BPF-}" = 1 &&
	    test -n "$test_missing_required_"; then
		test_failure=$((test_failure + 1))
		echo "not ok $test_count - $1 (missing prerequisite" \
		    "$test_missing_required_, and EBPFSPY_REQUIRE_BPF=1" \
		    "forbids skipping)"
		return 0
	fi
	test_skipped=$((test_skipped + 1))
	echo "ok $test_count # skip $1 (missing $test_missing_prereq_)"
	return 0
}

# test_expect_success [PREREQ[,PREREQ...]] 'description' 'commands'
test_expect_success () {
	test_prereq_=
	test $# = 3 && { test_prereq_=$1; shift; }
	test $# = 2 ||
		BUG "test_expect_success [PREREQ] 'description' 'commands'"
	test_start_
	test_skip_ "$1" "$test_prereq_" && return 0
	if test_run_ "$2"; then
		test_success=$((test_success + 1))
		echo "ok $test_count - $1"
	else
		test_failed_ "$1" "$2"
	fi
}

# test_expect_failure [PREREQ] 'description' 'commands': a known bug.
test_expect_failure () {
	test_prereq_=
	test $# = 3 && { test_prereq_=$1; shift; }
	test $# = 2 ||
		BUG "test_expect_failure [PREREQ] 'description' 'commands'"
	test_start_
	test_skip_ "$1" "$test_prereq_" && return 0
	if test_run_ "$2"; then
		test_fixed=$((test_fixed + 1))
		echo "ok $test_count - $1 # TODO known breakage vanished"
	else
		test_broken=$((test_broken + 1))
		echo "not ok $test_count - $1 # TODO known breakage"
	fi
}

# test_when_finished 'commands': run after the current test, whether it
# passed or not; registered commands run last first, and a failure among
# them fails the test.
test_when_finished () {
	test -n "$test_in_body_" ||
		BUG "test_when_finished outside a test"
	test_cleanup_="{ $*
} || test_cleanup_failed_=t
$test_cleanup_"
}

# test_atexit 'commands': run when the script ends, by test_done, an
# unexpected exit or a signal; last registered first.
test_atexit () {
	test_atexit_cleanup_="{ $*
} || :
$test_atexit_cleanup_"
}

test_atexit_run_ () {
	test -z "$test_atexit_cleanup_" && return 0
	test_script_=$test_atexit_cleanup_
	test_atexit_cleanup_=
	if test -n "$test_verbose_"; then
		(cd "$TRASH_DIRECTORY" 2>/dev/null; eval "$test_script_") \
		    </dev/null >&2
	else
		(cd "$TRASH_DIRECTORY" 2>/dev/null; eval "$test_script_") \
		    </dev/null >/dev/null 2>&1
	fi
}

# What ASan, UBSan and LSan print when they find something.
TEST_SANITIZER_ERE='^==[0-9]+==ERROR: |: runtime error: |^SUMMARY: [A-Za-z]+Sanitizer'

# A sanitizer report that lib-daemon.sh found in a daemon's log fails
# the script, as one test more: the daemon may have died of it after
# the tests that it served had passed.
test_sanitizer_check_ () {
	test -s "$TRASH_DIRECTORY/sanitizer.log" || return 0
	test_count=$((test_count + 1))
	test_failure=$((test_failure + 1))
	echo "not ok $test_count - no sanitizer report in a daemon's log"
	grep -E -B2 -A20 "$TEST_SANITIZER_ERE" \
	    "$TRASH_DIRECTORY/sanitizer.log" | head -n 60 | sed 's/^/#	/'
}

test_done () {
	test -n "$test_in_body_" && BUG "test_done inside a test"
	test_done_=t
	test_atexit_run_
	test_sanitizer_check_
	if test -n "$skip_all" && test "$test_count" = 0; then
		if test "${EBPFSPY_REQUIRE_BPF-}" = 1 &&
		    test -n "$test_missing_required_"; then
			echo "not ok 1 - $this_test: $skip_all (missing" \
			    "prerequisite $test_missing_required_, and" \
			    "EBPFSPY_REQUIRE_BPF=1 forbids skipping)"
			echo "1..1"
			exit 1
		fi
		echo "1..0 # SKIP $skip_all"
		test_remove_trash_
		exit 0
	fi
	echo "1..$test_count"
	if test "$test_fixed" != 0; then
		echo "# $test_fixed known breakage(s) vanished; update the test(s)"
	fi
	if test "$test_broken" != 0; then
		echo "# still have $test_broken known breakage(s)"
	fi
	if test "$test_failure" != 0; then
		echo "# failed $test_failure among $test_count test(s);" \
		    "trash directory kept: $TRASH_DIRECTORY"
		exit 1
	fi
	echo "# passed all $test_count test(s)"
	test_remove_trash_
	exit 0
}

test_remove_trash_ () {
	test -n "$test_debug_" && return 0
	cd "$TEST_ROOT" && rm -rf "$TRASH_DIRECTORY" ||
		echo "# warning: cannot remove $TRASH_DIRECTORY"
}

# Helpers for test bodies ----------------------------------------------

# test_must_fail command [args...]: the command must exit non-zero -- but
# neither die from a signal (a crash is not the failure a test wants) nor
# be missing.
test_must_fail () {
	"$@"
	test_ret_=$?
	if test $test_ret_ = 0; then
		echo >&2 "test_must_fail: command succeeded: $*"
		return 1
	elif test $test_ret_ -gt 128; then
		echo >&2 "test_must_fail: died by signal" \
		    "$((test_ret_ - 128)): $*"
		return 1
	elif test $test_ret_ = 127; then
		echo >&2 "test_must_fail: command not found: $*"
		return 1
	elif test $test_ret_ = 126; then
		echo >&2 "test_must_fail: cannot execute: $*"
		return 1
	fi
	return 0
}

# test_expect_code N command [args...]: the command must exit with N.
test_expect_code () {
	test_want_code_=$1
	shift
	"$@"
	test_ret_=$?
	test $test_ret_ = "$test_want_code_" && return 0
	echo >&2 "test_expect_code: exit status $test_ret_, wanted" \
	    "$test_want_code_: $*"
	return 1
}

# test_cmp expected actual
test_cmp () {
	test $# = 2 || BUG "test_cmp expected actual"
	diff -u "$1" "$2"
}

# test_line_count OP N file: e.g. test_line_count = 3 out
test_line_count () {
	test $# = 3 || BUG "test_line_count OP N file"
	test_lines_=$(wc -l <"$3") || return 1
	test "$test_lines_" "$1" "$2" && return 0
	echo >&2 "test_line_count: $3 has $test_lines_ line(s), wanted $1 $2:"
	cat >&2 "$3"
	return 1
}

test_path_is_file () {
	test -f "$1" && return 0
	echo >&2 "not a file: $1"
	return 1
}

test_path_is_dir () {
	test -d "$1" && return 0
	echo >&2 "not a directory: $1"
	return 1
}

test_path_is_missing () {
	test -e "$1" || test -L "$1" || return 0
	echo >&2 "exists: $1"
	return 1
}

# test_must_be_empty file
test_must_be_empty () {
	test -f "$1" || { echo >&2 "missing: $1"; return 1; }
	test -s "$1" || return 0
	echo >&2 "not empty: $1:"
	cat >&2 "$1"
	return 1
}
