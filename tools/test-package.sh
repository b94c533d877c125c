#!/bin/sh
# Build the Debian package of the committed tree, check it with lintian,
# install it with apt-get, use it as an administrator would (ebpfspyd -n,
# a short profile from the installed binary, the init script's start,
# reload and stop with its final round), purge it, and check that
# nothing of it is left.  Run as root on Debian 12, after
# tools/install-deps.sh --test; it installs and removes the package
# "ebpfspy" on this machine.  Exit 0 when every check passed.
set -u
cd "$(dirname "$0")/.."

fail=0
step() {
	echo "test-package: $*"
}
check() {
	what=$1
	shift
	if "$@" >"$tmp/check.out" 2>&1; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		sed 's/^/#   /' "$tmp/check.out"
		fail=1
	fi
}

if [ "$(id -u)" != 0 ]; then
	echo "test-package.sh: run as root" >&2
	exit 1
fi
if dpkg -s ebpfspy >/dev/null 2>&1; then
	echo "test-package.sh: ebpfspy is installed already; not touching it" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap '[ -d "$tmp/sd" ] && sh tools/systemd-ns.sh stop "$tmp/sd"; rm -rf "$tmp"' EXIT

step "building the package from $(git rev-parse --short HEAD)"
git clone -q . "$tmp/ebpfspy" || exit 1
if ! (cd "$tmp/ebpfspy" && dpkg-buildpackage -us -uc -b) \
    >"$tmp/build.log" 2>&1; then
	tail -40 "$tmp/build.log"
	echo "not ok - dpkg-buildpackage -us -uc -b"
	exit 1
fi
echo "ok - dpkg-buildpackage -us -uc -b"
deb=$(ls "$tmp"/ebpfspy_*.deb)
check "lintian finds no error" \
    lintian --fail-on error "$tmp"/ebpfspy_*.changes
dpkg-deb -c "$deb" | awk '{ sub(/^\./, "", $6); print $6 }' |
    grep -v '/$' >"$tmp/files"

step "installing $deb"
check "apt-get install ./ebpfspy_*.deb" \
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$deb"
check "the runtime dependencies came from shlibs" \
    sh -c "dpkg -s ebpfspy | grep '^Depends: .*libbpf1.*libelf1'"
check "/etc/ebpfspy.conf is a conffile" \
    sh -c "dpkg-query -W -f='\${Conffiles}\n' ebpfspy | grep ' /etc/ebpfspy.conf '"
check "/etc/ebpfspy.conf is root's alone, 0640: it may hold a password" \
    sh -c "test \"\$(stat -c '%a %U %G' /etc/ebpfspy.conf)\" = '640 root root'"
check "the state directory /var/lib/ebpfspy is 0750" \
    sh -c "test \"\$(stat -c '%a %U' /var/lib/ebpfspy)\" = '750 root'"
check "the man pages are installed" \
    test -f /usr/share/man/man8/ebpfspyd.8.gz -a \
    -f /usr/share/man/man5/ebpfspy.conf.5.gz
check "the unit is installed and enabled" \
    sh -c "test -f /lib/systemd/system/ebpfspyd.service &&
	test -L /etc/systemd/system/multi-user.target.wants/ebpfspyd.service"
check "ebpfspyd -n accepts the installed config" \
    sh -c "/usr/sbin/ebpfspyd -n | grep '^configuration OK\$'"
check "the binary's output directory is the installed config's" \
    sh -c "/usr/sbin/ebpfspyd -n -v | grep '^dir = /var/lib/ebpfspy	'"

# Something to profile, under a name of its own.
cat >"$tmp/spin.c" <<-\EOF
int
main(void)
{
	volatile unsigned long n;

	for (;;)
		n++;
}
EOF
gcc -O2 -o "$tmp/pkgspin" "$tmp/spin.c" || exit 1
"$tmp/pkgspin" &
spin=$!
cat >"$tmp/short.conf" <<-\EOF
[metrics]
listen =
EOF
check "a short profile from the installed binary" \
    /usr/sbin/ebpfspyd -d -t 3 -c "$tmp/short.conf" -o "$tmp/prof"
check "it profiled the workload" \
    sh -c "ls $tmp/prof/cpu/pkgspin/*.pb.gz $tmp/prof/cpu/pkgspin/latest.svg"

# The service, through systemd: the host's, or where none runs the
# host, one of its own in namespaces (tools/systemd-ns.sh) with the
# package's unit.
if [ -d /run/systemd/system ]; then
	sd() { "$@"; }
else
	mkdir "$tmp/sd"
	sh tools/systemd-ns.sh start "$tmp/sd" \
	    /lib/systemd/system/ebpfspyd.service || exit 1
	sd() { sh tools/systemd-ns.sh run "$tmp/sd" "$@"; }
fi
check "systemctl start ebpfspyd" sd systemctl start ebpfspyd
check "active, its pidfile in /run/ebpfspyd" \
    sd sh -c "systemctl is-active ebpfspyd &&
	test \$(systemctl show -p MainPID --value ebpfspyd) = \$(cat /run/ebpfspyd/ebpfspyd.pid)"
# A workload started while the service runs, as t0202 does: under
# tools/systemd-ns.sh the service has a pid namespace of its own, in
# which a process that was running before it started has no /proc
# entry to be looked up by, so it is not profiled (under the host's
# systemd every process is).
timeout 3 "$tmp/pkgspin"
check "systemctl reload ebpfspyd" sd systemctl reload ebpfspyd
sleep 1
check "systemctl stop ebpfspyd" sd systemctl stop ebpfspyd
check "its final round wrote the state directory" \
    sh -c "ls /var/lib/ebpfspy/cpu/*/*.pb.gz >/dev/null"
[ -d /run/systemd/system ] || sh tools/systemd-ns.sh stop "$tmp/sd"
rm -rf /var/lib/ebpfspy/cpu

# The service, through the init script (policy-rc.d may have kept the
# package from starting it).
check "the service starts" /etc/init.d/ebpfspyd start
check "its pidfile is /run/ebpfspyd/ebpfspyd.pid" \
    sh -c "kill -0 \$(cat /run/ebpfspyd/ebpfspyd.pid)"
# As the unit runs it: t0200 and t0202 check the same.
. t/lib-caps.sh
mask=$(caps_mask $(unit_caps /lib/systemd/system/ebpfspyd.service))
printf "Umask:\t0027\nCapEff:\t%s\nCapBnd:\t%s\nNoNewPrivs:\t1\n" \
    "$mask" "$mask" >"$tmp/status.expect"
check "it holds the unit's capabilities only, umask 0027" \
    sh -c "grep -E '^(Umask|CapEff|CapBnd|NoNewPrivs):' \
	/proc/\$(cat /run/ebpfspyd/ebpfspyd.pid)/status |
	diff -u $tmp/status.expect -"
if [ ! -S /dev/log ]; then
	check "without a syslog it logs to /var/log/ebpfspyd.log, 0640" \
	    sh -c "grep -q 'info: ready: ' /var/log/ebpfspyd.log &&
	    test \"\$(stat -c %a /var/log/ebpfspyd.log)\" = 640"
fi
check "a second start leaves it alone" /etc/init.d/ebpfspyd start
check "it reloads" /etc/init.d/ebpfspyd reload
check "status: running" /etc/init.d/ebpfspyd status
check "it stops" /etc/init.d/ebpfspyd stop
check "its final round wrote the workload's profile" \
    sh -c "ls /var/lib/ebpfspy/cpu/pkgspin/*.pb.gz"
check "nothing under /var/lib/ebpfspy is for every user" \
    sh -c "find /var/lib/ebpfspy -perm /o=rwx | diff /dev/null -"
check "nobody reads no profile" \
    sh -c "f=\$(ls /var/lib/ebpfspy/cpu/*/*.pb.gz | head -n 1) &&
	test -s \"\$f\" &&
	! setpriv --reuid=65534 --regid=65534 --clear-groups cat \"\$f\" \
	    >/dev/null 2>&1"
kill "$spin"

step "purging"
check "apt-get purge ebpfspy" \
    apt-get -o DPkg::Lock::Timeout=600 purge -y -qq ebpfspy
check "dpkg knows no ebpfspy" \
    sh -c "! dpkg -s ebpfspy"
check "none of its files is left" \
    sh -c "for f in \$(cat $tmp/files); do
	test ! -e \"\$f\" || { echo \"left: \$f\"; exit 1; }
    done"
check "no profiles, pidfile or enablement is left" \
    sh -c "! ls -d /var/lib/ebpfspy /run/ebpfspyd \
	/etc/systemd/system/*.wants/ebpfspyd.service \
	/etc/rc?.d/*ebpfspyd /var/log/ebpfspyd.log \
	/var/lib/systemd/deb-systemd-helper-enabled/ebpfspyd.service 2>/dev/null"
exit $fail
