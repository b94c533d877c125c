#!/bin/sh
# Install what ebpfspy needs to build, run and test on Debian 12.
# Run as root.  Safe to run again.
set -e
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: run as root" >&2
	exit 1
fi
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
	autoconf automake make gcc libc6-dev pkg-config \
	clang libclang-rt-14-dev llvm bpftool libbpf-dev libelf-dev zlib1g-dev \
	libev-dev libinih-dev libprotobuf-c-dev protobuf-c-compiler \
	libmicrohttpd-dev prometheus curl libcurl4-openssl-dev \
	liblzma-dev libiberty-dev libjson-c-dev xz-utils g++ nodejs elfutils \
	python3 golang-go gawk binutils groff-base mandoc procps util-linux \
	libxml2-utils chromium fonts-dejavu-core \
	>/dev/null
