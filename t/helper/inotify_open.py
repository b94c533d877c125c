#!/usr/bin/env python3
"""inotify_open.py FILE OUT: count the opens of FILE (IN_OPEN) until
SIGTERM, then write the count to OUT.  "ready" on stdout once watching.
Used by t/t8100 to show the daemon never opens a file it was pointed
at by a link."""
import ctypes
import os
import select
import signal
import sys

IN_OPEN = 0x20
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
if fd < 0 or libc.inotify_add_watch(fd, sys.argv[1].encode(), IN_OPEN) < 0:
    sys.exit("inotify: %s" % os.strerror(ctypes.get_errno()))
opens = 0
done = False


def stop(signum, frame):
    global done
    done = True


signal.signal(signal.SIGTERM, stop)
print("ready %d" % os.getpid(), flush=True)
while not done:
    try:
        r, _, _ = select.select([fd], [], [], 0.1)
    except InterruptedError:
        continue
    while r:
        try:
            buf = os.read(fd, 4096)
        except BlockingIOError:
            break
        # struct inotify_event: wd, mask, cookie, len, name[len]
        off = 0
        while off + 16 <= len(buf):
            mask = int.from_bytes(buf[off + 4:off + 8], "little")
            nlen = int.from_bytes(buf[off + 12:off + 16], "little")
            opens += bool(mask & IN_OPEN)
            off += 16 + nlen
with open(sys.argv[2], "w") as f:
    f.write("%d\n" % opens)
