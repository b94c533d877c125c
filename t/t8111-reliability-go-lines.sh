#!/bin/sh
test_description='a Go line table made to be walked

A process running as nobody burns CPU in a C function that a crafted
.gopclntab (Go 1.16 format) describes as main.burn, 256 MB long, its
line table a run of 8 million entries that never move the pc on: each
lookup of a source line walked it all.  Now a lookup stops after its
steps, the table is refused (its lines, not its names) and counted;
the daemon keeps its rounds on time.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-rusage.sh"

test_lazy_prereq CURL '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version
'
test_lazy_prereq SETPRIV '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || setpriv --version
'

test_expect_success 'a Go-like program whose line table never ends' '
	{
		cat <<-\EOF &&
		#include <stdio.h>
		#include <stdlib.h>
		#include <time.h>
		#include <unistd.h>

		static volatile unsigned long sink;

		/* Many instructions: many addresses sampled, named. */
		__attribute__((noinline)) void
		go_burn(unsigned long i)
		{
		EOF
		awk "BEGIN { for (k = 1; k <= 2000; k++)
		    printf \"\\tsink += i * %d;\\n\", k }" &&
		cat <<-\EOF
		}

		int
		main(int argc, char **argv)
		{
			time_t stop = time(NULL) + atoi(argv[1]);
			unsigned long i = 0;

			printf("ready %d\n", (int)getpid());
			fflush(stdout);
			do {
				go_burn(i++);
			} while (time(NULL) < stop);
			return 0;
		}

		/* Go 1.16: magic, quantum 1, pointers of 8, 1 function. */
		__asm__(
		"	.section .gopclntab, \"a\"\n"
		"	.balign 32\n"
		"pcln:	.long 0xfffffffa\n"
		"	.byte 0, 0, 1, 8\n"
		"	.quad 1, 1\n"
		"	.quad names - pcln, cutab - pcln, filetab - pcln\n"
		"	.quad pctab - pcln, functab - pcln\n"
		"names:	.asciz \"main.burn\"\n"
		"cutab:	.long 0\n"
		"filetab: .asciz \"/src/burn.go\"\n"
		"pctab:	.byte 0\n"
		/* Line 10 for a byte, then 8M times one more, the pc kept. */
		"pcln_b: .byte 22, 1\n"
		"	.fill 8000000, 2, 2\n"
		"	.byte 2, 127, 0\n"
		"pcfile_b: .byte 2, 127, 0\n"
		"	.balign 8\n"
		"functab: .quad go_burn, func_b - functab\n"
		"	.quad go_burn + 0x10000000, 0\n"
		/* entry, name, args, deferreturn, pcsp, pcfile, pcln, ... */
		"func_b:	.quad go_burn\n"
		"	.long 0, 0, 0, 0, pcfile_b - pctab, pcln_b - pctab\n"
		"	.long 0, 0\n"
		"	.byte 0, 0, 0, 0\n"
		"	.text\n");
		EOF
	} >g8111.c &&
	cc -O1 -fno-omit-frame-pointer -no-pie -o g8111 g8111.c &&
	readelf -S g8111 | grep -q "\.gopclntab" &&
	chmod 755 . g8111
'

test_expect_success 'its lines refused at once, its name kept' '
	a=$(nm g8111 | sed -n "s/ T go_burn\$//p") &&
	set -- $(awk -v a=$((0x$a)) "BEGIN {
	    for (k = 0; k < 8; k++) printf \"%x \", a + 64 + 512 * k }") &&
	rusage resolve -B -n 1000 -f g8111 "$@" >bench 2>&1 &&
	cat bench &&
	grep "^named 8 of 8\$" bench &&
	grep "^gopclntab: line tables over the bound of work" bench &&
	# The first lookup stops after its steps: 1 ms of 512 at most.
	ns=$(sed -n "s/^line_ns \([0-9]*\).*/\1/p" bench) &&
	test "${ns:-0}" -lt 1000000 &&
	set -- $(tail -n 1 bench) &&
	echo "peak RSS $1 kB, $2 ms of CPU for 512 line lookups" &&
	test "$2" -lt 10000 &&
	resolve -f g8111 $(nm g8111 | sed -n "s/ T go_burn\$//p") >name &&
	echo main.burn >expect &&
	test_cmp expect name
'

test_expect_success ROOT,BPF,CURL,SETPRIV 'rounds on time, the table counted' '
	port=$(python3 -c "import socket; s = socket.socket(); \
s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	printf "[%s]\n%s\n" daemon "collect_interval = 1" \
	    profile "sample_rate = 499" \
	    metrics "listen = 127.0.0.1:$port" >ebpfspy.conf &&
	daemon_start -v -c ebpfspy.conf -o out &&
	{
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		    ./g8111 8 >w.out &
	} &&
	wpid=$! &&
	workload_wait w.out &&
	# Before the bounds: 3 rounds of 1 s in 30 s.
	n=$(grep -E -c "^round [0-9]+:" "$DAEMON_LOG"; :) &&
	daemon_wait_log_count "^round [0-9]+:" $((n + 5)) 10 &&
	sed -n "s/^round [0-9]*: .*, \([0-9.]*\) ms CPU\$/\1/p" \
	    "$DAEMON_LOG" >cpu.ms &&
	awk "\$1 >= 1000 { bad = 1 } END { exit bad }" cpu.ms &&
	daemon_wait_log "gopclntab: line tables over the bound of work" &&
	refused=$(daemon_state_value \
	    "names kept mangled, [0-9]+ Go line tables refused" |
	    tail -n 1) &&
	grep -E -o "[0-9]+ Go line tables refused" "$DAEMON_LOG" |
	    tail -n 1 | grep -v "^0 " &&
	curl -sS -o metrics "http://127.0.0.1:$port/metrics" &&
	m=$(sed -n "s/^ebpfspy_symbol_work_refused_total{what=\"go_lines\"} //p" \
	    metrics) &&
	test "$m" -ge 1 &&
	daemon_stop &&
	wait $wpid &&
	folded cpu g8111 >g.folded &&
	grep ";main.burn" g.folded
'

test_done
