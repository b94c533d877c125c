#!/bin/sh
test_description='Pyroscope secrets in files of their own

The password, the bearer token and header values can live in files
readable by the daemon alone, not in ebpfspy.conf: the mock server
checks the values the sink read from them; a file that cannot be read
is a config error at its line; what the files hold is never logged.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-pyroscope.sh"

test_expect_success PYTHON3 'start the mock: basic auth and a header' '
	mock_start --basic "alice:pw-in-a-file" \
	    --header "X-Token: tok-in-a-file"
'

test_expect_success PYTHON3 'the password and the header come from files' '
	printf "pw-in-a-file\n" >pw &&
	printf "  tok-in-a-file \n" >tok &&
	chmod 600 pw tok &&
	cat >push.conf <<-EOF &&
	[pyroscope]
	url = $MOCK_URL
	spool_dir = $TRASH_DIRECTORY/spool
	basic_auth_user = alice
	basic_auth_password_file = $TRASH_DIRECTORY/pw
	header_file.X-Token = $TRASH_DIRECTORY/tok
	EOF
	pyroscope_driver -v -c push.conf -i 0.2 -r 2 -n 1 -t cpu \
	    >driver.out 2>driver.err &&
	test "$(driver_stat ok)" = 2 &&
	test "$(mock_log_count "\"status\": 200")" = 2 &&
	! grep -e "-in-a-file" driver.err
'

test_expect_success PYTHON3 'a wrong header value is refused by the server' '
	printf "stale\n" >tok &&
	: >mock.log &&
	pyroscope_driver -v -c push.conf -i 0.2 -r 1 -n 1 -t cpu \
	    >driver.out 2>driver.err &&
	test "$(driver_stat ok)" = 0 &&
	test "$(mock_log_count "\"status\": 400")" = 1 &&
	! grep -e "stale" -e "-in-a-file" driver.err
'

test_expect_success 'a file that cannot be read is an error at its line' '
	cat >bad.conf <<-EOF &&
	[pyroscope]
	url =
	header_file.X-Token = $TRASH_DIRECTORY/missing
	bearer_token_file = $TRASH_DIRECTORY
	EOF
	test_must_fail ebpfspyd -n -c bad.conf 2>err &&
	grep "^bad.conf:3: \[pyroscope\] header_file.X-Token: .*/missing: No such file or directory\$" err &&
	grep "^bad.conf:4: \[pyroscope\] bearer_token_file: .*: Is a directory\$" err
'

test_expect_success '-n -v names the files, not what they hold' '
	printf "tok-in-a-file\n" >tok &&
	ebpfspyd -n -v -c push.conf >dump 2>&1 &&
	grep "^header_file.X-Token = $TRASH_DIRECTORY/tok\$" dump &&
	grep "^basic_auth_password_file = $TRASH_DIRECTORY/pw" dump &&
	! grep -e "-in-a-file" dump
'

test_expect_success PYTHON3 'cleanup' '
	mock_stop
'

test_done
