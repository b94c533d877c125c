#!/usr/bin/env python3
"""Slow HTTP clients against the metrics listener (t6200).

Opens N connections from SOURCE that send a request line and then one
header line a second, never finishing the request, and probes the
listener meanwhile with complete requests.  Prints:

  held N          connections still open 1.5 s after they were made
  probe_other S   status of a GET from PROBE_SOURCE while they trickle
  closed T        seconds until the server had closed all of them, or
  still_open K    how many the server left open after DURATION seconds
  probe_same S    status of a GET from SOURCE after that

S is the HTTP status, or "refused" when the server closed the
connection without an answer.
"""
import argparse
import socket
import time


def probe(port, source):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5,
                                     source_address=(source, 0))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: t\r\n"
                  b"Connection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
        s.close()
    except OSError:
        return "refused"
    if not data.startswith(b"HTTP/1.1 "):
        return "refused"
    return data.split()[1].decode()


def is_closed(s):
    try:
        b = s.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK)
        return b == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--source", default="127.0.0.1")
    ap.add_argument("--probe-source", default="127.0.0.2")
    ap.add_argument("--duration", type=float, default=12)
    a = ap.parse_args()

    socks = []
    for _ in range(a.n):
        try:
            s = socket.create_connection(("127.0.0.1", a.port), timeout=2,
                                         source_address=(a.source, 0))
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: t\r\n")
        except OSError:
            # The server's backlog is full: a connection it never took.
            continue
        # Blocking, so that MSG_DONTWAIT below never waits (a socket
        # with a timeout first waits for it to be readable).
        s.settimeout(None)
        socks.append(s)
    start = time.time()
    open_ = set(range(len(socks)))
    probed = False
    held = None
    tick = start
    closed_at = None
    while time.time() - start < a.duration:
        for i in list(open_):
            if is_closed(socks[i]):
                open_.discard(i)
        now = time.time()
        if held is None and now - start >= 1.5:
            held = len(open_)
            print("held %d" % held, flush=True)
        if not probed and now - start >= 1.5:
            print("probe_other %s" % probe(a.port, a.probe_source),
                  flush=True)
            probed = True
        if not open_ and held is not None:
            closed_at = now - start
            break
        if now - tick >= 1:
            tick = now
            for i in list(open_):
                try:
                    socks[i].sendall(b"X-Slow: 1\r\n")
                except OSError:
                    open_.discard(i)
        time.sleep(0.05)
    if closed_at is not None:
        print("closed %.1f" % closed_at)
    else:
        print("still_open %d" % len(open_))
    for s in socks:
        s.close()
    print("probe_same %s" % probe(a.port, a.source))


main()
