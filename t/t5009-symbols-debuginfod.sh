#!/bin/sh
test_description='debug files of stripped programs fetched from debuginfod

A real debuginfod (Debian'"'"'s, elfutils) on loopback serves the
unstripped builds of t/helper/inlinew.c; the daemon profiles stripped
copies.  Their frames get names, inlined frames and source lines once
the debug file is fetched, into debuginfod_cache only; the cache stays under
debuginfod_cache_bytes.  A server stopped, one that sends garbage and
one that does not answer in time: each failure counted by result, and
the rounds keep their pace.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

SRC="$EBPFSPY_SOURCE_DIR/t/helper/inlinew.c"

test_lazy_prereq DEBUGINFOD 'command -v debuginfod && cc --version &&
	command -v curl && command -v python3'

test_atexit 'for f in "$TRASH_DIRECTORY"/*pid; do
	test -f "$f" && kill $(cat "$f") 2>/dev/null; done; :'

free_port () {
	python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])"
}

# build N: inlinew -O2 -g with build id 0x5009000N in srv/, and a
# stripped copy s5009N here.
build () {
	cc -O2 -g -Wl,--build-id=0x5009000$1 -o srv/inl$1 "$SRC" &&
	strip -o s5009$1 srv/inl$1
}

# metric NAME RESULT: a value of /metrics.
metric () {
	curl -sS --max-time 5 "http://127.0.0.1:$MPORT/metrics" |
	    awk -v n="$1{result=\"$2\"}" "\$1 == n { print \$2 }"
}

# fetched_more RESULT BEFORE: wait (10 s at most) until the fetches of
# RESULT are more than BEFORE.
fetched_more () {
	n=0
	until test "$(metric ebpfspy_debuginfod_fetches_total $1)" -gt "$2"
	do
		n=$((n + 1))
		test $n -lt 100 || return 1
		sleep 0.1
	done
}

# rounds_steady: the round lines of the log come each second: no gap of
# more than 3 s between two, in the last 8.
rounds_steady () {
	grep -E "^round [0-9]+ done" "$DAEMON_LOG" | wc -l >/dev/null &&
	n0=$(grep -cE "^round [0-9]+ done" "$DAEMON_LOG") &&
	sleep 8 &&
	n1=$(grep -cE "^round [0-9]+ done" "$DAEMON_LOG") &&
	echo "$((n1 - n0)) rounds in 8 s" &&
	test $((n1 - n0)) -ge 5
}

test_expect_success DEBUGINFOD 'a debuginfod on loopback serving the unstripped builds' '
	mkdir srv &&
	build 1 && build 2 && build 3 && build 4 && build 5 &&
	PORT=$(free_port) &&
	{ debuginfod -p $PORT -F srv -d "$TRASH_DIRECTORY/db.sqlite" \
	    >srv.log 2>&1 & echo $! >dbgd.srvpid; } &&
	n=0 &&
	until curl -sf -o probe \
	    http://127.0.0.1:$PORT/buildid/50090005/debuginfo; do
		n=$((n + 1)) && test $n -lt 300 && sleep 0.1 || {
			cat srv.log; return 1; }
	done &&
	cmp probe srv/inl5 &&
	echo $PORT >port
'
PORT=$(cat port 2>/dev/null)
MPORT=$(free_port 2>/dev/null)

test_expect_success ROOT,BPF,DEBUGINFOD 'a stripped program: named, mix inlined, once its debug file is fetched' '
	profile_config <<-EOF &&
	[metrics]
	listen = 127.0.0.1:$MPORT
	[symbols]
	debuginfod_urls = http://127.0.0.1:$PORT
	debuginfod_cache = $TRASH_DIRECTORY/cache
	debuginfod_cache_bytes = 65536
	debuginfod_timeout = 3
	EOF
	sed -i "s/^collect_interval = .*/collect_interval = 1/" ebpfspy.conf &&
	daemon_start -c ebpfspy.conf -o out &&
	{ ./s50091 -c 300 >a.out & } &&
	echo $! >a.pid &&
	# The machine may have many stripped files to ask about first.
	n=0 &&
	until test -f cache/.build-id/50/090001.debug; do
		n=$((n + 1)) && test $n -lt 1200 && sleep 0.1 || return 1
	done &&
	# The rounds after the fetch name the frames: wait for one (a
	# sanitized daemon on a loaded machine is slow), then two more.
	n=0 &&
	until folded cpu s50091 | grep -q "hash_block;mix (inlined)"; do
		n=$((n + 1)) && test $n -lt 600 && sleep 0.1 || {
			folded cpu s50091; return 1; }
	done &&
	sleep 2 &&
	kill $(cat a.pid) &&
	folded cpu s50091 >a.folded &&
	grep -q "hash_block;mix (inlined)" a.folded &&
	if command -v go >/dev/null; then
		go tool pprof -lines -top -nodecount=100 \
		    out/cpu/s50091/*.pb.gz >pprof.top 2>&1 &&
		grep -E " mix \(inlined\) .*/inlinew\.c:2[234]( \(inline\))?\$" \
		    pprof.top
	fi &&
	test_path_is_file cache/.build-id/50/090001.debug &&
	test "$(metric ebpfspy_debuginfod_fetches_total ok)" = 1 &&
	! test -e out/.debuginfod
'

test_expect_success ROOT,BPF,DEBUGINFOD 'the cache stays under debuginfod_cache_bytes' '
	./s50092 -c 3 >b.out &&
	./s50093 -c 3 >c.out &&
	./s50094 -c 3 >d.out &&
	n=0 &&
	until test "$(metric ebpfspy_debuginfod_fetches_total ok)" = 4; do
		n=$((n + 1)) && test $n -lt 600 && sleep 0.1 || {
			curl -sS "http://127.0.0.1:$MPORT/metrics" |
			    grep debuginfod
			return 1
		}
	done &&
	# Four files of 24 KiB fetched: two fit 64 KiB, the older two went.
	find cache/.build-id -type f >kept &&
	cat kept &&
	test $(find cache/.build-id -type f -printf "%b\n" |
	    awk "{ s += \$1 * 512 } END { print s }") -le 65536 &&
	test $(wc -l <kept) = 2
'

test_expect_success ROOT,BPF,DEBUGINFOD 'the server stopped: counted, the rounds go on' '
	kill $(cat dbgd.srvpid) &&
	rm dbgd.srvpid &&
	before=$(metric ebpfspy_debuginfod_fetches_total error) &&
	./s50095 -c 3 >e.out &&
	fetched_more error "$before" &&
	rounds_steady
'

# A server answering 200 with bytes that are no ELF file; one that
# answers after 30 s when the fetch may take 3.
test_expect_success ROOT,BPF,DEBUGINFOD 'garbage, and a server too slow: counted, not kept' '
	mkdir srv2 &&
	build 6 && build 7 &&
	mv srv/inl6 srv/inl7 srv2/ &&
	GPORT=$(free_port) &&
	cat >garbage.py <<-\EOF &&
	import http.server, sys, time
	class H(http.server.BaseHTTPRequestHandler):
	    def do_GET(self):
	        if sys.argv[2] == "slow":
	            time.sleep(30)
	        body = b"no ELF file here\n" * 64
	        self.send_response(200)
	        self.send_header("Content-Length", str(len(body)))
	        self.end_headers()
	        self.wfile.write(body)
	    def log_message(self, *a):
	        pass
	http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
	EOF
	{ python3 garbage.py $GPORT fast & echo $! >garbage.srvpid; } &&
	sed -i "s|^debuginfod_urls = .*|debuginfod_urls = http://127.0.0.1:$GPORT|" \
	    ebpfspy.conf &&
	r=$(grep -c "^reloaded " "$DAEMON_LOG" || :) &&
	daemon_signal HUP &&
	daemon_wait_log_count "^reloaded " $((r + 1)) &&
	bad=$(metric ebpfspy_debuginfod_fetches_total bad_file) &&
	./s50096 -c 3 >f.out &&
	fetched_more bad_file "$bad" &&
	! find cache/.build-id -name "090006.debug" | grep -q . &&
	kill $(cat garbage.srvpid) && rm garbage.srvpid &&
	SPORT=$(free_port) &&
	{ python3 garbage.py $SPORT slow & echo $! >slow.srvpid; } &&
	sed -i "s|^debuginfod_urls = .*|debuginfod_urls = http://127.0.0.1:$SPORT|" \
	    ebpfspy.conf &&
	daemon_signal HUP &&
	daemon_wait_log_count "^reloaded " $((r + 2)) &&
	slow=$(( $(metric ebpfspy_debuginfod_fetches_total timeout) + \
	    $(metric ebpfspy_debuginfod_fetches_total error) )) &&
	{ ./s50097 -c 12 >g.out & } &&
	rounds_steady &&
	wait $! &&
	n=0 &&
	until test $(( $(metric ebpfspy_debuginfod_fetches_total timeout) + \
	    $(metric ebpfspy_debuginfod_fetches_total error) )) -gt $slow; do
		n=$((n + 1)) && test $n -lt 200 && sleep 0.1 || return 1
	done &&
	daemon_stop &&
	find cache -newer ebpfspy.conf -type f >written &&
	cat written &&
	! grep -v "^cache/" written
'

test_done
