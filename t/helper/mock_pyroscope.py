#!/usr/bin/env python3
"""A mock Pyroscope server for the tests of ebpfspy's Pyroscope sink.

It listens on 127.0.0.1 and accepts what Grafana Pyroscope's server
(github.com/grafana/pyroscope, v2, read at commit 3fe6a457a320, August
2026) accepts, and rejects what it rejects, with its status codes.  Each
rule below names the server file it comes from; the paths are in that
repository.  Defaults are the server's (pkg/validation/limits.go,
Limits.RegisterFlags); options change them, as a tenant's overrides would.

  POST /push.v1.PusherService/Push (Connect unary, application/proto):
    each series' samples are decoded and validated on their own, and the
    series that pass are ingested even when others fail: the answer is the
    error of a failed series (pkg/distributor/distributor.go, Push and
    PushBatch, errors gathered in a multierror), so a client that retries
    the whole request counts the good series twice.
  POST /ingest?name=<service>{k=v,...}&format=pprof (legacy): the name is
    parsed by the labelset state machine; for pprof bodies the series name
    (__name__) is guessed from the pprof sample type, the service is the
    name before the braces, with no suffix stripped
    (pkg/og/convert/pprof/profile.go); then the same validation as Push.

A rejected request gets the server's status with a Connect-style JSON
error.  Every request is logged (--log); every accepted series is
recorded (--record), one JSON line per request.  Failures are simulated
with --status CODE, --delay SECONDS, --retry-after SECONDS, or a control
file (--control) read at each request, with lines such as "status 503",
"delay 20", "retry-after 2", "close" (drop the connection unanswered),
"location URL" (with a 3xx) and "fail-once SERVICE CODE" (the first series
of SERVICE is refused with CODE once, the other series of its request are
ingested, as the server does); an empty or missing control file means
normal service.

usage:
  mock_pyroscope.py [--port N] [--port-file FILE] [--record FILE]
      [--log FILE] [--control FILE] [--status CODE] [--delay S]
      [--retry-after S] [--tenant ID] [--basic USER:PASSWORD]
      [--bearer TOKEN] [--header 'Name: value'] [--reject-older-than S]
      [--max-profile-bytes N] [--max-samples N] [--max-label-names N]
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
import sys
import threading
import time
import urllib.parse
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pprof_decode  # noqa: E402  (the same directory)

# pkg/api/api.go: the Connect route of PusherService and "/ingest".
PUSH_PATH = "/push.v1.PusherService/Push"
INGEST_PATH = "/ingest"

# pkg/validation/limits.go, Limits.RegisterFlags: the defaults.
MAX_LABEL_NAME_LENGTH = 1024        # validation.max-length-label-name
MAX_LABEL_VALUE_LENGTH = 2048       # validation.max-length-label-value
MAX_LABEL_NAMES_PER_SERIES = 30     # validation.max-label-names-per-series
MAX_PROFILE_SIZE_BYTES = 4 << 20    # validation.max-profile-size-bytes
MAX_STACKTRACE_SAMPLES = 16000      # validation.max-profile-stacktrace-samples
MAX_SAMPLE_LABELS = 100     # validation.max-profile-stacktrace-sample-labels
REJECT_OLDER_THAN = 3600            # validation.reject-older-than, 1h
REJECT_NEWER_THAN = 600             # validation.reject-newer-than, 10m

# pkg/model/labels.go
SERVICE_NAME_FALLBACK = "unknown_service"   # AttrServiceNameFallback
ALLOWED_PRIVATE_LABELS = {"__session_id__"}  # allowedPrivateLabels

# connectrpc: the HTTP status of a Connect error code, and back.
CODE_OF_STATUS = {400: "invalid_argument", 401: "unauthenticated",
                  404: "not_found", 408: "deadline_exceeded",
                  415: "invalid_argument", 422: "invalid_argument",
                  429: "resource_exhausted", 500: "internal",
                  503: "unavailable"}


class Reject(Exception):
    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status
        self.message = message


# protobuf wire format --------------------------------------------------

def message_fields(buf):
    """(field, wire type, value) of a message; strict about truncation.

    A PushRequest that does not decode is refused by connect-go before
    the handler runs: CodeInvalidArgument, 400."""
    try:
        for f in pprof_decode.fields(buf):
            yield f
    except pprof_decode.DecodeError as e:
        raise Reject(400, "malformed protobuf: %s" % e)


def utf8(b, what):
    # proto3 strings must be valid UTF-8 (google.golang.org/protobuf
    # refuses them when unmarshalling): 400 from connect-go.
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise Reject(400, "%s is not valid UTF-8" % what)


def parse_label_pair(buf):
    # api/types/v1/types.proto LabelPair: name = 1, value = 2.
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
    # api/push/v1/push.proto RawSample: raw_profile = 1, ID = 2.
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
    # api/push/v1/push.proto: PushRequest.series = 1,
    # RawProfileSeries.labels = 1, samples = 2.
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


# the legacy name: api/model/labelset/{labelset,validate}.go ------------

def label_name_rune_ok(c):
    # validate.go IsLabelNameRuneAllowed
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or ("0" <= c <= "9") or \
        c in "_."


def service_name_rune_ok(c):
    # validate.go IsServiceNameRuneAllowed
    return c in "-./" or label_name_rune_ok(c)


def validate_runes(s, rune_ok, what, required):
    """validate.go ValidateLabelName and ValidateServiceName: not empty,
    and only the runes allowed ("__name__", reserved, is not checked)."""
    if not s:
        raise Reject(400, "name: %s" % required)
    for c in s:
        if not rune_ok(c):
            raise Reject(400, "name: %s: %s: character is not allowed: "
                         "%r" % (what, s, c))


def validate_label_name(k):
    validate_runes(k, label_name_rune_ok, "invalid label name",
                   "label name is required")


def validate_service_name(n):
    validate_runes(n, service_name_rune_ok, "invalid service name",
                   "service name is required")


def labelset_parse(name):
    """labelset.go Parse: the state machine, rune by rune, over name + "{".

    Errors are 400 (pkg/ingester/pyroscope/ingest_handler.go,
    parseInputMetadataFromRequest: "name: ...", StatusBadRequest)."""
    labels = {}
    state, key, value = "name", "", ""
    for r in name + "{":
        if state == "name":                     # nameParserCase
            if r == "{":
                state = "tagset"
                svc = value.strip()
                validate_service_name(svc)
                labels["__name__"] = svc
            else:
                value += r
        elif state == "tagset":                 # tagLabelSetParserCase
            if r == "}":
                state = "done"
            elif r == "=":
                state = "value"
                value = ""
            else:
                key += r
        elif state == "value":                  # tagValueParserCase
            if r in ",}":
                state = "tagset"
                k = key.strip()
                if k != "__name__":             # IsLabelNameReserved
                    validate_label_name(k)
                labels[k] = value.strip()       # a repeated key: last wins
                key = ""
            else:
                value += r
    return labels


# validation: pkg/validation/validate.go ------------------------------

def valid_utf8_name(s):
    # prometheus/common model.UTF8Validation (the server's default:
    # validation.disable-label-sanitization = true): a non-empty, valid
    # UTF-8 string.  Our strings are decoded already: non-empty suffices.
    return s != ""


def validate_labels(ls, limits):
    """ValidateLabels: 400 with the server's messages."""
    if not ls:
        raise Reject(400, "error at least one label pair is required per "
                     "profile")
    ls = sorted(ls, key=lambda kv: kv[0])
    if len(ls) > limits.max_label_names:
        raise Reject(400, "profile series has %d label names; limit %d" %
                     (len(ls), limits.max_label_names))
    d = {}
    for k, v in ls:
        d.setdefault(k, v)                  # Labels.Get: the first
    if not valid_utf8_name(d.get("__name__", "")):
        raise Reject(400, "invalid labels with error: invalid metric name")
    if d.get("service_name", "") == "":     # isValidServiceName
        raise Reject(400, "invalid labels with error: service name is not "
                     "provided")
    last = ""
    for k, v in ls:
        if len(k.encode()) > MAX_LABEL_NAME_LENGTH:
            raise Reject(400, "label name too long: '%s'" % k)
        if len(v.encode()) > MAX_LABEL_VALUE_LENGTH:
            raise Reject(400, "label value too long: '%s'" % v)
        if not valid_utf8_name(k):
            raise Reject(400, "invalid label name '%s'" % k)
        if k == last:
            raise Reject(400, "duplicate label name: '%s'" % k)
        last = k
    return d


def decompress(raw, limits):
    """pkg/pprof/pprof.go RawFromBytesWithLimit: gunzip when gzipped, at
    most max-profile-size-bytes uncompressed, then unmarshal."""
    data = raw
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise Reject(400, "gzip: %s" % e)
    if limits.max_profile_bytes and len(data) > limits.max_profile_bytes:
        # distributor.go Push: ErrDecompressedSizeExceedsLimit ->
        # validation.ProfileSizeLimit, InvalidArgument.
        raise Reject(400, "uncompressed profile payload size exceeds limit "
                     "of %d" % limits.max_profile_bytes)
    try:
        p = pprof_decode.parse_profile(data)
    except pprof_decode.DecodeError as e:
        raise Reject(400, "failed to parse pprof: %s" % e)
    return p, len(data)


def validate_profile(p, size, limits, now_ns):
    """ValidateProfile: 400 (CodeInvalidArgument in pushSeries)."""
    if not p["sample_type"]:
        raise Reject(400, "empty profile")
    if p["time_nanos"] > 0:
        # ingestionWindow.valid: strictly after now - reject-older-than,
        # strictly before now + reject-newer-than (ms precision).
        t = p["time_nanos"] // 10**6
        now = now_ns // 10**6
        if (limits.reject_older_than and
                not t > now - limits.reject_older_than * 1000) or \
                not t < now + REJECT_NEWER_THAN * 1000:
            raise Reject(400, "profile is outside of ingestion window "
                         "(profile timestamp: %d ms)" % t)
    else:
        p["time_nanos"] = now_ns
    if limits.max_profile_bytes and size > limits.max_profile_bytes:
        raise Reject(400, "the profile exceeds the size limit "
                     "(max_profile_size_byte, actual: %d, limit: %d)" %
                     (size, limits.max_profile_bytes))
    if limits.max_samples and len(p["sample"]) > limits.max_samples:
        raise Reject(400, "the profile exceeds the samples count limit "
                     "(max_profile_stacktrace_samples, actual: %d, limit: "
                     "%d)" % (len(p["sample"]), limits.max_samples))
    for s in p["sample"]:
        if len(s["label"]) > MAX_SAMPLE_LABELS:
            raise Reject(400, "the profile exceeds the sample labels limit")
    for loc in p["location"]:
        if loc["id"] == 0:
            raise Reject(400, "location id is 0")
    for fn in p["function"]:
        if fn["id"] == 0:
            raise Reject(400, "function id is 0")
    for s in p["sample"]:
        if len(s["value"]) != len(p["sample_type"]):
            raise Reject(400, "sample value length mismatch")
    st = p["string_table"]
    for vt in p["sample_type"]:            # validateStringTableAccess
        if not (0 <= vt["type"] < len(st) and 0 <= vt["unit"] < len(st)):
            raise Reject(400, "string table index out of range")
        if b"-" in st[vt["type"]]:
            raise Reject(400, "sample type contains -")
    for s in st:
        try:
            s.decode("utf-8")
        except UnicodeDecodeError:
            raise Reject(400, "invalid utf8 string hex: %s" % s.hex())


def summary(p, labels, order, sid):
    types = [pprof_decode.value_type(p, vt) for vt in p["sample_type"]]
    return {
        "sample_type": types[0],
        "period_type": pprof_decode.value_type(p, p["period_type"]),
        "time_nanos": p["time_nanos"],
        "duration_nanos": p["duration_nanos"],
        "period": p["period"],
        "samples": len(p["sample"]),
        "total": sum(s["value"][0] for s in p["sample"] if s["value"]),
        "labels": labels,
        "label_order": order,
        "id": sid,
    }


def push_series(labels, order, p, size, sid, limits, now_ns):
    """distributor.go pushSeries, for one series (Push and /ingest)."""
    d = {}
    for k, v in labels:
        d.setdefault(k, v)
    if d.get("service_name", "") == "":
        # A missing service_name gets the fallback; an empty one added
        # next to it still fails ValidateLabels below.
        labels = labels + [("service_name", SERVICE_NAME_FALLBACK)]
    validate_profile(p, size, limits, now_ns)
    d = validate_labels(labels, limits)
    return summary(p, d, order, sid)


# Push: pkg/distributor/distributor.go ---------------------------------

def check_push(body, limits, fail):
    """([accepted series], first error or None)."""
    series = parse_push_request(body)
    out, err = [], None
    now_ns = time.time_ns()
    for labels, samples in series:
        for raw, sid in samples:
            try:
                p, size = decompress(raw, limits)
                svc = dict(labels).get("service_name", "")
                st = fail(svc)
                if st:
                    raise Reject(st, "simulated %d for %s" % (st, svc))
                out.append(push_series(labels, [n for n, _ in labels], p,
                                       size, sid, limits, now_ns))
            except Reject as e:
                err = err or e
    if not out and err is None:
        # PushBatch: no series, noNewProfilesReceivedError.
        err = Reject(400, "no profiles received")
    return out, err


# /ingest: pkg/ingester/pyroscope/ingest_handler.go, ingest_adapter.go --

def metric_name(p):
    """pkg/og/convert/pprof/profile.go RawProfile.metricName, with the
    default sample type mapping: off-CPU ("offcpu" contains "cpu") is
    stored as process_cpu."""
    st = ""
    names = [pprof_decode.string(p, vt["type"]).decode("utf-8", "replace")
             for vt in p["sample_type"]]
    if "wall" in names:
        return "wall"
    for st in names:
        if "cpu" in st:
            return "process_cpu"
        if "alloc_" in st or "inuse_" in st or st in ("space", "objects"):
            return "memory"
        if "mutex_" in st:
            return "mutex"
        if "block_" in st:
            return "block"
        if "goroutines" in st:
            return "goroutines"
    return st


def check_ingest(query, body, limits, fail):
    q = urllib.parse.parse_qs(query, keep_blank_values=True)

    def get(k):             # url.Values.Get: the first, or ""
        return q.get(k, [""])[0]

    # parseInputMetadataFromRequest: only the name can fail (400); from,
    # until (attime.Parse), sampleRate (invalid: the default 100) and
    # spyName ("unknown") have lenient defaults.
    ls = labelset_parse(get("name"))
    now_ns = time.time_ns()
    frm = get("from")
    start_ns = int(frm) * 10**9 if frm.isdigit() else now_ns
    spy = get("spyName") or "unknown"
    if get("format") != "pprof":
        # Other formats (groups, trie, tree, lines, jfr, speedscope) are
        # the server's too, but never sent by ebpfspy: not emulated.
        raise Reject(400, "mock: format %r not emulated" % get("format"))
    if not body:
        # ParseToPprof: an empty profile is accepted and ingests nothing.
        return [], None
    # adapter.parseToPprof errors are not ingestion.Error: the handler
    # answers 422, or 429 for CodeResourceExhausted.
    try:
        p, size = decompress(body, limits)
    except Reject as e:
        raise Reject(422, e.message)
    if p["time_nanos"] == 0 or \
            time.gmtime(p["time_nanos"] // 10**9).tm_year == 1970:
        p["time_nanos"] = start_ns          # profile.go fixTime
    # profile.go createLabels
    labels = [("__name__", metric_name(p)), ("__delta__", "false"),
              ("pyroscope_spy", spy)]
    if "service_name" not in ls:
        labels.append(("service_name", ls["__name__"]))
    for k, v in ls.items():
        # model.IsLabelAllowedForIngestion: no "__" names but the allowed
        if not k.startswith("__") or k in ALLOWED_PRIVATE_LABELS:
            labels.append((k, v))
    try:
        svc = dict(labels)["service_name"]
        st = fail(svc)
        if st:
            raise Reject(st, "simulated %d for %s" % (st, svc))
        rec = push_series(labels, [n for n, _ in labels], p, size,
                          str(uuid.uuid4()), limits, now_ns)
    except Reject as e:
        raise Reject(429 if e.status == 429 else 422, e.message)
    rec["from"] = int(frm) if frm.isdigit() else None
    rec["until"] = int(get("until")) if get("until").isdigit() else None
    rec["sample_rate"] = q.get("sampleRate", [None])[0]
    rec["spy_name"] = spy
    return [rec], None


# the server -------------------------------------------------------------

class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.n = 0
        self.accepted = 0
        self.failed_once = {}

    def control(self):
        c = {"status": self.args.status, "delay": self.args.delay,
             "retry_after": self.args.retry_after, "close": False,
             "fail_once": {}}
        if not self.args.control:
            return c
        try:
            with open(self.args.control) as f:
                # A fail-once rule fires once per version of the file.
                sb = os.fstat(f.fileno())
                c["version"] = (sb.st_ino, sb.st_mtime_ns)
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
            elif w[0] == "fail-once" and len(w) == 3:
                c["fail_once"][w[1]] = int(w[2])
        return c

    def fail(self, c):
        """The status a series of a service gets once, or 0."""
        def f(svc):
            with self.lock:
                st = c["fail_once"].get(svc)
                v = c.get("version")
                if st is None or self.failed_once.get(svc) == v:
                    return 0
                self.failed_once[svc] = v
                return st
        return f

    def append(self, path, obj):
        if not path:
            return
        with self.lock:
            with open(path, "a") as f:
                f.write(json.dumps(obj, sort_keys=True) + "\n")
                f.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-pyroscope/2"

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
        # pkg/tenant, pkg/util/http/auth.go: with multitenancy, a request
        # without X-Scope-OrgID is 401; basic auth and bearer tokens are a
        # gateway's (Grafana Cloud), which answers 401.
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
        a = st.args
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
                 "path": url.path, "query": url.query, "bytes": len(body)}
        if c["delay"]:
            time.sleep(c["delay"])
        if c["close"]:
            entry["status"] = "closed"
            st.append(a.log, entry)
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        status, reason = 200, "ok"
        recs, api = [], None
        try:
            if c["status"] and c["status"] != 200:
                raise Reject(c["status"], "simulated %d" % c["status"])
            if url.path == PUSH_PATH:
                # connect-go: a unary request's Content-Type must be one
                # of the codecs' (application/proto, application/json),
                # else 415.  ebpfspy sends protobuf only.
                ctype = self.headers.get("Content-Type", "")
                if ctype.split(";")[0].strip() != "application/proto":
                    raise Reject(415, "Content-Type %r" % ctype)
                self.check_auth()
                api = "push"
                recs, err = check_push(body, a, st.fail(c))
            elif url.path == INGEST_PATH:
                self.check_auth()
                api = "ingest"
                recs, err = check_ingest(url.query, body, a, st.fail(c))
            else:
                raise Reject(404, "404 page not found")
            if err is not None:
                raise err
        except Reject as e:
            status, reason = e.status, e.message
        entry["status"] = status
        entry["reason"] = reason
        entry["done"] = time.time()
        entry["series"] = len(recs)
        if recs:
            # Ingested, whatever the answer says of other series.
            with st.lock:
                st.accepted += 1
                k = st.accepted
            st.append(a.record, {
                "n": k, "req": n, "time": entry["done"],
                "received": received, "api": api, "status": status,
                "tenant": self.headers.get("X-Scope-OrgID"),
                "user_agent": self.headers.get("User-Agent"),
                "bytes": len(body), "series": recs})
        st.append(a.log, entry)
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
        # pkg/util/http/error.go ErrorWithStatus, and connect-go's JSON
        # error body: {"code": ..., "message": ...}.
        code = CODE_OF_STATUS.get(status, "unknown")
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
                rest = ",".join("%s=%s" % (k, lab[k]) for k in sorted(lab)
                                if not k.startswith("__"))
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
    ap.add_argument("--reject-older-than", type=float,
                    default=REJECT_OLDER_THAN)
    ap.add_argument("--max-profile-bytes", type=int,
                    default=MAX_PROFILE_SIZE_BYTES)
    ap.add_argument("--max-samples", type=int,
                    default=MAX_STACKTRACE_SAMPLES)
    ap.add_argument("--max-label-names", type=int,
                    default=MAX_LABEL_NAMES_PER_SERIES)
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
