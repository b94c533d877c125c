#!/bin/sh
# `make fuzz' outside a fuzz build: copy the sources (as git sees them,
# uncommitted changes included) to DIR, configure them there with clang
# and --enable-fuzz, and run `make fuzz' in it.  automake will not build
# a second time out of a source tree configured in place, hence a copy.
#	fuzz/build.sh SRCDIR DIR SECONDS [NAME...]
set -e
src=$1 dir=$2 seconds=$3
shift 3
src=$(cd "$src" && pwd)
cc=${FUZZ_CC:-clang}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -co --exclude-standard -z |
	    grep -zv "^$(basename "$dir")/" |
	    xargs -0 tar cf - --no-recursion) | (cd "$dir" && tar xf -)
else
	echo "fuzz: $src is not a git checkout: configure a build with" \
	    "CC=$cc --enable-fuzz and run make fuzz there" >&2
	exit 1
fi
cd "$dir"
if [ ! -f Makefile ]; then
	./autogen.sh >/dev/null
	./configure -q CC="$cc" --enable-fuzz
fi
FUZZ_SOURCE_DIR=$(cd "$src" && pwd) make -s -j2 fuzz FUZZ_SECONDS="$seconds" \
    ${1:+FUZZ_HARNESSES="$*"}
