# lib-caps.sh: the capabilities the systemd unit gives the daemon, for
# the tests that check a daemon holds exactly those, however started.
# Source it after test-lib.sh.
#
#   unit_caps UNIT	the unit's CapabilityBoundingSet, CAP_X CAP_Y ...
#   caps_mask CAP...	their mask as /proc/PID/status shows it (CapBnd),
#			16 hex digits; fails on a name the kernel headers
#			do not know

unit_caps () {
	sed -n "s/^CapabilityBoundingSet=//p" "$1"
}

caps_mask () {
	caps_mask_=0
	for caps_c_ in "$@"; do
		caps_n_=$(grep -w "define $caps_c_" \
		    /usr/include/linux/capability.h | awk "{ print \$3 }") &&
		test -n "$caps_n_" || {
			echo >&2 "caps_mask: $caps_c_: no such capability"
			return 1
		}
		caps_mask_=$((caps_mask_ | (1 << caps_n_)))
	done
	printf "%016x\n" $caps_mask_
}
