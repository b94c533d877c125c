#!/bin/bash
# churn.sh: ebpfspyd under processes started and exiting at a high rate.
#
#   bench/churn.sh [build-dir]
#
# The daemon runs with the default keys (conf/ebpfspy.conf: a round every
# 15 s, the BPF pid map swept every 10 rounds) but for an output
# directory and a metrics port of its own.  A spawner forks CHURN_RATE
# (500) processes a second for CHURN_SECONDS (60); each execs a small
# program that spins CHURN_SPIN_US (300) microseconds of CPU and exits,
# so that the BPF side sees an exec and an exit of each, and samples
# some of them (each sampled pid gets a pid map entry and an event).
# Printed: the rate reached; every 10 s, the daemon's RSS and the
# entries of its BPF hash maps (pid_config, counts, thread_comm), read
# through its own map fds with bpftool; from its metrics before and
# after, the process events, unknown-pid requests and every loss (ring
# full, map full); then the same CHURN_AFTER (170) s after the churn,
# past a pid map sweep, to show what is left.
#
# CHURN_RATE, CHURN_SECONDS, CHURN_SPIN_US, CHURN_AFTER change the run;
# BENCH_KEEP=1 keeps its directory.
BENCH_NAME=churn
. "$(dirname "$0")/lib-bench.sh"

RATE=${CHURN_RATE:-500}
SECS=${CHURN_SECONDS:-60}
SPIN=${CHURN_SPIN_US:-300}
AFTER=${CHURN_AFTER:-170}
bench_need gcc gcc
bench_need bpftool bpftool
bench_need curl curl

bench_header "churn: $RATE processes a second for $SECS s, each" \
    "spinning $SPIN us"

bench_conf_default "$BENCH_TMP/ebpfspy.conf"
PORT=$BENCH_PORT

cat >"$BENCH_TMP/spin.c" <<'CEOF'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
int
main(int argc, char **argv)
{
	struct timespec	 a, b;
	long		 us = argc > 1 ? atol(argv[1]) : 1000;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 1000; i++)
			sink = sink * 6364136223846793005UL + 1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000 +
	    (b.tv_nsec - a.tv_nsec) / 1000 < us);
	return 0;
}
CEOF
# Forks rate a second, paced on the clock, reaping as it goes; prints
# how many it started and in how long.
cat >"$BENCH_TMP/spawn.c" <<'CEOF'
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static double
now(void)
{
	struct timespec	 t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
int
main(int argc, char **argv)
{
	double		 rate = atof(argv[2]), secs = atof(argv[3]), t0, t;
	long		 n = 0, fail = 0;
	pid_t		 pid;

	t0 = now();
	while ((t = now()) < t0 + secs) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (n >= (t - t0) * rate) {
			usleep(500);
			continue;
		}
		if ((pid = fork()) == 0) {
			execl(argv[1], "churnw", argv[4], (char *)NULL);
			_exit(127);
		}
		if (pid == -1)
			fail++;
		else
			n++;
	}
	while (wait(NULL) > 0)
		;
	printf("started %ld in %.1f s: %.0f a second, %ld forks failed\n",
	    n, now() - t0, n / (now() - t0), fail);
	return 0;
}
CEOF
gcc -O2 -o "$BENCH_TMP/churnw" "$BENCH_TMP/spin.c" &&
    gcc -O2 -o "$BENCH_TMP/spawn" "$BENCH_TMP/spawn.c" ||
    bench_die "cannot build the churn programs"

bench_start_daemon "$BENCH_TMP/ebpfspy.conf"
DPID=$BENCH_PID_ebpfspyd

# The daemon's own maps: the ids of the map fds it holds.
map_ids () {
	local fd id name
	for fd in /proc/"$DPID"/fdinfo/*; do
		id=$(awk '$1 == "map_id:" { print $2 }' "$fd" 2>/dev/null)
		test -n "$id" || continue
		name=$(bpftool -j map show id "$id" 2>/dev/null |
		    sed -n 's/.*"name":"\([^"]*\)".*/\1/p')
		echo "$name $id"
	done | sort -u
}
map_ids >"$BENCH_TMP/maps"
map_count () {
	local id
	id=$(awk -v n="$1" '$1 == n { print $2; exit }' "$BENCH_TMP/maps")
	test -n "$id" || { echo -; return; }
	bpftool -j map dump id "$id" 2>/dev/null |
	    grep -o '"key":' | wc -l
}
rss_kb () {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$DPID/status" 2>/dev/null
}
metrics () {
	curl -s -m 5 "http://127.0.0.1:$PORT/metrics" |
	    grep -E '^ebpfspy_(lost_total|process_events_total|unknown_pid_requests_total|pids|rounds_total)' |
	    grep -v ' 0$'
}
row () {
	printf '%7s %8s %11s %8s %11s\n' "$1" "$(rss_kb)" \
	    "$(map_count pid_config)" "$(map_count counts)" \
	    "$(map_count thread_comm)"
}

# Two rounds in, so that the machine's own processes are known.
bench_sleep 31
echo "metrics before:"
metrics | sed 's/^/  /'
echo
printf '%7s %8s %11s %8s %11s\n' seconds "RSS KiB" pid_config counts \
    thread_comm
row before
bench_run spawn "$BENCH_TMP/spawn" "$BENCH_TMP/churnw" "$RATE" "$SECS" \
    "$SPIN"
t=0
while bench_is_child_ "$BENCH_PID_spawn" "$BENCH_WRAP_spawn"; do
	bench_sleep 10
	t=$((t + 10))
	row "$t"
done
bench_wait spawn
row end
bench_sleep "$AFTER"
row "+$AFTER"
echo
grep "^started" "$BENCH_TMP/spawn.out"; echo "(asked for $RATE a second)"
echo "metrics $AFTER s after:"
metrics | sed 's/^/  /'
kill -0 "$DPID" 2>/dev/null && echo "ebpfspyd still running" ||
    echo "ebpfspyd DIED"
grep -ci 'lost\|full' "$BENCH_TMP/ebpfspyd.out" |
    sed 's/^/daemon log lines saying lost or full: /'
bench_stop ebpfspyd TERM
