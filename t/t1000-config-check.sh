#!/bin/sh
test_description='ebpfspyd -n: check a good configuration, -n -v dumps it'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup' '
	cat >good.conf <<-\END &&
	; a comment
	# another

	[daemon]
	collect_interval = 7

	[profile]
	cpu = no
	offcpu = yes
	sample_rate = 1234
	offcpu_states = interruptible
	pid_map_entries = 2048

	[symbols]
	demangle = none

	[output]
	dir = /var/tmp/profiles
	folded = off
	END
	echo "configuration OK" >ok.expect
'

test_expect_success '-n on a good configuration' '
	ebpfspyd -n -c good.conf >out 2>err &&
	test_cmp ok.expect out &&
	test_must_be_empty err
'

test_expect_success '-n on an empty configuration' '
	: >empty.conf &&
	ebpfspyd -n -c empty.conf >out 2>err &&
	test_cmp ok.expect out &&
	test_must_be_empty err
'

test_expect_success '-n on the example configuration of the source tree' '
	ebpfspyd -n -c "$EBPFSPY_BUILD_DIR/conf/ebpfspy.conf" >out 2>err &&
	test_cmp ok.expect out &&
	test_must_be_empty err
'

test_expect_success '-n -v dumps the effective configuration, then OK' '
	ebpfspyd -n -v -c good.conf >out 2>err &&
	test_must_be_empty err &&
	tail -n 1 out >last &&
	test_cmp ok.expect last &&
	grep "^collect_interval = 7	; " out &&
	grep "^sample_rate = 1234	; " out &&
	grep "^cpu = no	; " out &&
	grep "^offcpu = yes	; " out &&
	grep "^offcpu_states = interruptible	; " out &&
	grep "^pid_map_entries = 2048	; .*, restart$" out &&
	grep "^sample_rate = .*, live$" out &&
	grep "^demangle = none	; " out &&
	grep "^dir = /var/tmp/profiles	; " out &&
	grep "^folded = no	; " out &&
	# Keys not in the file show their defaults.
	grep "^collect_user = yes	; " out &&
	grep "^ringbuf_kb = 256	; " out
'

test_expect_success 'the dump is a configuration that loads to the same' '
	ebpfspyd -n -v -c good.conf >out &&
	sed "\$d" out >dump.conf &&
	ebpfspyd -n -v -c dump.conf >out2 &&
	test_cmp out out2
'

test_expect_success 'every key appears in the dump, each section once' '
	ebpfspyd -n -v -c empty.conf >out &&
	grep "^\[" out | sort | uniq -d >twice &&
	test_must_be_empty twice &&
	grep "^\[daemon\]$" out &&
	grep "^\[profile\]$" out &&
	grep "^\[symbols\]$" out &&
	grep "^\[output\]$" out &&
	grep "^\[targets\]$" out
'

test_expect_success '-o overrides the output directory, made absolute' '
	ebpfspyd -n -v -c good.conf -o /srv/elsewhere >out &&
	grep "^dir = /srv/elsewhere	; " out &&
	ebpfspyd -n -v -c good.conf -o rel/dir >out &&
	grep "^dir = $(pwd)/rel/dir	; " out
'

test_expect_success '-n checks without starting anything' '
	ebpfspyd -n -c good.conf -p "$TRASH_DIRECTORY/pid" \
	    -o "$TRASH_DIRECTORY/profiles" >out &&
	test_cmp ok.expect out &&
	test_path_is_missing pid &&
	test_path_is_missing profiles
'

test_done
