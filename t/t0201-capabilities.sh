#!/bin/sh
test_description='the systemd unit'"'"'s capabilities, each one needed

ebpfspyd runs under setpriv with the capability bounding set of
conf/ebpfspyd.service and no new privileges, as the unit runs it: every
frame of three workloads is named: user frames of a root process with
every capability, of a program run by nobody from a directory only
nobody may enter, and of a deleted executable (/proc/PID/map_files),
and kernel frames (/proc/kallsyms).  Each capability taken away in turn
is named at start-up, and the frames it is for stay unnamed, the others
named: without CAP_SYS_PTRACE the user frames of every workload (each
belongs to another user or holds more capabilities), without
CAP_DAC_READ_SEARCH those of the private program, without
CAP_CHECKPOINT_RESTORE those of the deleted one, without CAP_SYSLOG the
kernel frames (when kernel.perf_event_paranoid >= 2).'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

UNIT=$EBPFSPY_BUILD_DIR/conf/ebpfspyd.service

test_lazy_prereq SETPRIV 'setpriv --version'
# kallsyms shows addresses without CAP_SYSLOG when paranoid <= 1 and
# kptr_restrict is 0, and to nobody when kptr_restrict is 2.
test_lazy_prereq KALLSYMS_NEEDS_SYSLOG '
	k=$(cat /proc/sys/kernel/kptr_restrict) &&
	p=$(cat /proc/sys/kernel/perf_event_paranoid) &&
	test "$k" != 2 && { test "$k" = 1 || test "$p" -ge 2; }
'

test_atexit '
	for p in $(cat "$TRASH_DIRECTORY/pids" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null
	done
	:
'

test_expect_success 'setup' '
	caps=$(sed -n "s/^CapabilityBoundingSet=//p" "$UNIT") &&
	test -n "$caps" &&
	printf "[metrics]\\nlisten =\\n" >ebpfspy.conf &&
	# A program in a directory that only its owner, nobody, enters.
	mkdir private &&
	cp "$(command -v burn)" private/capsprivate &&
	chown -R 65534 private &&
	chmod 0700 private &&
	mkworkload burn capsdeleted &&
	mkworkload burn capsroot
'

# profile NAME CAPS: profile the workloads for 5 s with the bounding set
# CAPS (CAP_X CAP_Y ...), as the unit would run the daemon, into NAME/.
# The workloads stop with the daemon.
profile () {
	set_=$(echo $2 | tr A-Z a-z | sed -e "s/cap_/+/g" -e "s/  */,/g") ||
		return 1
	./capsroot -m syscall -t 20 >root.out &
	echo $! >>pids
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    private/capsprivate -t 20 >private.out &
	echo $! >>pids
	./capsdeleted -t 20 >deleted.out &
	echo $! >>pids
	workload_wait root.out &&
	workload_wait private.out &&
	workload_wait deleted.out &&
	rm -f capsdeleted &&
	setpriv --bounding-set="-all,$set_" --inh-caps=-all --no-new-privs \
	    ebpfspyd -d -t 5 -c ebpfspy.conf -o "$TRASH_DIRECTORY/$1" \
	    >"$1.log" 2>&1
	status=$?
	for p in $(cat pids); do
		kill "$p" 2>/dev/null
	done
	: >pids
	mkworkload burn capsdeleted &&
	return $status
}

# named NAME SERVICE ERE: the samples of SERVICE in NAME/ with a frame
# matching ERE, over all of its samples, as "named/all"; at least 10
# samples.
named () {
	cat "$1"/cpu/"$2"/*.folded >folded 2>/dev/null
	all=$(folded_sum "" <folded) &&
	n=$(folded_sum "$3" <folded) &&
	echo >&2 "$1: $2: $n of $all samples match $3" &&
	test "$all" -ge 10 &&
	echo "$n/$all"
}

# Half the samples or more named: a process's first samples, before its
# maps are read, may have none.
mostly () {
	case ${1-} in
	[0-9]*/[0-9]*) test "${1%/*}" -ge $(( ${1#*/} / 2 )) ;;
	*) return 1 ;;
	esac
}

USER_RE="burn_a|burn_b|sys_loop"
KERNEL_RE="entry_SYSCALL|do_syscall_64"

test_expect_success ROOT,BPF,SETPRIV 'the unit'"'"'s set: every frame named, no warning' '
	profile all "$caps" &&
	! grep "without CAP_" all.log &&
	mostly $(named all capsroot "$USER_RE") &&
	mostly $(named all capsprivate "$USER_RE") &&
	mostly $(named all capsdeleted "$USER_RE")
'

test_expect_success ROOT,BPF,SETPRIV,KALLSYMS_NEEDS_SYSLOG 'the unit'"'"'s set: kernel frames named' '
	mostly $(named all capsroot "$KERNEL_RE")
'

# without CAP SERVICES ERE: CAP is named at start-up, and no frame of
# the SERVICES matches ERE; the other workloads' user frames are still
# named.
without () {
	rest=$(echo " $caps " | sed "s/ $1 / /") &&
	test "$rest" != " $caps " &&
	profile "no-$1" "$rest" &&
	grep "^without $1: " "no-$1.log" &&
	for s in capsroot capsprivate capsdeleted; do
		case " $2 " in
		*" $s "*)
			case $(named "no-$1" $s "$3") in
			0/*) ;;
			*) return 1 ;;
			esac ;;
		*)
			mostly $(named "no-$1" $s "$USER_RE") ;;
		esac || return 1
	done
}

# Every workload is another user's or holds capabilities the daemon
# does not.
test_expect_success ROOT,BPF,SETPRIV 'without CAP_SYS_PTRACE: other users'"'"' and privileged processes'"'"' frames' '
	without CAP_SYS_PTRACE "capsroot capsprivate capsdeleted" "$USER_RE"
'

test_expect_success ROOT,BPF,SETPRIV 'without CAP_DAC_READ_SEARCH: a private program'"'"'s frames' '
	without CAP_DAC_READ_SEARCH capsprivate "$USER_RE"
'

test_expect_success ROOT,BPF,SETPRIV 'without CAP_CHECKPOINT_RESTORE: a deleted program'"'"'s frames' '
	without CAP_CHECKPOINT_RESTORE capsdeleted "$USER_RE"
'

test_expect_success ROOT,BPF,SETPRIV,KALLSYMS_NEEDS_SYSLOG 'without CAP_SYSLOG: kernel frames' '
	without CAP_SYSLOG capsroot "$KERNEL_RE"
'

test_done
