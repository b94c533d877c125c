#!/bin/sh
test_description='bounds of a symbol table build

A workload with 3000 functions runs under a daemon whose
max_symbols_per_file is 1000: its .symtab is refused before it is
read, the log says so, its frames go unnamed, and the refusal is
counted in the SIGUSR1 state and in /metrics.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq CURL '
	test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version
'

test_expect_success 'a workload of 3000 functions' '
	{
		echo "#include <stdlib.h>" &&
		echo "#include <time.h>" &&
		awk "BEGIN { for (i = 0; i < 3000; i++)
		    printf \"int many_%d(int x) { return x * %d + 1; }\\n\",
		    i, i }" &&
		cat <<-\EOF
		static volatile unsigned long sink;
		__attribute__((noinline)) void
		bounds_hot(void)
		{
			unsigned long i;

			for (i = 0; i < 1000000; i++)
				sink += i * 7;
		}
		int
		main(int argc, char **argv)
		{
			time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 3);

			while (time(NULL) < end)
				bounds_hot();
			return 0;
		}
		EOF
	} >b5008.c &&
	cc -O2 -o b5008 b5008.c &&
	test "$(nm b5008 | grep -c " T many_")" = 3000
'

test_expect_success ROOT,BPF,CURL 'over max_symbols_per_file: refused, counted' '
	port=$(python3 -c "import socket
s = socket.socket()
s.bind((\"127.0.0.1\", 0))
print(s.getsockname()[1])") &&
	cat >ebpfspy.conf <<-EOF &&
	[daemon]
	collect_interval = 1
	[profile]
	sample_rate = 499
	[symbols]
	max_symbols_per_file = 1000
	[metrics]
	listen = 127.0.0.1:$port
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b5008 3 &&
	daemon_wait_log "/b5008: more than max_symbols_per_file \(1000\) symbols: refused" &&
	daemon_signal USR1 &&
	daemon_wait_log "^symbols: tables refused over their bounds: [1-9][0-9]* over max_symbols_per_file" &&
	curl -sS -o metrics "http://127.0.0.1:$port/metrics" &&
	n=$(sed -n "s/^ebpfspy_symbol_tables_refused_total{limit=\"max_symbols_per_file\"} //p" metrics) &&
	test "$n" -ge 1 &&
	grep "^ebpfspy_symbol_tables_refused_total{limit=\"max_debugdata_bytes\"} " metrics &&
	daemon_stop &&
	folded cpu b5008 >b.folded &&
	test "$(folded_sum "^b5008;" <b.folded)" -gt 0 &&
	! grep -q "bounds_hot\|many_" b.folded
'

test_done
