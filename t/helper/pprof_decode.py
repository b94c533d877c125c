#!/usr/bin/env python3
"""Decode a pprof profile without protobuf libraries.

Reads a (gzipped) pprof file and prints its stacks folded, one
"root;...;leaf value" line per distinct stack, sorted, with the values
of one sample type summed; or, with --summary, the profile's sample
types, period, totals, times and comments as "key: value" lines.

It is a second, independent reader of what ebpfspyd writes: only the
standard library and a hand-written protobuf wire-format parser, so a
bug in the daemon's protobuf-c encoding cannot hide in a shared
decoder.  Frame names are cleaned as ebpfspy's folded writer cleans
them (';' -> ':', control characters -> '?', trailing spaces dropped,
empty -> [unknown]) unless --raw is given.

With --labels, each line starts with the sample's labels in braces,
"{name=value,...} root;...;leaf value".

usage: pprof_decode.py [--summary] [--raw] [--labels] [--index N] file|-
Exit status 0, or 1 with a message on stderr when the input is not a
valid profile.
"""

import argparse
import gzip
import sys
import zlib


class DecodeError(Exception):
    pass


# Wire types.
VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5


def read_varint(buf, pos):
    result = 0
    shift = 0
    while True:
        if pos >= len(buf):
            raise DecodeError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise DecodeError("varint too long")


def fields(buf):
    """Yield (field number, wire type, value) of one message.

    value is an int for VARINT/I64/I32 and bytes for LEN.
    """
    pos = 0
    end = len(buf)
    while pos < end:
        key, pos = read_varint(buf, pos)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise DecodeError("field number 0")
        if wt == VARINT:
            v, pos = read_varint(buf, pos)
        elif wt == I64:
            if pos + 8 > end:
                raise DecodeError("truncated fixed64")
            v = int.from_bytes(buf[pos:pos + 8], "little")
            pos += 8
        elif wt == I32:
            if pos + 4 > end:
                raise DecodeError("truncated fixed32")
            v = int.from_bytes(buf[pos:pos + 4], "little")
            pos += 4
        elif wt == LEN:
            n, pos = read_varint(buf, pos)
            if pos + n > end:
                raise DecodeError("truncated length-delimited field")
            v = bytes(buf[pos:pos + n])
            pos += n
        else:
            # Groups are not in profile.proto.
            raise DecodeError("unsupported wire type %d" % wt)
        yield num, wt, v


def repeated_ints(wt, v, out):
    """Append a repeated integer field's values, packed or not."""
    if wt == LEN:
        pos = 0
        while pos < len(v):
            x, pos = read_varint(v, pos)
            out.append(x)
    elif wt == VARINT:
        out.append(v)
    else:
        raise DecodeError("bad wire type %d for a repeated integer" % wt)


def int64(v):
    """A varint read as unsigned, reinterpreted as int64."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def scalar(wt, v):
    if wt != VARINT:
        raise DecodeError("bad wire type %d for an integer" % wt)
    return v


def parse_value_type(buf):
    vt = {"type": 0, "unit": 0}
    for num, wt, v in fields(buf):
        if num == 1:
            vt["type"] = int64(scalar(wt, v))
        elif num == 2:
            vt["unit"] = int64(scalar(wt, v))
    return vt


def parse_sample(buf):
    s = {"location_id": [], "value": [], "label": []}
    for num, wt, v in fields(buf):
        if num == 1:
            repeated_ints(wt, v, s["location_id"])
        elif num == 2:
            vals = []
            repeated_ints(wt, v, vals)
            s["value"].extend(int64(x) for x in vals)
        elif num == 3 and wt == LEN:
            s["label"].append(v)
    return s


def parse_location(buf):
    loc = {"id": 0, "address": 0, "line": []}
    for num, wt, v in fields(buf):
        if num == 1:
            loc["id"] = scalar(wt, v)
        elif num == 3:
            loc["address"] = scalar(wt, v)
        elif num == 4:
            if wt != LEN:
                raise DecodeError("bad wire type for Location.line")
            fid = 0
            for n2, w2, v2 in fields(v):
                if n2 == 1:
                    fid = scalar(w2, v2)
            loc["line"].append(fid)
    return loc


def parse_function(buf):
    fn = {"id": 0, "name": 0, "system_name": 0}
    for num, wt, v in fields(buf):
        if num == 1:
            fn["id"] = scalar(wt, v)
        elif num == 2:
            fn["name"] = int64(scalar(wt, v))
        elif num == 3:
            fn["system_name"] = int64(scalar(wt, v))
    return fn


def parse_profile(buf):
    p = {
        "sample_type": [], "sample": [], "location": [], "function": [],
        "string_table": [], "time_nanos": 0, "duration_nanos": 0,
        "period_type": None, "period": 0, "comment": [],
        "default_sample_type": 0,
    }
    for num, wt, v in fields(buf):
        if num in (1, 2, 4, 5, 6, 11) and wt != LEN:
            raise DecodeError("bad wire type %d for field %d" % (wt, num))
        if num == 1:
            p["sample_type"].append(parse_value_type(v))
        elif num == 2:
            p["sample"].append(parse_sample(v))
        elif num == 4:
            p["location"].append(parse_location(v))
        elif num == 5:
            p["function"].append(parse_function(v))
        elif num == 6:
            p["string_table"].append(v)
        elif num == 9:
            p["time_nanos"] = int64(scalar(wt, v))
        elif num == 10:
            p["duration_nanos"] = int64(scalar(wt, v))
        elif num == 11:
            p["period_type"] = parse_value_type(v)
        elif num == 12:
            p["period"] = int64(scalar(wt, v))
        elif num == 13:
            vals = []
            repeated_ints(wt, v, vals)
            p["comment"].extend(int64(x) for x in vals)
        elif num == 14:
            p["default_sample_type"] = int64(scalar(wt, v))
    if not p["string_table"] or p["string_table"][0] != b"":
        raise DecodeError('string_table[0] is not ""')
    return p


def string(p, i):
    st = p["string_table"]
    if i < 0 or i >= len(st):
        raise DecodeError("string index %d out of range" % i)
    return st[i]


def clean(name):
    name = name.rstrip(b" ")
    if not name:
        return b"[unknown]"
    out = bytearray(name)
    for i, c in enumerate(out):
        if c == ord(";"):
            out[i] = ord(":")
        elif c < 0x20 or c == 0x7F:
            out[i] = ord("?")
    return bytes(out)


def sample_labels(p, s):
    out = []
    for buf in s["label"]:
        key = val = 0
        num = None
        for n, wt, v in fields(buf):
            if n == 1:
                key = scalar(wt, v)
            elif n == 2:
                val = scalar(wt, v)
            elif n == 3:
                num = int64(scalar(wt, v))
        if num is not None and val == 0:
            out.append(b"%s=%d" % (string(p, key), num))
        else:
            out.append(b"%s=%s" % (string(p, key), string(p, val)))
    return b"{" + b",".join(sorted(out)) + b"} "


def folded(p, index, raw, labels=False):
    funcs = {}
    for fn in p["function"]:
        if fn["id"] == 0:
            raise DecodeError("function id 0")
        funcs[fn["id"]] = string(p, fn["name"])
    locs = {}
    for loc in p["location"]:
        if loc["id"] == 0:
            raise DecodeError("location id 0")
        names = []
        # line[0] is the innermost function, the last one its caller.
        for fid in loc["line"]:
            if fid not in funcs:
                raise DecodeError("unknown function id %d" % fid)
            names.append(funcs[fid])
        if not names:
            names.append(b"0x%x" % loc["address"])
        locs[loc["id"]] = names
    stacks = {}
    for s in p["sample"]:
        if index >= len(s["value"]):
            raise DecodeError("sample without value %d" % index)
        frames = []
        # location_id[0] is the leaf.
        for lid in s["location_id"]:
            if lid not in locs:
                raise DecodeError("unknown location id %d" % lid)
            frames.extend(locs[lid])
        frames.reverse()
        if not raw:
            frames = [clean(f) for f in frames]
        key = b";".join(frames)
        if labels:
            key = sample_labels(p, s) + key
        stacks[key] = stacks.get(key, 0) + s["value"][index]
    return b"".join(b"%s %d\n" % (k, stacks[k]) for k in sorted(stacks))


def value_type(p, vt):
    if vt is None:
        return "none"
    return "%s/%s" % (string(p, vt["type"]).decode("utf-8", "replace"),
                      string(p, vt["unit"]).decode("utf-8", "replace"))


def summary(p, index):
    total = 0
    for s in p["sample"]:
        if index < len(s["value"]):
            total += s["value"][index]
    lines = [
        "sample_types: %s" % " ".join(value_type(p, vt)
                                      for vt in p["sample_type"]),
        "period_type: %s" % value_type(p, p["period_type"]),
        "period: %d" % p["period"],
        "samples: %d" % len(p["sample"]),
        "total: %d" % total,
        "time_nanos: %d" % p["time_nanos"],
        "duration_nanos: %d" % p["duration_nanos"],
    ]
    for c in p["comment"]:
        lines.append("comment: %s" %
                     string(p, c).decode("utf-8", "replace"))
    return ("\n".join(lines) + "\n").encode("utf-8")


def main():
    ap = argparse.ArgumentParser(description="decode a pprof profile")
    ap.add_argument("--summary", action="store_true",
                    help="print types, period, totals and comments")
    ap.add_argument("--raw", action="store_true",
                    help="print frame names as they are")
    ap.add_argument("--labels", action="store_true",
                    help="start each line with the sample's labels")
    ap.add_argument("--index", type=int, default=0,
                    help="sample value index (default 0)")
    ap.add_argument("file", help="pprof file, gzipped or not; - for stdin")
    args = ap.parse_args()

    try:
        if args.file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        p = parse_profile(data)
        if args.summary:
            out = summary(p, args.index)
        else:
            out = folded(p, args.index, args.raw, args.labels)
    except (OSError, EOFError, zlib.error, DecodeError) as e:
        sys.stderr.write("pprof_decode: %s: %s\n" % (args.file, e))
        return 1
    sys.stdout.buffer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
