#!/bin/sh
test_description='off-CPU: the timestamp map does not keep exited threads'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success ROOT,BPF,PYTHON3 '1000 short-lived threads leave no entry behind' '
	mkworkload waiter w3103 &&
	profile_config <<-\EOF &&
	[profile]
	cpu = no
	offcpu = yes
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./w3103 -m spawn >w.out &&
	pid=$(sed -n "s/^ready //p" w.out) &&
	bpftool -j map dump name offcpu_start >map.json &&
	daemon_stop &&
	python3 - "$pid" <<-\EOF &&
	import json, sys
	def entries(x):
	    if isinstance(x, list):
	        for y in x:
	            yield from entries(y)
	    elif isinstance(x, dict):
	        if "elements" in x:
	            yield from entries(x["elements"])
	        elif "key" in x:
	            yield x
	pid = int(sys.argv[1])
	mine = [e for e in entries(json.load(open("map.json")))
	    if e["formatted"]["value"]["pid"] == pid]
	print(len(mine), "entries of pid", pid)
	sys.exit(1 if mine else 0)
	EOF
	n=$(folded offcpu w3103 | folded_sum ";short_thread;") &&
	echo "short_thread blocked $n ns" &&
	test "$n" -ge 500000000
'

test_done
