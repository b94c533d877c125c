#!/bin/sh
# A systemd of its own, to try a unit on a machine that systemd does not
# run (a container, a CI VM): PID 1 of new pid, mount and cgroup
# namespaces, with an empty /run, every unit directory emptied but for
# the unit under test and empty targets, no generators, and optionally
# an installed tree (make install DESTDIR=...) laid over / with
# overlayfs, writes going to that tree.  Run as root.
#
#   systemd-ns.sh start DIR UNIT [DESTDIR]   start it; DIR keeps its state
#   systemd-ns.sh run DIR COMMAND...         run COMMAND in its namespaces
#   systemd-ns.sh stop DIR                   kill it and all it runs
#
# UNIT is the path of the unit file as systemd is to find it (under
# DESTDIR when one is given); a directory UNIT.d beside it comes too.
# What the service prints goes to DIR/service.log.
set -u

usage() {
	echo "usage: systemd-ns.sh start DIR UNIT [DESTDIR] | run DIR COMMAND... | stop DIR" >&2
	exit 2
}

# The cgroup hierarchies systemd uses: all of cgroup2, or the named
# systemd one and the unified one beside the v1 controllers.
hierarchies() {
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		echo /sys/fs/cgroup
	else
		echo /sys/fs/cgroup/systemd
		[ -d /sys/fs/cgroup/unified ] && echo /sys/fs/cgroup/unified
	fi
}

# In the new namespaces: set them up and become systemd.
inside() {
	dir=$1 unit=$2 dest=$3 cg=$4
	set -e
	mount -t proc proc /proc
	for h in $(hierarchies); do
		mount --bind "$h/$cg" "$h"
	done
	if [ -n "$dest" ]; then
		for d in "$dest"/*; do
			top=/${d##*/}
			mkdir -p "$dir/work$top"
			mount -t overlay overlay -o \
			    "lowerdir=$top,upperdir=$d,workdir=$dir/work$top" "$top"
		done
	fi
	mount -t tmpfs tmpfs /run
	for d in /lib/systemd/system /usr/lib/systemd/system \
	    /usr/local/lib/systemd/system /etc/systemd/system \
	    /lib/systemd/system-generators /usr/lib/systemd/system-generators; do
		[ -d "$d" ] && mount -t tmpfs tmpfs "$d"
	done
	cp -r "$dir/units/." "${unit%/*}/"
	export container=ebpfspy-test
	exec /lib/systemd/systemd --system --unit=multi-user.target \
	    --log-target=console </dev/null
}

start() {
	dir=$1 unit=$2 dest=${3-}
	cg=ebpfspy-systemd-ns-$$
	mkdir -p "$dir/units/${unit##*/}.d" "$dir/work" || exit 1
	for t in sysinit basic local-fs network-online network multi-user \
	    shutdown sockets timers paths slices umount final; do
		printf '[Unit]\nDescription=%s, empty\n' $t >"$dir/units/$t.target"
	done
	cp "$dest$unit" "$dir/units/" || exit 1
	if [ -d "$dest$unit.d" ]; then
		cp "$dest$unit.d"/* "$dir/units/${unit##*/}.d/" || exit 1
	fi
	# What it prints, which the journal would hold.
	printf '[Service]\nStandardOutput=append:%s\nStandardError=append:%s\n' \
	    "$dir/service.log" "$dir/service.log" \
	    >"$dir/units/${unit##*/}.d/zz-systemd-ns-log.conf"
	echo "$cg" >"$dir/cgroup"
	for h in $(hierarchies); do
		mkdir "$h/$cg" || exit 1
	done
	(
		for h in $(hierarchies); do
			echo $$ >"$h/$cg/cgroup.procs" || exit 1
		done
		exec unshare --pid --fork --kill-child --mount --cgroup \
		    --propagation private sh "$self" inside "$dir" "$unit" \
		    "$dest" "$cg"
	) >"$dir/systemd.log" 2>&1 &
	echo $! >"$dir/unshare.pid"
	n=0
	while ! pid=$(pgrep -P "$(cat "$dir/unshare.pid")"); do
		n=$((n + 1))
		[ $n -lt 100 ] || { cat "$dir/systemd.log"; exit 1; }
		sleep 0.1
	done
	echo "$pid" >"$dir/systemd.pid"
	n=0
	until run "$dir" systemctl is-system-running >"$dir/state" 2>&1; do
		grep -q degraded "$dir/state" && break
		n=$((n + 1))
		[ $n -lt 100 ] || { cat "$dir/systemd.log" "$dir/state"; exit 1; }
		sleep 0.1
	done
}

run() {
	dir=$1
	shift
	nsenter -t "$(cat "$dir/systemd.pid")" -m -p -C "$@"
}

# Killing the namespace's PID 1, systemd, kills everything in it.
stop() {
	dir=$1
	[ -f "$dir/systemd.pid" ] &&
	    kill -KILL "$(cat "$dir/systemd.pid")" 2>/dev/null
	[ -f "$dir/unshare.pid" ] &&
	    kill -KILL "$(cat "$dir/unshare.pid")" 2>/dev/null
	[ -f "$dir/cgroup" ] || return 0
	sleep 0.5
	cg=$(cat "$dir/cgroup")
	for h in $(hierarchies); do
		[ -d "$h/$cg" ] && find "$h/$cg" -depth -type d -exec rmdir {} +
	done
	rm -f "$dir/systemd.pid" "$dir/unshare.pid" "$dir/cgroup"
}

[ $# -ge 2 ] || usage
self=$(cd "$(dirname "$0")" && pwd)/${0##*/}
cmd=$1
shift
case $cmd in
start)	[ $# = 2 ] || [ $# = 3 ] || usage; start "$@" ;;
run)	run "$@" ;;
stop)	[ $# = 1 ] || usage; stop "$1" ;;
inside)	inside "$@" ;;
*)	usage ;;
esac
