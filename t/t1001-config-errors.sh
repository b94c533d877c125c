#!/bin/sh
test_description='ebpfspyd -n: every configuration error, exactly'
. "$(dirname "$0")/test-lib.sh"

# check_errors 'test name' <<config, then the expected stderr in expect:
# -n exits 1, prints nothing on stdout and exactly the expected lines.
check_errors () {
	test_expect_code 1 ebpfspyd -n -c bad.conf >out 2>err &&
	test_must_be_empty out &&
	test_cmp expect err
}

test_expect_success 'unknown section' '
	printf "[profile]\ncpu = yes\n[bogus]\nx = 1\n" >bad.conf &&
	echo "bad.conf:3: [bogus]: unknown section" >expect &&
	check_errors
'

test_expect_success 'unknown key' '
	printf "[profile]\nnosuch = 1\n" >bad.conf &&
	echo "bad.conf:2: [profile] nosuch: unknown key" >expect &&
	check_errors
'

test_expect_success 'a key in the wrong section' '
	printf "[daemon]\nsample_rate = 97\n" >bad.conf &&
	echo "bad.conf:2: [daemon] sample_rate: unknown key (a key of" \
	    "[profile])" >expect &&
	check_errors
'

test_expect_success 'a misspelt key: did you mean' '
	printf "[daemon]\ncolect_interval = 5\n[profile]\nsampel_rate = 9\n" \
	    >bad.conf &&
	cat >expect <<-\EOF &&
	bad.conf:2: [daemon] colect_interval: unknown key (did you mean collect_interval?)
	bad.conf:4: [profile] sampel_rate: unknown key (did you mean sample_rate?)
	EOF
	check_errors
'

test_expect_success 'a misspelt section: did you mean' '
	printf "[profil]\n[target web]\n[targt \"db\"]\n[zzz]\n" >bad.conf &&
	cat >expect <<-\EOF &&
	bad.conf:1: [profil]: unknown section (did you mean [profile]?)
	bad.conf:2: [target web]: unknown section (did you mean [target "web"]?)
	bad.conf:3: [targt "db"]: unknown section (did you mean [target "db"]?)
	bad.conf:4: [zzz]: unknown section
	EOF
	check_errors
'

test_expect_success 'bad boolean' '
	printf "[profile]\ncpu = maybe\n" >bad.conf &&
	echo "bad.conf:2: [profile] cpu: maybe: expected yes or no" \
	    >expect &&
	check_errors
'

test_expect_success 'not a number' '
	printf "[daemon]\ncollect_interval = 15s\n" >bad.conf &&
	echo "bad.conf:2: [daemon] collect_interval: 15s: not a number" \
	    >expect &&
	check_errors
'

test_expect_success 'out of range' '
	printf "[daemon]\ncollect_interval = 0\n" >bad.conf &&
	echo "bad.conf:2: [daemon] collect_interval: 0: out of range" \
	    "(1 to 3600)" >expect &&
	check_errors
'

test_expect_success 'bad enum value' '
	printf "[symbols]\ndemangle = fancy\n" >bad.conf &&
	echo "bad.conf:2: [symbols] demangle: fancy: expected one of none" \
	    "simplified full" >expect &&
	check_errors
'

test_expect_success 'duplicate key' '
	printf "[profile]\ncpu = yes\n\n[profile]\ncpu = no\n" >bad.conf &&
	echo "bad.conf:5: [profile] cpu: duplicate key (first at line 2)" \
	    >expect &&
	check_errors
'

test_expect_success 'syntax error' '
	printf "[profile]\ncpu yes\n" >bad.conf &&
	echo "bad.conf:2: syntax error: expected '\''key = value'\'' or" \
	    "'\''[section]'\''" >expect &&
	check_errors
'

test_expect_success "missing ']'" '
	printf "[profile\n" >bad.conf &&
	echo "bad.conf:1: missing '\'']'\'' in section" >expect &&
	check_errors
'

test_expect_success 'several errors are all reported, in order' '
	cat >bad.conf <<-\END &&
	[daemon]
	collect_interval = -1
	[profile]
	cpu = maybe
	sample_rate = fast
	[nowhere]
	a = b
	[output]
	dir = /tmp/x
	dir = /tmp/y
	END
	cat >expect <<-\END &&
	bad.conf:2: [daemon] collect_interval: -1: out of range (1 to 3600)
	bad.conf:4: [profile] cpu: maybe: expected yes or no
	bad.conf:5: [profile] sample_rate: fast: not a number
	bad.conf:6: [nowhere]: unknown section
	bad.conf:10: [output] dir: duplicate key (first at line 9)
	END
	check_errors
'

test_expect_success 'at most 1024 targets: one more is refused at its line' '
	awk "BEGIN { for (i = 0; i < 1025; i++)
	    printf \"[target \\\"t%d\\\"]\\ncomm = c%d\\n\", i, i }" \
	    >bad.conf &&
	echo "bad.conf:2049: [target \"t1024\"]: too many targets (at most 1024)" \
	    >expect &&
	check_errors &&
	sed "/t1024/,\$d" bad.conf >good.conf &&
	ebpfspyd -n -c good.conf >out 2>err &&
	test_must_be_empty err
'

test_expect_success 'at most 64 labels a target' '
	{
		printf "[target \"t\"]\ncomm = c\n" &&
		awk "BEGIN { for (i = 0; i < 65; i++) printf \"label.l%d = v\\n\", i }"
	} >bad.conf &&
	echo "bad.conf:67: [target \"t\"] label.l64: too many labels (at most 64)" \
	    >expect &&
	check_errors
'

test_expect_success 'a missing -c file is an error' '
	test_expect_code 1 ebpfspyd -n -c missing.conf >out 2>err &&
	test_must_be_empty out &&
	echo "missing.conf: No such file or directory" >expect &&
	test_cmp expect err
'

test_expect_success 'a directory is not a configuration file' '
	mkdir dir.conf &&
	test_expect_code 1 ebpfspyd -n -c dir.conf >out 2>err &&
	test_must_be_empty out &&
	echo "dir.conf: not a regular file" >expect &&
	test_cmp expect err
'

test_expect_success 'binary garbage: refused with a message, no crash' '
	# The binary under test is as good a garbage as any, and the same
	# on every run.
	cp "$(command -v ebpfspyd)" bad.conf &&
	test_expect_code 1 ebpfspyd -n -c bad.conf >out 2>err &&
	test_must_be_empty out &&
	test -s err &&
	# Every line is a located error; the first one names the cause.
	! grep -v "^bad.conf:" err &&
	head -n 1 err >first &&
	grep -E "binary data|control character" first
'

test_expect_success 'a 1 MB line: refused with its length, no crash' '
	awk "BEGIN {
		s = \"x\"
		while (length(s) < 1048576)
			s = s s
		print \"[profile]\"
		print \"cpu = \" s
		print \"sample_rate = 0\"
	}" >bad.conf &&
	cat >expect <<-\END &&
	bad.conf:2: line too long (1048583 bytes, at most 4093)
	bad.conf:3: [profile] sample_rate: 0: out of range (1 to 10000)
	END
	check_errors
'

test_expect_success 'a control character is refused' '
	printf "[profile]\ncpu = y\033es\n" >bad.conf &&
	echo "bad.conf:2: control character 0x1b" >expect &&
	check_errors
'

# Root reads any file whatever its mode, so this only runs as a user.
test_expect_success !ROOT 'an unreadable file is an error' '
	printf "[profile]\ncpu = yes\n" >unreadable.conf &&
	chmod 000 unreadable.conf &&
	test_expect_code 1 ebpfspyd -n -c unreadable.conf >out 2>err &&
	test_must_be_empty out &&
	echo "unreadable.conf: Permission denied" >expect &&
	test_cmp expect err
'

test_expect_success 'errors at startup: exit 1 before daemonizing' '
	printf "[profile]\ncpu = maybe\n" >bad.conf &&
	echo "bad.conf:2: [profile] cpu: maybe: expected yes or no" \
	    >expect &&
	test_expect_code 1 ebpfspyd -c bad.conf \
	    -o "$TRASH_DIRECTORY/profiles" -p "$TRASH_DIRECTORY/pid" \
	    >out 2>err &&
	test_must_be_empty out &&
	test_cmp expect err &&
	test_path_is_missing pid &&
	test_path_is_missing profiles
'

# A FIFO would block a plain open() until a writer comes: the check
# would hang, and a reload would hang the daemon.  config_load() opens
# without blocking and refuses anything but a regular file.
test_expect_success 'a FIFO is refused, not waited on' '
	mkfifo fifo.conf &&
	test_expect_code 1 timeout 5 ebpfspyd -n -c fifo.conf >out 2>err &&
	echo "fifo.conf: not a regular file" >expect &&
	test_cmp expect err
'

test_done
