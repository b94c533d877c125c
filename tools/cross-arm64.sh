#!/bin/sh
# The userspace built for arm64 with Debian's cross compiler, a
# portability check run by CI (issue 32, doc/arm64.md): any warning
# fails it (-Werror), so a C construct that x86_64 forgives and aarch64
# does not (char is unsigned there, long double is 128 bits, an
# #ifdef __x86_64__ without its other half) is seen before anyone runs
# on arm64.  The result cannot profile -- its BPF object is x86's, there
# being no arm64 vmlinux.h -- and is not installed or run.
#
#   tools/cross-arm64.sh [--no-install]
#
# It builds HEAD, cloned into build-arm64/ (the source tree is
# configured in place, and automake refuses a second build of it),
# after tools/install-deps.sh --cross-arm64 unless --no-install.  The
# main build's x86 BPF object and skeleton, when there, are taken
# rather than compiled again: the userspace only includes the skeleton.
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
case ${1-} in
--no-install)	;;
'')		sh tools/install-deps.sh --cross-arm64 ;;
*)		echo "usage: cross-arm64.sh [--no-install]" >&2; exit 2 ;;
esac
rm -rf build-arm64
git clone -q . build-arm64
mkdir -p build-arm64/bpf
for f in bpf/profile.bpf.o bpf/profile.skel.h; do
	if [ -f "$f" ]; then cp "$f" "build-arm64/$f"; fi
done
cd build-arm64
./autogen.sh >/dev/null 2>&1
./configure -q --host=aarch64-linux-gnu --enable-arm64-userspace \
    PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
    >configure.out 2>&1 || { cat configure.out; exit 1; }
# The generated protobuf headers first: BUILT_SOURCES orders them
# before "all" only, not before a target named alone.
make -s src/profile/profile.pb-c.h src/push/push.pb-c.h >make.out 2>&1 &&
    make -s -j2 ebpfspyd CFLAGS="-O2 -Werror" >>make.out 2>&1 ||
    { cat make.out; exit 1; }
if ! readelf -h ebpfspyd | grep -q "Machine: *AArch64"; then
	echo "cross-arm64: ebpfspyd is not an aarch64 executable" >&2
	exit 1
fi
echo "cross-arm64: the userspace builds for aarch64, in" \
    "$(($(date +%s) - start)) s"
