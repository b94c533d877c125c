#!/bin/sh
test_description='a reload the BPF side refuses leaves BPF as it was

The reload below asks for a new sample rate, new knobs and off-CPU
profiling, and the off-CPU attach fails (the daemon'"'"'s test hook
EBPFSPY_TEST_FAIL=offcpu_attach).  The old configuration stays in
force, and so must what BPF does: its knobs, and the rate of its perf
events, which the rounds weight each sample by.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq BPFTOOL 'command -v bpftool'
P=ROOT,BPF,BPFTOOL,PYTHON3

conf () {
	profile_config <<-EOF
	[profile]
	sample_rate = $1
	offcpu = $2
	collect_idle = $3
	offcpu_min_block_us = $4
	EOF
}

# knobs: the daemon's BPF knobs, "name value" a line, from the .bss and
# .data maps it holds.
knobs () {
	for id in $(sed -n "s/^map_id:[[:space:]]*//p" \
	    /proc/"$(daemon_pid)"/fdinfo/* 2>/dev/null | sort -un); do
		bpftool map show id "$id" |
		    grep -q "name [^ ]*\.\(bss\|data\) " &&
		bpftool -j map dump id "$id"
	done | python3 -c '
import json, sys
want = ("collect_kthreads", "collect_idle", "per_thread", "collect_user",
    "collect_kernel", "offcpu_states", "offcpu_min_ns", "offcpu_max_ns",
    "exec_profiled")
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k in want and not isinstance(v, (dict, list)):
                yield k, v
            else:
                yield from walk(v)
    elif isinstance(x, list):
        for y in x:
            yield from walk(y)
dec, text, out = json.JSONDecoder(), sys.stdin.read(), []
i = 0
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    x, i = dec.raw_decode(text, i)
    out += walk(x)
for k, v in sorted(out):
    print(k, v)
'
}

# samples: BPF's count of perf samples so far, and the time, in ms.
samples () {
	echo "$(daemon_stat samples) $(date +%s%3N)"
}

test_expect_success $P 'setup: cpu at 97 Hz, no off-CPU' '
	mkworkload burn b2003 &&
	conf 97 no no 1 &&
	EBPFSPY_TEST_FAIL=offcpu_attach &&
	export EBPFSPY_TEST_FAIL &&
	daemon_start -c ebpfspy.conf -o out &&
	unset EBPFSPY_TEST_FAIL &&
	knobs >knobs.before &&
	grep "^collect_idle 0\$" knobs.before &&
	grep "^offcpu_min_ns 1000\$" knobs.before
'

test_expect_success $P 'the reload is refused, with the reason' '
	conf 199 yes yes 5000 &&
	daemon_signal HUP &&
	daemon_wait_log "cannot apply to the BPF session, keeping the" &&
	grep "^attach off-CPU sched_switch program: " "$DAEMON_LOG" &&
	! grep "^reloaded " "$DAEMON_LOG"
'

test_expect_success $P 'the knobs are the old ones' '
	knobs >knobs.after &&
	test_cmp knobs.before knobs.after
'

# The perf events' rate: cpu-clock samples each CPU, busy or idle, that
# many times a second, all counted by BPF's samples counter.
test_expect_success $P 'the perf events sample at the old rate' '
	samples >samples.0 &&
	sleep 2 &&
	samples >samples.1 &&
	read s0 t0 <samples.0 && read s1 t1 <samples.1 &&
	ncpus=$(getconf _NPROCESSORS_ONLN) &&
	hz=$(( (s1 - s0) * 1000 / (t1 - t0) / ncpus )) &&
	echo "$((s1 - s0)) samples in $((t1 - t0)) ms on $ncpus CPUs: $hz Hz" &&
	test $hz -ge 65 && test $hz -le 135
'

# At 199 Hz, weighted as 97 Hz's, twice the time would be counted.  On
# a loaded machine a new process loses some of its first samples, and
# the count strays by a fifth either way: the bounds are loose.
test_expect_success $P 'the time counted is not more than the CPU used' '
	./b2003 -c 1 >burn.out &&
	daemon_stop &&
	cpu=$(sed -n "s/^cpu //p" burn.out) &&
	want=$((cpu * 97 / 1000000000)) &&
	got=$(folded cpu b2003 | folded_sum "^b2003;") &&
	echo "burn used $cpu ns: $want samples at 97 Hz, $got counted" &&
	test "$got" -ge $((want * 25 / 100)) &&
	test "$got" -le $((want * 150 / 100))
'

test_done
