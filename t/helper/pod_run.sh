#!/bin/sh
# pod_run.sh MANIFEST NODE CONFDIR DAEMON [ARG...]: run DAEMON (a path
# on this host) as the container of MANIFEST (deploy/daemonset.yaml)
# would run: in a new mount namespace whose root is a read-only tmpfs
# holding only the image's files and the manifest's mounts
# (t/helper/pod_mounts.py reads them).  The image's files are this
# host's /usr and a copy of its /etc (the package's dependencies, as the
# image has them) and DAEMON at /ebpfspyd.  A hostPath is NODE/PATH where the test
# made one (its fake /var/log/pods), else the host's PATH; a configMap
# is CONFDIR; an emptyDir a new directory.  hostPID: the host's PID
# namespace, so a new /proc of it.  The daemon runs from / with ARGs.
set -eu

if [ "${1-}" = inside ]; then
	shift
	manifest=$1 node=$2 confdir=$3 daemon=$4 root=$5
	shift 5
	mount -t tmpfs -o mode=0755 tmpfs "$root"
	mkdir "$root/usr"
	mount --rbind /usr "$root/usr"
	mount -o remount,ro,bind "$root/usr"
	# A copy of /etc, as the image has its own, with the mount point
	# of the configMap that image-rootfs.sh makes.
	mkdir "$root/etc"
	cp -a /etc/. "$root/etc/"
	mkdir -p "$root/etc/ebpfspy"
	for d in bin sbin lib lib64; do
		if [ -L "/$d" ]; then
			ln -s "$(readlink "/$d")" "$root/$d"
		elif [ -d "/$d" ]; then
			mkdir "$root/$d"
			mount --rbind "/$d" "$root/$d"
		fi
	done
	: >"$root/ebpfspyd"
	mount --bind "$daemon" "$root/ebpfspyd"
	mkdir "$root/proc" "$root/sys" "$root/dev" "$root/run" "$root/var"
	mount -t proc proc "$root/proc"
	mount -t sysfs -o ro sysfs "$root/sys"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs tmpfs "$root/run"
	python3 "$(dirname "$0")/pod_mounts.py" "$manifest" |
	while IFS='	' read -r path src mode; do
		case $path in
		hostPID)
			[ "$src" = true ] || { echo "no hostPID" >&2; exit 1; }
			continue ;;
		esac
		case $src in
		configMap)
			src=$confdir ;;
		emptyDir)
			src=$(mktemp -d) ;;
		*)
			if [ -e "$node$src" ]; then
				src=$node$src
			elif [ ! -e "$src" ]; then
				mkdir -p "$node$src"
				src=$node$src
			fi ;;
		esac
		# Under /sys a mount point is there already; elsewhere the
		# tmpfs root gets one.
		[ -d "$root$path" ] || mkdir -p "$root$path"
		mount --rbind "$src" "$root$path"
		if [ "$mode" = ro ]; then
			mount -o remount,ro,bind "$root$path"
		fi
	done
	# readOnlyRootFilesystem
	mount -o remount,ro "$root"
	cd "$root"
	exec chroot "$root" /ebpfspyd "$@"
fi

[ $# -ge 4 ] || {
	echo "usage: pod_run.sh MANIFEST NODE CONFDIR DAEMON [ARG...]" >&2
	exit 2
}
manifest=$1 node=$2 confdir=$3 daemon=$4
shift 4
root=$(mktemp -d)
exec unshare --mount --propagation private sh "$0" inside "$manifest" \
    "$node" "$confdir" "$daemon" "$root" "$@"
