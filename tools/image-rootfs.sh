#!/bin/sh
# image-rootfs.sh DEB OUT.tar: the root filesystem of ebpfspyd's image
# (deploy/Containerfile), made of Debian packages only: debootstrap's
# minbase of Debian 12 from the mirror apt uses on this host, the
# ebpfspy package DEB (dpkg-buildpackage -b, as tools/test-package.sh
# builds it) with its dependencies, and none of apt's caches.  Run as
# root; the network it needs is the Debian mirror's.
set -eu

if [ $# != 2 ]; then
	echo "usage: image-rootfs.sh DEB OUT.tar" >&2
	exit 2
fi
deb=$1 out=$2
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources \
    2>/dev/null | head -n 1)
: "${mirror:=http://deb.debian.org/debian}"
root=$(mktemp -d)
trap 'umount "$root/proc" 2>/dev/null; rm -rf "$root"' EXIT

debootstrap --variant=minbase bookworm "$root" "$mirror"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/ebpfspy.deb"
mount -t proc proc "$root/proc"
chroot "$root" apt-get install -y -qq --no-install-recommends \
    /tmp/ebpfspy.deb
umount "$root/proc"
# The configuration comes from a ConfigMap (deploy/daemonset.yaml).
mkdir -p "$root/etc/ebpfspy"
cp "$root/etc/ebpfspy.conf" "$root/etc/ebpfspy/ebpfspy.conf"
rm -rf "$root"/tmp/* "$root"/var/lib/apt/lists/* \
    "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* \
    "$root"/usr/share/locale/*
: >"$root/etc/resolv.conf"
tar --numeric-owner -C "$root" -cf "$out" .
