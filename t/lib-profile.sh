# lib-profile.sh: read the profiles a test's daemon wrote.  Source it
# after test-lib.sh and lib-daemon.sh.
#
#   profile_config [key = value lines...]
#				write ebpfspy.conf in the trash dir: rounds
#				only at stop, output under ./out, plus the
#				lines given on stdin
#   folded TYPE SERVICE		all folded lines of that profile, summed
#				per stack across rounds
#   folded_sum ERE		the sum of the counts of the stdin lines
#				whose stack matches ERE
#   percent PART WHOLE		PART / WHOLE in whole percent
#   within A B TOL		|A - B| <= TOL
#   workload_wait PIDFILE	wait until the workload wrote "ready PID"
#   profile_unwind_config [RATE [UNWIND]]
#				ebpfspy.conf for native stacks
#   profile_run COMM ARGS...	./COMM profiled by a daemon of its own,
#				its stacks in COMM.folded
#   fpless_whole SERVICE	the ERE of a whole stack of t/helper/fpless
#				(-m cpu) run as SERVICE

profile_config () {
	{
		printf '[daemon]\ncollect_interval = 3600\n'
		cat
	} >ebpfspy.conf
}

folded () {
	cat out/"$1"/"$2"/*.folded 2>/dev/null |
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); s[$0] += n }
	    END { for (k in s) printf "%s %.0f\n", k, s[k] }' | sort
}

folded_sum () {
	# The ERE goes through the environment: awk -v would eat its '\'.
	FOLDED_RE=$1 awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
	    if (line ~ ENVIRON["FOLDED_RE"]) s += n }
	    END { printf "%.0f\n", s }'
}

percent () {
	test "$2" -gt 0 || { echo 0; return; }
	echo $(( ($1 * 100 + $2 / 2) / $2 ))
}

within () {
	d=$(( $1 - $2 ))
	test ${d#-} -le "$3" || {
		echo >&2 "$1 is not within $3 of $2"
		return 1
	}
}

workload_wait () {
	n=0
	while ! grep -q '^ready ' "$1" 2>/dev/null; do
		n=$((n + 1))
		test $n -lt 600 || { echo >&2 "workload not ready"; return 1; }
		sleep 0.05
	done
}

# A whole stack: main, then the callers of the workload's own functions
# in order, with whatever libc frames (qsort_r's: qsort jumps to it)
# and kernel frames lie below its innermost function.  GCC may rename
# hash_block (hash_block.constprop.0).
fpless_whole () {
	echo "^$1;(.*;)?main(;sort_phase(;qsort(_r)?(;.*)?)?|;hash_phase(;hash_block[^;]*(;.*)?)?|;clock_gettime[^;]*(;.*)?)?\$"
}

# mkworkload HELPER NAME: a copy of t/helper/HELPER named NAME in the
# trash directory, so that the comm -- and the service -- is this test's
# own even when other tests run workloads at the same time.
mkworkload () {
	cp "$(command -v "$1")" "./$2" && chmod +x "./$2"
}

# go_workload NAME [FLAG...]: t/helper/goburn.go copied to NAME.go and
# built stripped (-ldflags="-s -w", and FLAGs) as NAME, with no network
# (std only) and Go's caches in the trash directory.
go_workload () {
	GOCACHE=$TRASH_DIRECTORY/gocache GOPATH=$TRASH_DIRECTORY/gopath \
	GOFLAGS=-mod=mod GO111MODULE=off GOTOOLCHAIN=local &&
	export GOCACHE GOPATH GOFLAGS GO111MODULE GOTOOLCHAIN &&
	cp "$EBPFSPY_SOURCE_DIR/t/helper/goburn.go" "$1.go" &&
	n=$1 && shift &&
	go build -ldflags="-s -w" "$@" -o "$n" "$n.go" &&
	! nm "$n" 2>/dev/null | grep -q burnAlpha
}

# daemon_stat NAME: ask the daemon for its state (SIGUSR1) and print the
# BPF counter NAME of that dump.
daemon_stat () {
	n=$(grep -c '^state: end$' "$DAEMON_LOG")
	daemon_signal USR1 &&
	daemon_wait_log_count '^state: end$' $((n + 1)) &&
	grep -o "state: bpf.* $1 [0-9]*" "$DAEMON_LOG" | tail -1 |
	    sed 's/.* //'
}

# daemon_state_value ERE: ask for the state (SIGUSR1) and print the
# number that follows ERE in the newest matching line, e.g.
# daemon_state_value 'pids: [0-9]+ tracked' -> the count.
daemon_state_value () {
	n=$(grep -c '^state: end$' "$DAEMON_LOG")
	daemon_signal USR1 &&
	daemon_wait_log_count '^state: end$' $((n + 1)) &&
	grep -E -o "$1" "$DAEMON_LOG" | tail -1 | grep -E -o '[0-9]+' |
	    head -1
}

# profile_unwind_config [RATE [UNWIND]]: ebpfspy.conf for the tests of
# native stacks: RATE Hz (499), [profile] unwind = UNWIND (auto), room
# for the tables of everything else the machine runs (what is tested is
# the walk, not the eviction of tables), and no Python frames.
profile_unwind_config () {
	profile_config <<-EOF
	[profile]
	sample_rate = ${1:-499}
	unwind = ${2:-auto}
	unwind_table_bytes = 67108864
	[python]
	enabled = no
	EOF
}

# profile_run COMM ARGS...: ./COMM ARGS... profiled as ebpfspy.conf says
# by a daemon of its own, so that one round's stacks fit in the stack
# map; COMM's folded stacks in COMM.folded.
profile_run () {
	rm -rf out &&
	daemon_start -c ebpfspy.conf -o out &&
	./"$@" >"$1.out" &&
	daemon_stop &&
	folded cpu "$1" >"$1.folded"
}

# perf_plt_permille CMD...: of perf's cpu-clock samples of CMD, the
# thousandths in PLT stubs (symbols "...@plt").  Where a sample lands
# is the CPU's: an AMD EPYC under a hypervisor puts none of a PLT-bound
# loop's in its stubs (perf alike), Intel CPUs some 2%; a test asks for
# samples in a stub only where perf sees them.  No perf: 1000.
perf_plt_permille () {
	command -v perf >/dev/null || { echo 1000; return 0; }
	perf record -q -e cpu-clock -F 499 -o plt-perf.data -- "$@" \
	    >/dev/null 2>&1 &&
	perf report -i plt-perf.data --stdio --sort sym 2>/dev/null |
	awk '/@plt/ { sub("%", "", $1); s += $1 } END { printf "%d\n", s * 10 }'
}
