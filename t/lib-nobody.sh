# lib-nobody.sh: what an unprivileged user does to the daemon (t81xx).
# Source it after test-lib.sh and lib-daemon.sh.
#
#   as_nobody CMD...		CMD run as nobody
#   nobody_setup		./home, a directory of nobody's with a copy
#				of t/helper/uwremap in it
#   nobody_conf		ebpfspy.conf: a round a second, DWARF
#				unwinding, /metrics on a free loopback port
#				($PORT, kept in ./port), only uwremap profiled

test_lazy_prereq NOBODY 'id nobody && setpriv --version'
test_lazy_prereq CURL 'test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version'

as_nobody () {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

nobody_setup () {
	mkdir -m 755 home &&
	cp "$(command -v uwremap)" home/uwremap &&
	chown -R nobody home
}

nobody_conf () {
	PORT=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])') &&
	echo "$PORT" >port &&
	cat >ebpfspy.conf <<-EOF
	[daemon]
	collect_interval = 1
	[profile]
	sample_rate = 499
	unwind = dwarf
	[metrics]
	listen = 127.0.0.1:$PORT
	[targets]
	targets_only = yes
	[target "uwremap"]
	comm = uwremap
	EOF
}

PORT=$(cat port 2>/dev/null)
