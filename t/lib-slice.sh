# lib-slice.sh: run a test's processes in a cgroup of their own that is
# no systemd unit, so that what names processes outside units applies to
# them: on a host with systemd the test's own session scope would name
# them.  Source it after test-lib.sh, with SLICE set (t4101.slice).
#
#   CG			the cgroup v2 hierarchy
#   CGROUP2		prerequisite: root, and a cgroup can be made there
#   slice		make $CG/$SLICE, removed when the test ends
#   in_slice CMD...	run CMD in $CG/$SLICE

CG=/sys/fs/cgroup/unified
test -d $CG || CG=/sys/fs/cgroup
test_lazy_prereq CGROUP2 '
	test "$(id -u)" = 0 && test -f '$CG'/cgroup.procs &&
	mkdir '$CG'/ebpfspy-probe-'$SLICE' &&
	rmdir '$CG'/ebpfspy-probe-'$SLICE'
'

slice () {
	mkdir -p "$CG/$SLICE" &&
	test_when_finished "rmdir $CG/$SLICE"
}

in_slice () {
	sh -c 'echo $$ >"$0"/cgroup.procs && exec "$@"' "$CG/$SLICE" "$@"
}
