#!/bin/sh
test_description='retention of the output directory

t/helper/retention runs the sweep the daemon runs after each round, at
a given time, over files with crafted names, sizes and mtimes: exactly
the profiles over age go (by the time in the name, else the mtime), a
dead service goes whole, stale temporary files go, then exactly the
oldest profiles over max_bytes; nothing that is not ours, nothing
through a symlink.  Last, the daemon sweeps its own output directory.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

NOW=1796206500		# 2026-12-02T10:15:00Z

# stamp SECONDS_AGO: the sink's name for a profile written then.
stamp () {
	date -u -d "@$((NOW - $1))" +%Y%m%dT%H%M%SZ
}

# mk FILE BYTES [SECONDS_AGO]: a file of that size, modified then.
mk () {
	mkdir -p "$(dirname "$1")" &&
	head -c "$2" /dev/zero >"$1" &&
	touch -d "@$((NOW - ${3:-0}))" "$1"
}

# listing DIR: the files under DIR with their sizes, and the symlinks.
listing () {
	(cd "$1" && find . -type f -printf '%p %s\n' -o \
	    -type l -printf '%p -> %l\n') | sed 's|^\./||' | sort
}

test_expect_success 'setup: a tree of profiles, ours and not ours' '
	mk age/cpu/live/$(stamp 3601).pb.gz 10 &&
	mk age/cpu/live/$(stamp 3601).folded 10 &&
	mk age/cpu/live/$(stamp 7200)-12.folded 10 &&
	mk age/cpu/live/$(stamp 3600).pb.gz 10 36000 &&
	mk age/cpu/live/$(stamp 5).folded 10 36000 &&
	mk age/cpu/live/20261399T000000Z.pb.gz 10 3601 &&
	mk age/cpu/live/20261399T000000Z.folded 10 3600 &&
	mk age/cpu/live/latest.svg 10 36000 &&
	mk age/cpu/live/last-hour.svg 10 36000 &&
	mk age/cpu/live/.latest.svg.a1B2c3 10 601 &&
	mk age/cpu/live/.last-hour.svg.a1B2c4 10 600 &&
	mk age/cpu/live/notes.txt 10 99999 &&
	mk age/cpu/live/$(stamp 99999).pb.gz.orig 10 99999 &&
	mk age/cpu/live/.$(stamp 99999).pb.gz.tmp 10 99999 &&
	mkdir age/cpu/live/$(stamp 99999).folded &&
	mk elsewhere/$(stamp 99999).pb.gz 10 99999 &&
	ln -s ../../../elsewhere/$(stamp 99999).pb.gz \
	    age/cpu/live/$(stamp 99998).pb.gz &&
	ln -s ../../elsewhere age/cpu/linked &&
	mk age/offcpu/gone/$(stamp 7200).pb.gz 10 &&
	mk age/offcpu/gone/latest.svg 10 7200 &&
	mk age/offcpu/gone/last-hour.svg 10 7200 &&
	mk age/offcpu/kept/$(stamp 7200).pb.gz 10 &&
	mk age/offcpu/kept/latest.svg 10 7200 &&
	mk age/offcpu/kept/core 10 99999 &&
	mk age/other/s/$(stamp 99999).pb.gz 10 99999
'

test_expect_success 'by age: exactly what is over the hour goes' '
	retention -r 1 -n $NOW age &&
	sort >expect <<-EOF &&
	cpu/linked -> ../../elsewhere
	cpu/live/.$(stamp 99999).pb.gz.tmp 10
	cpu/live/.last-hour.svg.a1B2c4 10
	cpu/live/$(stamp 3600).pb.gz 10
	cpu/live/$(stamp 5).folded 10
	cpu/live/$(stamp 99998).pb.gz -> ../../../elsewhere/$(stamp 99999).pb.gz
	cpu/live/$(stamp 99999).pb.gz.orig 10
	cpu/live/20261399T000000Z.folded 10
	cpu/live/last-hour.svg 10
	cpu/live/latest.svg 10
	cpu/live/notes.txt 10
	offcpu/kept/core 10
	other/s/$(stamp 99999).pb.gz 10
	EOF
	listing age >actual &&
	test_cmp expect actual &&
	test_path_is_dir age/cpu/live/$(stamp 99999).folded &&
	test_path_is_missing age/offcpu/gone &&
	test_path_is_file elsewhere/$(stamp 99999).pb.gz
'

test_expect_success 'retention_hours = 0: only stale temporary files go' '
	mk forever/cpu/s/$(stamp 999999).pb.gz 10 999999 &&
	mk forever/cpu/s/latest.svg 10 999999 &&
	mk forever/cpu/s/.latest.svg.zzzzzz 10 601 &&
	retention -r 0 -m 0 -n $NOW forever &&
	sort >expect <<-EOF &&
	cpu/s/$(stamp 999999).pb.gz 10
	cpu/s/latest.svg 10
	EOF
	listing forever >actual &&
	test_cmp expect actual
'

test_expect_success 'setup: 1000 bytes of profiles over two services' '
	mk size/cpu/a/$(stamp 50).pb.gz 100 &&
	mk size/cpu/a/$(stamp 50).folded 50 &&
	mk size/cpu/a/$(stamp 40).pb.gz 300 &&
	mk size/cpu/a/$(stamp 40)-1.pb.gz 100 &&
	mk size/offcpu/b/$(stamp 45).pb.gz 200 &&
	mk size/offcpu/b/$(stamp 10).pb.gz 200 &&
	mk size/offcpu/b/latest.svg 50 9999 &&
	mk size/offcpu/b/README 100000
'

test_expect_success 'by size: nothing goes at max_bytes' '
	listing size >expect &&
	retention -m 1000 -n $NOW size &&
	listing size >actual &&
	test_cmp expect actual
'

test_expect_success 'by size: exactly the oldest go, until it fits' '
	retention -m 850 -n $NOW size &&
	sort >expect <<-EOF &&
	cpu/a/$(stamp 40)-1.pb.gz 100
	cpu/a/$(stamp 40).pb.gz 300
	offcpu/b/$(stamp 10).pb.gz 200
	offcpu/b/$(stamp 45).pb.gz 200
	offcpu/b/README 100000
	offcpu/b/latest.svg 50
	EOF
	listing size >actual &&
	test_cmp expect actual &&
	retention -m 849 -n $NOW size &&
	sed "/$(stamp 45)/d" expect >expect2 &&
	listing size >actual &&
	test_cmp expect2 actual
'

test_expect_success 'by size: flame graphs and files not ours stay' '
	retention -m 1 -n $NOW size &&
	sort >expect <<-EOF &&
	offcpu/b/README 100000
	offcpu/b/latest.svg 50
	EOF
	listing size >actual &&
	test_cmp expect actual
'

test_expect_success ROOT,BPF 'the daemon sweeps its output directory' '
	mkworkload burn b6001 &&
	old=$(date -u -d "-2 hours" +%Y%m%dT%H%M%SZ) &&
	mk out/cpu/b6001/$old.pb.gz 10 &&
	mk out/cpu/b6001/$old.folded 10 &&
	mk out/cpu/dead6001/$old.pb.gz 10 &&
	touch -d "-2 hours" out/cpu/dead6001/$old.pb.gz &&
	mk out/cpu/dead6001/notours 10 &&
	profile_config <<-\EOF &&
	[output]
	retention_hours = 1
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b6001 -t 2 >burn.out &&
	daemon_stop &&
	ls out/cpu/b6001/*.pb.gz >profiles &&
	test_line_count = 1 profiles &&
	test_path_is_missing out/cpu/b6001/$old.pb.gz &&
	test_path_is_missing out/cpu/b6001/$old.folded &&
	test_path_is_missing out/cpu/dead6001/$old.pb.gz &&
	test_path_is_file out/cpu/dead6001/notours
'

test_done
