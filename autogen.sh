#!/bin/sh
# Generate configure and Makefile.in from a git checkout.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf -fi
if ! test -f build-aux/tap-driver.sh; then
	cp "$(automake --print-libdir)/tap-driver.sh" build-aux/
fi
