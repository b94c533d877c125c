#!/bin/sh
test_description='a process BPF holds back is asked about again

Until the daemon has read a new process'"'"'s maps, BPF drops its samples
and asks once.  Should that request be lost (a full ring buffer), it
asks again every 64 dropped samples, so the process is not left
unprofiled.  The test plants such a lost request: it sets a running
burn'"'"'s BPF config back to waiting, with no request outstanding.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq BPFTOOL 'command -v bpftool'

# pending_config PID: write PID's pid_config entry in our daemon's map:
# type FP, collect user and kernel, flags PENDING and nothing else.
pending_config () {
	id=$(python3 -c '
import glob, json, subprocess, sys
for f in glob.glob("/proc/%s/fdinfo/*" % sys.argv[1]):
    try:
        lines = open(f).read().splitlines()
    except OSError:
        continue
    for l in lines:
        if l.startswith("map_id:"):
            i = l.split()[1]
            m = json.loads(subprocess.run(["bpftool", "-j", "map", "show",
                "id", i], capture_output=True, text=True).stdout)
            if m.get("name") == "pid_config":
                print(i)
                sys.exit(0)
' "$(daemon_pid)") &&
	test -n "$id" &&
	key=$(printf "%08x" "$1" |
	    sed "s/\(..\)\(..\)\(..\)\(..\)/\4 \3 \2 \1/") &&
	bpftool map update id "$id" key hex $key value hex \
	    02 01 01 02 00 00 00 00 00 00 00 00 00 00 00 00 \
	    00 00 00 00 00 00 00 00 exist
}

test_expect_success ROOT,BPF,BPFTOOL 'a burn held back after its start' '
	mkworkload burn b4003 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 997
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	{ ./b4003 -c 3 >burn.out & bp=$!; } &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		grep -q "^ready " burn.out && break
		sleep 0.1
	done &&
	pid=$(sed -n "s/^ready //p" burn.out) &&
	sleep 0.5 &&
	pending_config "$pid" &&
	wait $bp &&
	daemon_stop
'

test_expect_success ROOT,BPF,BPFTOOL 'it was profiled again' '
	folded cpu b4003 >burn.folded &&
	all=$(folded_sum "^b4003;" <burn.folded) &&
	cpu=$(sed -n "s/^cpu //p" burn.out) &&
	want=$((cpu * 997 / 1000000000)) &&
	echo "$all samples; its CPU time makes $want" &&
	test "$want" -ge 2000 &&
	test "$all" -ge $((want * 6 / 10))
'

test_done
