#!/bin/sh
# Make the ELF seed files of fuzz/corpus from a small C file, with
# gcc, binutils and xz, as Debian builds (gcc -O2): a binary with its
# symbols, its stripped copy and debug file (build id and
# .gnu_debuglink), its MiniDebugInfo, a shared object, and the vDSO of
# this machine.  Run from the top of the tree; commit what changes.
# (The Go seeds of fuzz/corpus/gopclntab are t/unit/t-gopclntab's
# synthetic tables: see fuzz/README.)
set -e
out=fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/seed.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
static int __attribute__((noinline)) seed_leaf(int x) { return x * 3 + 1; }
int __attribute__((noinline)) seed_mid(int x) { return seed_leaf(x) + 2; }
int seed_data = 7;
int main(int argc, char **argv) { printf("%d\n", seed_mid(argc)); return 0; }
CEOF
cat >"$tmp/lib.c" <<'CEOF'
int seed_lib_a(int x) { return x + 1; }
int seed_lib_b(int x) { return seed_lib_a(x) * 2; }
CEOF
# Small files: no page-aligned gaps between segments.
small="-Wl,-z,noseparate-code -Wl,-z,norelro -Wl,--build-id=sha1"
cd "$tmp"
gcc -O2 -g $small -o seed seed.c
gcc -O2 $small -fPIC -shared -o libseed.so lib.c
gcc -O2 $small -fno-pie -no-pie -o seed.nopie seed.c
strip -o seed.stripped seed
objcopy --only-keep-debug seed seed.debug
objcopy --strip-debug --add-gnu-debuglink=seed.debug seed.stripped \
    seed.linked
strip -o seed.linked.stripped seed.linked
# No build id: the debug file is found by its link alone.
gcc -O2 -g -Wl,-z,noseparate-code -Wl,-z,norelro -Wl,--build-id=none \
    -o seed.noid seed.c
objcopy --only-keep-debug seed.noid seed.noid.debug
strip -o seed.noid.s seed.noid
objcopy --add-gnu-debuglink=seed.noid.debug seed.noid.s seed.noid.stripped
# MiniDebugInfo, as gdb's manual makes it.
nm -D seed --format=posix --defined-only | awk '{ print $1 }' |
    sort >dynsyms
nm seed --format=posix --defined-only |
    awk '{ if ($2 == "T" || $2 == "t" || $2 == "D") print $1 }' |
    sort >funcsyms
comm -13 dynsyms funcsyms >keep_symbols
objcopy --rename-section .debug_frame=saved_debug_frame seed.debug mini \
    2>/dev/null || cp seed.debug mini
objcopy -S --remove-section .gdb_index --remove-section .comment \
    --keep-symbols=keep_symbols mini mini.elf
xz -k mini.elf
objcopy --add-section .gnu_debugdata=mini.elf.xz seed.stripped seed.mini
cd - >/dev/null

mkdir -p "$out/elf" "$out/debuginfo" "$out/minidebug" "$out/python_elf"
cp "$tmp/seed.stripped" "$out/elf/pie-stripped"
cp "$tmp/seed.nopie" "$out/elf/nopie"
cp "$tmp/libseed.so" "$out/elf/shared-object"
cp "$tmp/seed.mini" "$out/elf/minidebuginfo"
strip -o "$out/elf/pie" "$tmp/seed" --strip-debug
# The vDSO: the image the daemon reads from a process's memory.
python3 - "$out/elf/vdso" <<'PYEOF'
import re, sys
for line in open('/proc/self/maps'):
    if line.rstrip().endswith('[vdso]'):
        a, b = [int(x, 16) for x in line.split()[0].split('-')]
        with open('/proc/self/mem', 'rb') as m:
            m.seek(a)
            open(sys.argv[1], 'wb').write(m.read(b - a))
PYEOF
# debuginfo: the stripped file alone (found by build id), and the one
# with a link followed by its debug file (see fuzz-debuginfo.c).
cp "$tmp/seed.stripped" "$out/debuginfo/build-id"
{ cat "$tmp/seed.linked.stripped"; printf '\0FUZZ-DEBUG-FILE\0';
    cat "$tmp/seed.debug"; } >"$out/debuginfo/debuglink-and-file"
{ cat "$tmp/seed.stripped"; printf '\0FUZZ-DEBUG-FILE\0';
    cat "$tmp/seed.debug"; } >"$out/debuginfo/build-id-and-file"
{ cat "$tmp/seed.noid.stripped"; printf '\0FUZZ-DEBUG-FILE\0';
    cat "$tmp/seed.noid.debug"; } >"$out/debuginfo/debuglink-only"
# minidebug: byte 0 even, the xz stream; odd, the ELF file inside.
{ printf '\0'; cat "$tmp/mini.elf.xz"; } >"$out/minidebug/xz-stream"
{ printf '\1'; cat "$tmp/mini.elf"; } >"$out/minidebug/elf-inside"
# python_elf: an executable that exports the interpreter's names.
cat >"$tmp/py.c" <<'CEOF'
struct { char cookie[8]; unsigned long v[70]; } _PyRuntime = { "xdebugpy" };
const unsigned long Py_Version = 0x030c04f0;
char PyCode_Type[400];
void *PyGILState_GetThisThreadState(void) { return &_PyRuntime.v[3]; }
int main(void) { return 0; }
CEOF
gcc -O2 $small -rdynamic -o "$out/python_elf/fake-python3.12" "$tmp/py.c" \
    -Wl,--no-as-needed -lm
strip --strip-debug "$out/python_elf/fake-python3.12"
cp "$out/elf/shared-object" "$out/python_elf/not-python.so"

# pysym: code objects as CPython 3.8, 3.10, 3.11 and 3.12 lay them out,
# at the address fuzz-pysym.c copies its input to.
python3 - "$out/pysym" <<'PYEOF'
import os, struct, sys
BASE = 0x30000000
lay = {  # argc, firstline, varnames, filename, name, qualname, table, ascii, compact
    8: (16, 40, 72, 104, 112, 0, 120, 48, 72),
    10: (16, 40, 72, 104, 112, 0, 120, 48, 72),
    11: (56, 72, 0, 112, 120, 128, 136, 48, 72),
    12: (52, 68, 0, 112, 120, 128, 136, 40, 56),
}
tables = {
    8: bytes([6, 1, 8, 2, 4, 0xff]),
    10: bytes([4, 0, 6, 1, 2, 0x80, 4, 2]),
    11: bytes([0x81, 0x05, 0xd8, 0x01, 0x02, 0xea, 0x07, 0xf8,
               0xf0, 0x28, 0x00, 0x01, 0x02, 0xe8, 0x48, 0x03]),
}
tables[12] = tables[11]
def put(img, off, b):
    img[off:off + len(b)] = b
def ascii_str(img, off, text, hdr):
    put(img, off + 16, struct.pack('<Q', len(text)))
    put(img, off + 32, struct.pack('<I', 1 << 2 | 1 << 5 | 1 << 6))
    put(img, off + hdr, text.encode() + b'\0')
def ucs2_str(img, off, text, compact):
    put(img, off + 16, struct.pack('<Q', len(text)))
    put(img, off + 32, struct.pack('<I', 2 << 2 | 1 << 5))
    put(img, off + compact, text.encode('utf-16-le'))
os.makedirs(sys.argv[1], exist_ok=True)
for minor, (argc, first, varn, fn, name, qual, tab, asc, comp) in lay.items():
    img = bytearray(0xa00)
    put(img, 8, struct.pack('<Q', BASE + 0x800))
    put(img, argc, struct.pack('<I', 1))
    put(img, first, struct.pack('<I', 10))
    put(img, fn, struct.pack('<Q', BASE + 0x300))
    put(img, name, struct.pack('<Q', BASE + 0x200))
    if qual:
        put(img, qual, struct.pack('<Q', BASE + 0x600))
        ucs2_str(img, 0x600, 'Worker.st\u00e9p\u4e2d', comp)
    if varn:
        put(img, varn, struct.pack('<Q', BASE + 0x400))
        put(img, 0x400 + 16, struct.pack('<Q', 1))
        put(img, 0x400 + 24, struct.pack('<Q', BASE + 0x480))
        ascii_str(img, 0x480, 'self', asc)
    put(img, tab, struct.pack('<Q', BASE + 0x500))
    t = tables[minor]
    put(img, 0x500 + 16, struct.pack('<Q', len(t)))
    put(img, 0x500 + 32, t)
    ascii_str(img, 0x200, 'step', asc)
    ascii_str(img, 0x300, '/srv/app/worker.py', asc)
    put(img, 0x800 + 24, struct.pack('<Q', BASE + 0x900))
    put(img, 0x900, b'function\0')
    head = struct.pack('<BiI', minor - 8, 7, 0)
    open(os.path.join(sys.argv[1], 'python3.%d' % minor), 'wb').write(
        head + bytes(img))
PYEOF

# spool: requests as spool_put() writes them (byte 0: what
# fuzz-spool.c fixes first).
python3 - "$out/spool" <<'PYEOF'
import gzip, os, struct, sys, zlib
os.makedirs(sys.argv[1], exist_ok=True)
def req(target, body, nprof, when=1700000000):
    t = target.encode()
    crc = zlib.crc32(body, zlib.crc32(t))
    return (b'EBSPOOL2' + struct.pack('<IIQII', len(t), nprof, len(body),
            crc, when) + t + body)
push = req('/push.v1.PusherService/Push',
           gzip.compress(b'\x0a\x10' + b'service_name=web' * 4, mtime=0), 3)
ingest = req('/ingest?name=web%7Benv%3Dprod%7D&from=1700000000'
             '&until=1700000015&spyName=ebpfspy&format=pprof',
             gzip.compress(b'fake pprof', mtime=0), 1)
for name, how, data in (('push', 0, push), ('ingest', 0, ingest),
                        ('push-fixed', 3, push), ('empty-body', 0,
                        req('/ingest?name=x', b'', 0)),
                       ('version-1', 0, b'EBSPOOL1' + req('/ingest?name=x',
                        b'x', 1, 0)[8:])):
    open(os.path.join(sys.argv[1], name), 'wb').write(bytes([how]) + data)
PYEOF

# unwind_table: the ELF seeds (compilers' CFI, the vDSO's), and
# t/helper/unwind_fx.S, hand-made CFI with the rarer encodings and ops.
mkdir -p "$out/unwind_table"
for f in pie shared-object nopie vdso; do
	cp "$out/elf/$f" "$out/unwind_table/$f"
done
gcc -nostdlib -static -no-pie -Wl,-z,noseparate-code \
    -o "$out/unwind_table/unwind_fx" t/helper/unwind_fx.S 2>/dev/null
gcc -DFX64 -nostdlib -static -no-pie -Wl,-z,noseparate-code \
    -o "$out/unwind_table/unwind_fx64" t/helper/unwind_fx.S 2>/dev/null
# A file with .debug_frame only.
gcc -O2 -g -fno-asynchronous-unwind-tables $small -c -o "$tmp/df.o" "$tmp/seed.c"
gcc $small -o "$tmp/df" "$tmp/df.o"
objcopy -R .eh_frame -R .eh_frame_hdr -R .debug_info -R .debug_abbrev \
    -R .debug_line -R .debug_str -R .debug_line_str -R .debug_aranges \
    -R .debug_loclists -R .debug_rnglists \
    "$tmp/df" "$out/unwind_table/debug_frame"
# dwarf: t/helper/inlinew.c (mix() inlined) as DWARF 5, as DWARF 4 with
# zlib-compressed sections, and dwz's: a debug file, then after the
# separator of fuzz-dwarf.c its supplementary file.
mkdir -p "$out/dwarf"
gcc -O2 -g $small -o "$out/dwarf/inline-dwarf5" t/helper/inlinew.c
gcc -O2 -gdwarf-4 -gz=zlib $small -o "$out/dwarf/inline-dwarf4-zlib" \
    t/helper/inlinew.c
if command -v dwz >/dev/null 2>&1; then
	gcc -O2 -g $small -o "$tmp/dw1" t/helper/inlinew.c
	gcc -O2 -g -DDWZ_SECOND $small -o "$tmp/dw2" t/helper/inlinew.c
	objcopy --only-keep-debug "$tmp/dw1" "$tmp/dw1.debug"
	objcopy --only-keep-debug "$tmp/dw2" "$tmp/dw2.debug"
	dwz -m "$tmp/alt.debug" -M alt.debug "$tmp/dw1.debug" "$tmp/dw2.debug"
	{ cat "$tmp/dw1.debug"; printf '\000FUZZ-DWZ-ALT\000';
	    cat "$tmp/alt.debug"; } >"$out/dwarf/dwz-and-alt"
fi
