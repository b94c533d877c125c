#!/bin/sh
test_description='a process is looked at when it is first sampled, not at its exec

Most processes a machine starts are never sampled: their exec and exit
must cost the daemon no read of their maps or symbol files.  One that
is sampled has its maps read then, once, and its samples named: its
first sample comes with its stack, which shows whether it runs its own
code yet or is still in the dynamic loader (then, and only then, its
maps are read again once it runs its own code).'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success ROOT,BPF 'start the daemon' '
	mkworkload sleep s4002 &&
	mkworkload burn b4002 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 97
	EOF
	daemon_start -v -c ebpfspy.conf -o out &&
	daemon_state_value "[0-9]+ execs" >execs0
'

test_expect_success ROOT,BPF '100 sleepers: exec, then no CPU to sample' '
	i=0 &&
	: >sleepers &&
	while test $i -lt 100; do
		./s4002 2 &
		echo $! >>sleepers &&
		i=$((i + 1)) || return 1
	done &&
	: the CPU each ran, asleep now: schedstat, ns on a CPU &&
	for p in $(cat sleepers); do
		cut -d" " -f1 /proc/$p/schedstat 2>/dev/null || echo 0
	done >cpu &&
	for p in $(cat sleepers); do
		wait $p || return 1
	done &&
	execs=$(daemon_state_value "[0-9]+ execs") &&
	echo "$(cat execs0) execs before, $execs after" &&
	test "$execs" -ge $(($(cat execs0) + 100))
'

test_expect_success ROOT,BPF '20 burns of 0.2 s: sampled' '
	i=0 &&
	: >burns &&
	while test $i -lt 20; do
		./b4002 -t 0.2 >burn$i.out &&
		sed -n "s/^ready //p" burn$i.out >>burns &&
		i=$((i + 1)) || return 1
	done &&
	test $(wc -l <burns) -eq 20
'

test_expect_success ROOT,BPF 'a burn of 1 s: sampled' '
	./b4002 -t 1 >burn.out &&
	sed -n "s/^ready //p" burn.out >burn.pid &&
	test -s burn.pid &&
	daemon_stop
'

test_expect_success ROOT,BPF 'few sleepers had their maps read' '
	sed -n "s/^pid \([0-9]*\) (s4002): maps read at its first sample$/\1/p" \
	    daemon.log | sort -u >loaded &&
	: a sleeper is sampled with the chance its CPU time gives at 97 Hz &&
	: -- its exec and the loader, 1 to 5 ms by the machine -- and only &&
	: a sampled one may be read: at most that many, and some slack &&
	expect=$(awk "{ e += 1 - exp(-\$1 * 97 / 1e9) } END { printf \"%d\", e + 0.5 }" \
	    cpu) &&
	echo "$(wc -l <loaded) of 100 sleepers had their maps read;" \
	    "$expect expected from their CPU time" &&
	test $(wc -l <loaded) -le $((expect * 3 / 2 + 10)) &&
	test $(wc -l <loaded) -le 70
'

test_expect_success ROOT,BPF 'burns were read once, not again in their own code' '
	: a burn first sampled in the dynamic loader is read twice &&
	for p in $(cat burns); do
		grep "^pid $p (b4002): maps read at its first sample$" \
		    daemon.log || return 1
	done &&
	grep -E "^pid [0-9]+ \(b4002\): maps read again, in its own code$" \
	    daemon.log | sed "s/^pid \([0-9]*\).*/\1/" >again &&
	: the loader is about what a sleeper runs: a burn is first sampled &&
	: there with the chance that time is of a 97 Hz tick, read once more &&
	expect=$(awk "{ s += \$1 } END { e = s / NR * 97 / 1e9;
	    printf \"%d\", 20 * (e < 1 ? e : 1) + 0.5 }" cpu) &&
	echo "$(grep -c -F -x -f burns again) of 20 burns read again;" \
	    "$expect expected from the loader'"'"'s time" &&
	test $(grep -c -F -x -f burns again) -le $((expect * 3 / 2 + 3)) &&
	: and never more than once again &&
	test $(grep -F -x -f burns again | sort | uniq -d | wc -l) -eq 0
'

test_expect_success ROOT,BPF 'the sampled one was read, and named' '
	grep "^pid $(cat burn.pid) (b4002): maps read at its first sample$" \
	    daemon.log &&
	folded cpu b4002 >burn.folded &&
	all=$(folded_sum "^b4002;" <burn.folded) &&
	named=$(folded_sum "^b4002;(.*;)?main;work;burn_[ab](;|\$)" <burn.folded) &&
	echo "$named of $all samples named" &&
	test "$all" -ge 10 &&
	test "$named" -ge $((all * 9 / 10))
'

test_done
