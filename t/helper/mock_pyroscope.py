#!/usr/bin/env python3
"""A mock Pyroscope server for the tests of ebpfspy's Pyroscope sink.

It listens on 127.0.0.1 and checks what a real server checks before it
accepts a profile:

  POST /push.v1.PusherService/Push (Connect unary): Content-Type
    application/proto; the body is a push.v1.PushRequest (read with a
    hand-written protobuf reader); every series has labels, __name__ is
    a valid metric name, service_name is not empty, label names match
    [a-zA-Z_][a-zA-Z0-9_]* and are unique, every series has a sample
    whose raw_profile (gzipped or not) is a pprof profile, and the
    profile's sample type matches __name__ (process_cpu: cpu, offcpu:
    offcpu).
  POST /ingest (legacy): name=<app>.<cpu|offcpu>{label=value,...},
    from <= until (integers), format=pprof, spyName, an integer
    sampleRate if given; the body is a pprof profile of that type.
  Optionally the tenant (X-Scope-OrgID), basic auth or a bearer token.

A rejected request gets 400 (or 401, 404, 405, 415) with a Connect-style
JSON error.  Every request is logged (--log); every accepted one is
recorded (--record), one JSON line each.  Failures are simulated with
--status CODE, --delay SECONDS, --retry-after SECONDS, or a control file
(--control) read at each request, with lines such as "status 503",
"delay 20", "retry-after 2", "close" (drop the connection unanswered);
an empty or missing control file means normal service.

usage:
  mock_pyroscope.py [--port N] [--port-file FILE] [--record FILE]
      [--log FILE] [--control FILE] [--status CODE] [--delay S]
      [--retry-after S] [--tenant ID] [--basic USER:PASSWORD]
      [--bearer TOKEN] [--header 'Name: value']
  mock_pyroscope.py --dump RECORD
      one line per recorded series: request number, api, __name__,
      service, time_nanos, duration_nanos, total, other labels (k=v,...)

With --port 0 (the default) it picks a port; the port is printed as
"port N" on stdout and written to --port-file once it listens.
Standard library only.
"""

import argparse
import base64
import gzip
import json
import os
import re
import sys
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pprof_decode  # noqa: E402  (the same directory)

PUSH_PATH = "/push.v1.PusherService/Push"
INGEST_PATH = "/ingest"
LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
APP_NAME = re.compile(r"^[a-zA-Z0-9_./-]+$")
SAMPLE_TYPE = {"process_cpu": "cpu", "offcpu": "offcpu"}
METRIC_OF_TYPE = {"cpu": "process_cpu", "offcpu": "offcpu"}


class Reject(Exception):
    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status
        self.message = message


# protobuf wire format --------------------------------------------------

def message_fields(buf):
    """(field, wire type, value) of a message; strict about truncation."""
    try:
        for f in pprof_decode.fields(buf):
            yield f
    except pprof_decode.DecodeError as e:
        raise Reject(400, "malformed protobuf: %s" % e)


def utf8(b, what):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise Reject(400, "%s is not valid UTF-8" % what)


def parse_label_pair(buf):
    name, value = "", ""
    for num, wt, v in message_fields(buf):
        if num in (1, 2) and wt != pprof_decode.LEN:
            raise Reject(400, "LabelPair: bad wire type")
        if num == 1:
            name = utf8(v, "label name")
        elif num == 2:
            value = utf8(v, "label value")
    return name, value


def parse_raw_sample(buf):
    raw, sid = b"", ""
    for num, wt, v in message_fields(buf):
        if num in (1, 2) and wt != pprof_decode.LEN:
            raise Reject(400, "RawSample: bad wire type")
        if num == 1:
            raw = v
        elif num == 2:
            sid = utf8(v, "ID")
    return raw, sid


def parse_push_request(buf):
    series = []
    for num, wt, v in message_fields(buf):
        if num != 1:
            continue
        if wt != pprof_decode.LEN:
            raise Reject(400, "PushRequest.series: bad wire type")
        labels, samples = [], []
        for n2, w2, v2 in message_fields(v):
            if n2 in (1, 2) and w2 != pprof_decode.LEN:
                raise Reject(400, "RawProfileSeries: bad wire type")
            if n2 == 1:
                labels.append(parse_label_pair(v2))
            elif n2 == 2:
                samples.append(parse_raw_sample(v2))
        series.append((labels, samples))
    return series


# checks -------------------------------------------------------------------

def check_labels(labels):
    if not labels:
        raise Reject(400, "error at least one label pair is required "
                     "per profile")
    seen = set()
    for name, value in labels:
        if not LABEL_NAME.match(name):
            raise Reject(400, "invalid label name '%s'" % name)
        if name in seen:
            raise Reject(400, "duplicate label name: '%s'" % name)
        seen.add(name)
        if len(name) > 1024 or len(value) > 2048:
            raise Reject(400, "label name or value too long")
    d = dict(labels)
    if not METRIC_NAME.match(d.get("__name__", "")):
        raise Reject(400, "invalid metric name")
    if not d.get("service_name"):
        raise Reject(400, "service name is not provided")
    return d


def decode_profile(raw, want_type):
    """The summary of a raw profile whose sample type must be want_type."""
    data = raw
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise Reject(400, "bad gzip: %s" % e)
    try:
        p = pprof_decode.parse_profile(data)
        types = [pprof_decode.value_type(p, vt) for vt in p["sample_type"]]
    except pprof_decode.DecodeError as e:
        raise Reject(400, "failed to parse pprof: %s" % e)
    if not types:
        raise Reject(400, "profile has no sample type")
    st = types[0].split("/")[0]
    if "-" in st:
        raise Reject(400, "sample type contains -")
    if st != want_type:
        raise Reject(400, "sample type %s does not match %s" %
                     (types[0], want_type))
    return {
        "sample_type": types[0],
        "time_nanos": p["time_nanos"],
        "duration_nanos": p["duration_nanos"],
        "period": p["period"],
        "samples": len(p["sample"]),
        "total": sum(s["value"][0] for s in p["sample"] if s["value"]),
    }


def check_push(body):
    series = parse_push_request(body)
    if not series:
        raise Reject(400, "no series")
    out = []
    for labels, samples in series:
        d = check_labels(labels)
        if not samples:
            raise Reject(400, "series without samples")
        want = SAMPLE_TYPE.get(d["__name__"])
        if want is None:
            raise Reject(400, "unknown profile name %s" % d["__name__"])
        for raw, sid in samples:
            rec = decode_profile(raw, want)
            rec["labels"] = d
            rec["label_order"] = [n for n, _ in labels]
            rec["id"] = sid
            out.append(rec)
    return out


def parse_ingest_name(name):
    """<app>.<type>{k=v,...} as Pyroscope's labelset parser reads it."""
    m = re.match(r"^([^{]*)(\{(.*)\})?$", name)
    if not m:
        raise Reject(400, "name: bad syntax")
    app = m.group(1).strip()
    if not APP_NAME.match(app):
        raise Reject(400, "name: invalid service name: %r" % app)
    labels = {}
    body = m.group(3) or ""
    for item in [x for x in body.split(",") if x.strip()]:
        if "=" not in item:
            raise Reject(400, "name: label without '='")
        k, v = item.split("=", 1)
        k = k.strip()
        if not LABEL_NAME.match(k) or k == "__name__":
            raise Reject(400, "name: invalid label name %r" % k)
        if k in labels:
            raise Reject(400, "name: duplicate label %r" % k)
        labels[k] = v.strip()
    if "." not in app:
        raise Reject(400, "name: no .<type> suffix")
    service, typ = app.rsplit(".", 1)
    return service, typ, labels


def check_ingest(query, body):
    q = urllib.parse.parse_qs(query, keep_blank_values=True)
    for k in ("name", "from", "until", "format", "spyName"):
        if len(q.get(k, [])) != 1:
            raise Reject(400, "query parameter %s: missing or repeated" % k)
    service, typ, labels = parse_ingest_name(q["name"][0])
    try:
        frm, until = int(q["from"][0]), int(q["until"][0])
    except ValueError:
        raise Reject(400, "from/until: not integers")
    if frm > until:
        raise Reject(400, "from > until")
    if q["format"][0] != "pprof":
        raise Reject(400, "format is not pprof")
    if "sampleRate" in q:
        try:
            int(q["sampleRate"][0])
        except ValueError:
            raise Reject(400, "sampleRate: not an integer")
    if typ not in METRIC_OF_TYPE:
        raise Reject(400, "unknown profile type %s" % typ)
    rec = decode_profile(body, typ)
    labels = dict(labels)
    labels["__name__"] = METRIC_OF_TYPE[typ]
    labels["service_name"] = service
    rec["labels"] = labels
    rec["from"], rec["until"] = frm, until
    rec["sample_rate"] = q.get("sampleRate", [None])[0]
    rec["spy_name"] = q["spyName"][0]
    return [rec]


# the server -------------------------------------------------------------

class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.n = 0
        self.accepted = 0

    def control(self):
        c = {"status": self.args.status, "delay": self.args.delay,
             "retry_after": self.args.retry_after, "close": False}
        if not self.args.control:
            return c
        try:
            with open(self.args.control) as f:
                lines = f.read().splitlines()
        except OSError:
            return c
        for line in lines:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "status" and len(w) == 2:
                c["status"] = int(w[1])
            elif w[0] == "delay" and len(w) == 2:
                c["delay"] = float(w[1])
            elif w[0] == "retry-after" and len(w) == 2:
                c["retry_after"] = w[1]
            elif w[0] == "close":
                c["close"] = True
            elif w[0] == "location" and len(w) == 2:
                # Sent with a 3xx status, as a proxy or an http -> https
                # redirect would.
                c["location"] = w[1]
        return c

    def append(self, path, obj):
        if not path:
            return
        with self.lock:
            with open(path, "a") as f:
                f.write(json.dumps(obj, sort_keys=True) + "\n")
                f.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-pyroscope/1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body=b"", ctype="application/json",
               retry_after=None, location=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if retry_after is not None:
            self.send_header("Retry-After", str(retry_after))
        if location is not None:
            self.send_header("Location", location)
        self.end_headers()
        self.wfile.write(body)

    def reject(self, status, message):
        self.reject_with(status, message, None)

    def check_auth(self):
        a = self.server.state.args
        if a.tenant is not None and \
                self.headers.get("X-Scope-OrgID") != a.tenant:
            raise Reject(401, "no org id")
        auth = self.headers.get("Authorization", "")
        if a.basic is not None:
            want = "Basic " + base64.b64encode(a.basic.encode()).decode()
            if auth != want:
                raise Reject(401, "bad basic auth")
        if a.bearer is not None and auth != "Bearer " + a.bearer:
            raise Reject(401, "bad bearer token")
        for h in a.header or []:
            name, _, value = h.partition(":")
            if self.headers.get(name.strip()) != value.strip():
                raise Reject(400, "missing header %s" % name.strip())

    def do_GET(self):
        self.reject(405, "method not allowed")

    def do_POST(self):
        st = self.server.state
        with st.lock:
            st.n += 1
            n = st.n
        t0 = time.time()
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length > 0 else b""
        received = time.time()
        url = urllib.parse.urlsplit(self.path)
        c = st.control()
        entry = {"n": n, "time": t0, "received": received,
                 "path": url.path, "bytes": len(body)}
        if c["delay"]:
            time.sleep(c["delay"])
        if c["close"]:
            entry["status"] = "closed"
            st.append(st.args.log, entry)
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        status, reason = 200, "ok"
        recs = None
        try:
            if c["status"] and c["status"] != 200:
                raise Reject(c["status"], "simulated %d" % c["status"])
            if url.path == PUSH_PATH:
                ctype = self.headers.get("Content-Type", "")
                if ctype.split(";")[0].strip() != "application/proto":
                    raise Reject(415, "Content-Type %r" % ctype)
                self.check_auth()
                recs = check_push(body)
                api = "push"
            elif url.path == INGEST_PATH:
                self.check_auth()
                recs = check_ingest(url.query, body)
                api = "ingest"
            else:
                raise Reject(404, "404 page not found")
        except Reject as e:
            status, reason = e.status, e.message
        entry["status"] = status
        entry["reason"] = reason
        entry["done"] = time.time()
        if status == 200:
            with st.lock:
                st.accepted += 1
                k = st.accepted
            st.append(st.args.record, {
                "n": k, "req": n, "time": entry["done"],
                "received": received, "api": api,
                "tenant": self.headers.get("X-Scope-OrgID"),
                "user_agent": self.headers.get("User-Agent"),
                "bytes": len(body), "series": recs})
        st.append(st.args.log, entry)
        if status == 200:
            ctype = "application/proto" if url.path == PUSH_PATH else \
                "text/plain"
            self.answer(200, b"", ctype)
        else:
            ra = c["retry_after"] if status in (429, 503) else None
            if 300 <= status < 400:
                self.answer(status, b"", "text/html",
                            location=c.get("location"))
                return
            self.reject_with(status, reason, ra)

    def reject_with(self, status, message, retry_after):
        code = {400: "invalid_argument", 401: "unauthenticated",
                404: "not_found", 415: "invalid_argument",
                429: "resource_exhausted",
                503: "unavailable"}.get(status, "unknown")
        self.answer(status, json.dumps({"code": code,
                                        "message": message}).encode(),
                    retry_after=retry_after)


def dump(path):
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            for s in r["series"]:
                lab = dict(s["labels"])
                name = lab.pop("__name__")
                svc = lab.pop("service_name")
                rest = ",".join("%s=%s" % (k, lab[k]) for k in sorted(lab))
                print("%d\t%s\t%s\t%s\t%d\t%d\t%d\t%s" % (
                    r["n"], r["api"], name, svc, s["time_nanos"],
                    s["duration_nanos"], s["total"], rest))


def main():
    ap = argparse.ArgumentParser(description="mock Pyroscope server")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--record")
    ap.add_argument("--log")
    ap.add_argument("--control")
    ap.add_argument("--status", type=int, default=0)
    ap.add_argument("--delay", type=float, default=0)
    ap.add_argument("--retry-after")
    ap.add_argument("--tenant")
    ap.add_argument("--basic")
    ap.add_argument("--bearer")
    ap.add_argument("--header", action="append")
    ap.add_argument("--dump")
    args = ap.parse_args()
    if args.dump:
        dump(args.dump)
        return 0
    ThreadingHTTPServer.allow_reuse_address = True
    ThreadingHTTPServer.daemon_threads = True
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    srv.state = State(args)
    port = srv.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.rename(tmp, args.port_file)
    print("port %d" % port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
