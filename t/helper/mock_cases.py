#!/usr/bin/env python3
"""Requests with known answers for t/helper/mock_pyroscope.py.

Each case is what Grafana Pyroscope's server answers (the file its rule
comes from is named in the mock); t6103 runs them against the mock.

usage: mock_cases.py URL RECORD
  prints "ok NAME" or "FAIL NAME: why" per case; exits 1 on a failure.
"""

import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

PUSH = "/push.v1.PusherService/Push"


# protobuf, just what the cases need --------------------------------------

def varint(n):
    out = b""
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field_int(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(num << 3 | 2) + varint(len(b)) + b


def pprof(sample_type="cpu", time_ns=None, nsamples=2):
    """A small, valid profile of one sample type."""
    strings = ["", sample_type, "nanoseconds", "main", "work"]
    p = field_bytes(1, field_int(1, 1) + field_int(2, 2))
    for i in range(nsamples):
        p += field_bytes(2, field_int(1, 1 + i % 2) + field_int(2, 10 + i))
    for i in (1, 2):
        p += field_bytes(4, field_int(1, i) + field_bytes(
            4, field_int(1, i)))
        p += field_bytes(5, field_int(1, i) + field_int(2, 2 + i))
    for s in strings:
        p += field_bytes(6, s)
    if time_ns is None:
        time_ns = time.time_ns()
    p += field_int(9, time_ns) + field_int(10, 15 * 10**9)
    return p


def series(labels, raw):
    s = b""
    for k, v in labels:
        s += field_bytes(1, field_bytes(1, k) + field_bytes(2, v))
    return field_bytes(1, s + field_bytes(2, field_bytes(1, raw) +
                                          field_bytes(2, "id-1")))


def push_body(*ss):
    return b"".join(ss)


BASE = [("__name__", "process_cpu"), ("service_name", "web")]


# the cases -------------------------------------------------------------

def post(url, path, body, ctype="application/proto"):
    req = urllib.request.Request(url + path, data=body, method="POST",
                                 headers={"Content-Type": ctype})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def ingest(url, name, body, **q):
    q.setdefault("format", "pprof")
    q["name"] = name
    return post(url, "/ingest?" + urllib.parse.urlencode(q), body,
                "application/octet-stream")


def cases(url):
    old = time.time_ns() - 2 * 3600 * 10**9
    many = BASE + [("l%02d" % i, "v") for i in range(28)]
    yield ("push: a valid series", 200,
           lambda: post(url, PUSH, push_body(series(BASE, pprof()))))
    yield ("push: Content-Type text/plain is 415", 415,
           lambda: post(url, PUSH, push_body(series(BASE, pprof())),
                        "text/plain"))
    yield ("push: a body that is no protobuf", 400,
           lambda: post(url, PUSH, b"\x0a\xff\xff"))
    yield ("push: no series: no profiles received", 400,
           lambda: post(url, PUSH, b""))
    yield ("push: no __name__: invalid metric name", 400,
           lambda: post(url, PUSH, push_body(series(
               [("service_name", "web")], pprof()))))
    yield ("push: no service_name: unknown_service", 200,
           lambda: post(url, PUSH, push_body(series(
               [("__name__", "process_cpu"), ("n", "noservice")],
               pprof()))))
    yield ("push: an empty service_name", 400,
           lambda: post(url, PUSH, push_body(series(
               [("__name__", "process_cpu"), ("service_name", "")],
               pprof()))))
    yield ("push: 31 labels, above max_label_names_per_series", 400,
           lambda: post(url, PUSH, push_body(series(
               many + [("l99", "v")], pprof()))))
    yield ("push: 30 labels", 200,
           lambda: post(url, PUSH, push_body(series(many, pprof()))))
    yield ("push: a duplicate label name", 400,
           lambda: post(url, PUSH, push_body(series(
               BASE + [("a", "1"), ("a", "2")], pprof()))))
    yield ("push: a UTF-8 label name (no sanitization by default)", 200,
           lambda: post(url, PUSH, push_body(series(
               BASE + [("host.name", "x")], pprof()))))
    yield ("push: 2 h old, outside the ingestion window", 400,
           lambda: post(url, PUSH, push_body(series(
               BASE, pprof(time_ns=old)))))
    yield ("push: a sample type with '-'", 400,
           lambda: post(url, PUSH, push_body(series(
               BASE, pprof(sample_type="off-cpu")))))
    yield ("push: __name__ and sample type need not agree", 200,
           lambda: post(url, PUSH, push_body(series(
               [("__name__", "offcpu"), ("service_name", "agree")],
               pprof(sample_type="cpu")))))
    yield ("push: one bad series of two: error, the good one ingested",
           400, lambda: post(url, PUSH, push_body(
               series(BASE + [("part", "good")], pprof()),
               series(BASE + [("part", "bad")], pprof(time_ns=old)))))
    yield ("ingest: name=web{...}, offcpu: process_cpu of web", 200,
           lambda: ingest(url, "web{pod=p-1}", pprof("offcpu"),
                          spyName="ebpfspy"))
    yield ("ingest: name=web.cpu: the service is web.cpu", 200,
           lambda: ingest(url, "web.cpu{pod=p-2}", pprof("cpu")))
    yield ("ingest: a space in the service name", 400,
           lambda: ingest(url, "my app{}", pprof()))
    yield ("ingest: no name: service name is required", 400,
           lambda: ingest(url, "", pprof()))
    yield ("ingest: a '-' in a label name", 400,
           lambda: ingest(url, "web{a-b=1}", pprof()))
    yield ("ingest: an empty label name", 400,
           lambda: ingest(url, "web{=1}", pprof()))
    yield ("ingest: a body that is no pprof: 422", 422,
           lambda: ingest(url, "web{}", b"\x0a\xff\xff"))
    yield ("ingest: too old: 422, not 400", 422,
           lambda: ingest(url, "web{}", pprof(time_ns=old)))
    yield ("ingest: an empty body ingests nothing", 200,
           lambda: ingest(url, "web{}", b""))
    yield ("ingest: a bad sampleRate is the default, not an error", 200,
           lambda: ingest(url, "web{pod=p-3}", pprof(), sampleRate="x"))


def check_record(path):
    """What was ingested, as the server would store it."""
    got = {}
    for line in open(path):
        r = json.loads(line)
        for s in r["series"]:
            lab = s["labels"]
            got.setdefault(lab.get("pod") or lab.get("part") or
                           lab.get("n") or lab["service_name"], []).append(
                               lab)
    want = {
        "p-1": {"__name__": "process_cpu", "service_name": "web",
                "pyroscope_spy": "ebpfspy", "__delta__": "false"},
        "p-2": {"__name__": "process_cpu", "service_name": "web.cpu",
                "pyroscope_spy": "unknown"},
        "noservice": {"service_name": "unknown_service"},
        "good": {"service_name": "web"},
        "agree": {"__name__": "offcpu"},
    }
    bad = []
    for k, labels in want.items():
        if len(got.get(k, [])) != 1:
            bad.append("%s ingested %d times" % (k, len(got.get(k, []))))
            continue
        for n, v in labels.items():
            if got[k][0].get(n) != v:
                bad.append("%s: %s=%r, not %r" % (k, n, got[k][0].get(n),
                                                  v))
    if "bad" in got:
        bad.append("the bad series was ingested")
    return bad


def main():
    url, record = sys.argv[1], sys.argv[2]
    failed = 0
    for name, want, run in cases(url):
        status, body = run()
        if status == want:
            print("ok %s" % name)
        else:
            print("FAIL %s: %d, not %d: %s" % (name, status, want, body))
            failed += 1
    for why in check_record(record):
        print("FAIL record: %s" % why)
        failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
