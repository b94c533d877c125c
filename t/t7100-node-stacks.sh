#!/bin/sh
test_description='Node.js (V8) stacks named with no flag on node

The node at /usr/bin/node runs t/helper/v8work.js: a recursive
function, a hot function TurboFan optimizes, an async function that
awaits a timer then computes, and one that blocks in Atomics.wait.  Of
the samples of the main thread running JavaScript (under
Builtins_JSEntry or Builtins_RunMicrotasks), at least 95% have the
right function as their leaf JavaScript frame, named "function
(file.js)", with its callers in order down to node::Start; each wait in Atomics.wait is under the waiting
function.  Beside them, the same workloads under node --perf-basic-prof
--interpreted-frames-native-stack, named from its perf map: each leaf
function'"'"'s share within 3 points of that reference'"'"'s.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq NODE 'test -x /usr/bin/node && /usr/bin/node --version'

V8WORK=$EBPFSPY_SOURCE_DIR/t/helper/v8work.js
V8LEAF=$EBPFSPY_SOURCE_DIR/t/helper/rt_leaf.py

# The seconds of CPU a workload runs.  async awaits a timer between its
# computations: its leaf share moved most between runs on a busy
# machine (CI), so it gets more samples.
secs () {
	case $1 in
	async) echo 5 ;;
	*) echo 3 ;;
	esac
}

test_expect_success ROOT,BPF,NODE 'profile the workloads' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	offcpu = yes
	unwind_table_bytes = 67108864
	EOF
	for m in fib hot async offcpu; do
		ln -sf /usr/bin/node n7100$m &&
		ln -sf /usr/bin/node r7100$m || return 1
	done &&
	daemon_start -c ebpfspy.conf -o out &&
	for m in fib hot async offcpu; do
		./n7100$m "$V8WORK" $m $(secs $m) >$m.out || return 1
	done &&
	daemon_stop &&
	for m in fib hot async; do
		folded cpu n7100$m >$m.folded || return 1
	done &&
	folded offcpu n7100offcpu >offcpu.folded
'

# The reference names from the perf map alone: [v8] off.
test_expect_success ROOT,BPF,NODE 'profile the references, [v8] off' '
	cat >>ebpfspy.conf <<-\EOF &&
	[v8]
	enabled = no
	EOF
	daemon_start -c ebpfspy.conf -o rout &&
	for m in fib hot async; do
		./r7100$m --perf-basic-prof --interpreted-frames-native-stack \
		    "$V8WORK" $m $(secs $m) >r$m.out &&
		test_when_finished "rm -f /tmp/perf-$(sed -n "s/^ready //p" \
		    r$m.out).map" || return 1
	done &&
	# The maps are read when the round names the stacks, at the stop.
	daemon_stop &&
	for m in fib hot async; do
		cat rout/cpu/r7100$m/*.folded >r$m.folded || return 1
	done
'

# leaf_check MODE CHAIN LEAF: the shares of the workload MODE.
JSRUN=Builtins_JSEntry,Builtins_RunMicrotasks

leaf_check () {
	python3 "$V8LEAF" ours n7100$1 $JSRUN $2 <$1.folded >$1.leaf &&
	python3 "$V8LEAF" perfmap r7100$1 $JSRUN $2 <r$1.folded >r$1.leaf &&
	cat $1.leaf r$1.leaf &&
	all=$(sed -n "s/^samples //p" $1.leaf) &&
	whole=$(sed -n "s/^whole //p" $1.leaf) &&
	echo "$1: $whole of $all samples whole under $3" &&
	test "$all" -ge 100 &&
	test $((whole * 100)) -ge $((all * 95))
}

share_check () {
	all=$(sed -n "s/^samples //p" $1.leaf) &&
	rall=$(sed -n "s/^samples //p" r$1.leaf) &&
	s=$(sed -n "s/^leaf $2 //p" $1.leaf) &&
	r=$(sed -n "s/^leaf $2 //p" r$1.leaf) &&
	test -n "$s" && test -n "$r" &&
	s=$(( s * 1000 / all )) && r=$(( r * 1000 / rall )) &&
	echo "$1: $2 leaf in $s permille, reference $r permille" &&
	within $s $r 30
}

test_expect_success ROOT,BPF,NODE 'fib: fibRecurse under fibMain, whole' '
	leaf_check fib fibMain,fibRecurse fibRecurse
'

test_expect_success ROOT,BPF,NODE 'fib: fibRecurse share as the reference' '
	share_check fib fibRecurse
'

test_expect_success ROOT,BPF,NODE 'hot: hotLoop under hotMain, whole' '
	leaf_check hot hotMain,hotLoop hotLoop
'

test_expect_success ROOT,BPF,NODE 'hot: hotLoop share as the reference' '
	share_check hot hotLoop
'

test_expect_success ROOT,BPF,NODE 'async: asyncCompute under asyncWork, whole' '
	leaf_check async asyncWork,asyncCompute asyncCompute
'

test_expect_success ROOT,BPF,NODE 'async: asyncCompute share as the reference' '
	share_check async asyncCompute
'

# Known gap: off-CPU user stacks of node stop at the libc leaf
# ([truncated]), so no wait has its JavaScript callers yet.
test_expect_failure ROOT,BPF,NODE 'off-CPU: every wait under blockWait' '
	python3 "$V8LEAF" ours n7100offcpu Builtin_AtomicsWait \
	    blockMain,blockWait <offcpu.folded >offcpu.leaf &&
	cat offcpu.leaf &&
	all=$(sed -n "s/^samples //p" offcpu.leaf) &&
	whole=$(sed -n "s/^whole //p" offcpu.leaf) &&
	blocked=$(sed -n "s/^blocked //p" offcpu.out) &&
	echo "$whole of $all ns whole, $blocked ns blocked" &&
	test "$all" -ge $((blocked / 2)) &&
	test "$whole" -eq "$all"
'

test_done
