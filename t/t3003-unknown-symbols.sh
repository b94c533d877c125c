#!/bin/sh
test_description='frames without a symbol: module+offset, address, or [unknown]'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

# File offsets of burn_a and burn_b, from the unstripped binary: the
# PT_LOAD segment holding a symbol maps its address to the file.
test_expect_success PYTHON3 'a stripped workload and where its functions are' '
	strip -s -o b3003 "$(command -v burn)" &&
	python3 - "$(command -v burn)" >ranges <<-\EOF
	import subprocess, sys
	f = sys.argv[1]
	segs = []
	for l in subprocess.run(["readelf", "-lW", f], capture_output=True,
	    text=True).stdout.splitlines():
	    w = l.split()
	    if w and w[0] == "LOAD":
	        segs.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))
	for l in subprocess.run(["nm", "-S", f], capture_output=True,
	    text=True).stdout.splitlines():
	    w = l.split()
	    if len(w) == 4 and w[3] in ("burn_a", "burn_b"):
	        a, n = int(w[0], 16), int(w[1], 16)
	        for off, va, sz in segs:
	            if va <= a < va + sz:
	                print(w[3], a - va + off, a - va + off + n)
	EOF
	test_line_count = 2 ranges
'

# in_ranges FILE: how many of the offsets (one per line, weighted by
# the count after them) fall in burn_a or burn_b.
in_ranges () {
	gawk -v r="$(cat ranges | tr "\n" " ")" "
	BEGIN { n = split(r, x, \" \"); for (i = 1; i + 2 <= n; i += 3) {
	    lo[++k] = x[i + 1]; hi[k] = x[i + 2] } }
	{ o = strtonum(\$1); for (i = 1; i <= k; i++)
	    if (o >= lo[i] && o < hi[i]) { s += \$2; break } ; t += \$2 }
	END { printf \"%d %d\\n\", s, t }" "$1"
}

# at_starts FILE: of the offsets in burn_a or burn_b (weighted as
# in_ranges), how many are the function's start, and how many in all.
at_starts () {
	gawk -v r="$(cat ranges | tr "\n" " ")" "
	BEGIN { n = split(r, x, \" \"); for (i = 1; i + 2 <= n; i += 3) {
	    lo[++k] = x[i + 1]; hi[k] = x[i + 2] } }
	{ o = strtonum(\$1); for (i = 1; i <= k; i++)
	    if (o >= lo[i] && o < hi[i]) { t += \$2; if (o == lo[i]) s += \$2 } }
	END { printf \"%d %d\\n\", s, t }" "$1"
}

test_lazy_prereq GAWK 'command -v gawk'

test_expect_success ROOT,BPF,GAWK 'module+0xoffset by default, offsets inside the functions' '
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b3003 -c 2 >w.out &&
	daemon_stop &&
	folded cpu b3003 >mod.folded &&
	grep -E "^b3003;.*;b3003\+0x[0-9a-f]+ [0-9]+$" mod.folded >leaves &&
	sed -E "s/.*;b3003\+(0x[0-9a-f]+) ([0-9]+)$/\1 \2/" leaves >offs &&
	set -- $(in_ranges offs) &&
	echo "$1 of $2 leaf samples inside burn_a/burn_b" &&
	test "$2" -ge 50 &&
	test "$1" -ge $(($2 * 95 / 100))
'

# The stripped file still has .eh_frame_hdr: its table of function
# starts groups a function's addresses under one name.
test_expect_success ROOT,BPF,GAWK 'one name a function: the offset of its start' '
	set -- $(at_starts offs) &&
	echo "$1 of $2 samples in burn_a/burn_b named by the start" &&
	test "$2" -ge 50 &&
	test "$1" = "$2" &&
	cut -d" " -f1 offs | sort -u >names &&
	cat names &&
	test $(wc -l <names) -le 6
'

test_expect_success ROOT,BPF,GAWK 'the raw address when asked, inside the functions' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	[symbols]
	unknown_symbol_module_offset = no
	unknown_symbol_address = yes
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	: >w.out &&
	{ ./b3003 -c 2 >w.out & } &&
	workload_wait w.out &&
	pid=$(sed -n "s/^ready //p" w.out) &&
	grep "r-xp.*/b3003\$" /proc/$pid/maps >map &&
	wait $! &&
	daemon_stop &&
	folded cpu b3003 >addr.folded &&
	! grep -E "b3003\+0x" addr.folded &&
	grep -E "^b3003;.*;0x[0-9a-f]+ [0-9]+$" addr.folded >leaves &&
	read range perm off rest <map &&
	start=$((0x${range%-*})) && off=$((0x$off)) &&
	sed -E "s/.*;(0x[0-9a-f]+) ([0-9]+)$/\1 \2/" leaves |
	while read a n; do
		printf "0x%x %s\n" $((a - start + off)) $n
	done >offs &&
	set -- $(in_ranges offs) &&
	echo "$1 of $2 leaf samples inside burn_a/burn_b" &&
	test "$2" -ge 50 &&
	test "$1" -ge $(($2 * 95 / 100))
'


test_expect_success ROOT,BPF '[unknown] with both options off' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	[symbols]
	unknown_symbol_module_offset = no
	unknown_symbol_address = no
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b3003 -c 1 >w.out &&
	daemon_stop &&
	folded cpu b3003 >unk.folded &&
	! grep -E "b3003\+0x|;0x[0-9a-f]+" unk.folded &&
	n=$(folded_sum "^b3003;(.*;)?\[unknown\]$" <unk.folded) &&
	test "$n" -ge 50
'

test_done
