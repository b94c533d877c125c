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

With --keep, a connection the server closed is opened again at once
(the server's backlog permitting), so that the slow clients hold what
they can for all of DURATION; with --probes K, K probes are sent from
PROBE_SOURCE meanwhile, one every half second, each in a thread of its
own with --probe-timeout seconds to be answered, and

  probes A K      A of the K probes were answered 200

is printed before "closed" or "still_open".  SOURCE may be a list of
addresses, comma-separated, N connections from each.
"""
import argparse
import socket
import threading
import time


def probe(port, source, timeout=5):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout,
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


def slow_open(port, source):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2,
                                     source_address=(source, 0))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: t\r\n")
    except OSError:
        # The server's backlog is full: a connection it never took.
        return None
    # Blocking, so that MSG_DONTWAIT below never waits (a socket
    # with a timeout first waits for it to be readable).
    s.settimeout(None)
    return s


def probes(a, out):
    threads = []
    answers = []

    def one():
        answers.append(probe(a.port, a.probe_source, a.probe_timeout))

    for _ in range(a.probes):
        t = threading.Thread(target=one)
        t.start()
        threads.append(t)
        time.sleep(0.5)
    for t in threads:
        t.join()
    out.append(sum(1 for x in answers if x == "200"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--source", default="127.0.0.1")
    ap.add_argument("--probe-source", default="127.0.0.2")
    ap.add_argument("--duration", type=float, default=12)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--probes", type=int, default=0)
    ap.add_argument("--probe-timeout", type=float, default=5)
    a = ap.parse_args()

    sources = a.source.split(",")
    socks = []
    owner = []
    for src in sources:
        for _ in range(a.n):
            s = slow_open(a.port, src)
            if s is not None:
                socks.append(s)
                owner.append(src)
    start = time.time()
    open_ = set(range(len(socks)))
    probed = False
    held = None
    tick = start
    closed_at = None
    answered = []
    prober = None
    if a.probes > 0:
        prober = threading.Thread(target=probes, args=(a, answered))
        prober.start()
    while time.time() - start < a.duration:
        for i in list(open_):
            if is_closed(socks[i]):
                open_.discard(i)
                if a.keep:
                    socks[i].close()
                    s = slow_open(a.port, owner[i])
                    if s is not None:
                        socks[i] = s
                        open_.add(i)
        now = time.time()
        if held is None and now - start >= 1.5:
            held = len(open_)
            print("held %d" % held, flush=True)
        if not probed and now - start >= 1.5:
            print("probe_other %s" % probe(a.port, a.probe_source),
                  flush=True)
            probed = True
        if not open_ and held is not None and not a.keep:
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
    if prober is not None:
        prober.join()
        print("probes %d %d" % (answered[0], a.probes), flush=True)
    if closed_at is not None:
        print("closed %.1f" % closed_at)
    else:
        print("still_open %d" % len(open_))
    for s in socks:
        s.close()
    print("probe_same %s" % probe(a.port, sources[0]))


main()
