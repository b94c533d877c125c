#!/bin/sh
# Install what ebpfspy needs on Debian 12.  Run as root; safe to run
# again.
#
#   tools/install-deps.sh          what building and running need
#   tools/install-deps.sh --test   that, and what the tests and the
#                                  Debian package build need too
#   tools/install-deps.sh --cross-arm64
#                                  Debian's aarch64 cross compiler and
#                                  the libraries' arm64 -dev packages,
#                                  for tools/cross-arm64.sh: adds the
#                                  arm64 architecture to dpkg
#
# Running the daemon needs only the shared libraries of the build
# dependencies (libbpf1, libelf1, libev4, libinih1, libprotobuf-c1,
# libmicrohttpd12, libcurl4, liblzma5, zlib1g, libjson-c5), which these
# pull in.
set -e
export DEBIAN_FRONTEND=noninteractive
usage() {
	echo "usage: install-deps.sh [--test | --cross-arm64]" >&2
	exit 2
}
test=
cross=
case $# in
0)	;;
1)	case $1 in
	--test)		test=1 ;;
	--cross-arm64)	cross=1 ;;
	*)		usage ;;
	esac ;;
*)	usage ;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: run as root" >&2
	exit 1
fi
build="autoconf automake make gcc libc6-dev pkg-config clang llvm bpftool
	libbpf-dev libelf-dev libdw-dev libdebuginfod-dev zlib1g-dev libev-dev
	libinih-dev libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev
	libcurl4-openssl-dev liblzma-dev libiberty-dev libjson-c-dev"
tests="prometheus curl xz-utils g++ nodejs elfutils debuginfod dwz libc6-dbg python3 golang-go gawk
	linux-perf libssl3 protobuf-compiler
	binutils groff-base mandoc procps util-linux libcap2-bin
	libxml2-utils chromium fonts-dejavu-core
	debhelper dh-autoreconf dpkg-dev fakeroot lintian
	libclang-rt-14-dev"
if [ -n "$cross" ]; then
	# The libraries the userspace links, as configure asks for them.
	libs="libbpf-dev libelf-dev libdw-dev libdebuginfod-dev zlib1g-dev libev-dev libinih-dev
		libprotobuf-c-dev libmicrohttpd-dev libcurl4-openssl-dev
		liblzma-dev libiberty-dev libjson-c-dev libc6-dev"
	dpkg --print-foreign-architectures | grep -qx arm64 ||
	    dpkg --add-architecture arm64
	apt-get -o DPkg::Lock::Timeout=600 update -qq
	# shellcheck disable=SC2086	# a list of words
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
	    --no-install-recommends gcc-aarch64-linux-gnu \
	    $(for p in $libs; do echo "$p:arm64"; done) >/dev/null
	exit 0
fi
apt-get -o DPkg::Lock::Timeout=600 update -qq
# shellcheck disable=SC2086	# lists of words
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
	$build ${test:+$tests} >/dev/null
if [ -n "$test" ]; then
	# The pprof-format package, a reader of pprof the tests check our
	# files against (t6002).  Debian's nodejs comes without npm.
	command -v npm >/dev/null 2>&1 ||
	    apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
	    --no-install-recommends npm >/dev/null
	npm install -g --no-audit --no-fund --loglevel=error pprof-format@2 \
	    >/dev/null
fi
