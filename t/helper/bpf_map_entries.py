#!/usr/bin/env python3
"""Print the entries of the BPF maps of a name, one per line.

    bpf_map_entries.py NAME [FIELD=VALUE ...]

Runs `bpftool -j map dump name NAME` (several maps of that name, the
daemons of tests running at the same time, give one list each) and
prints each entry as "<key> <value>", both as JSON as bpftool formats
them with BTF.  FIELD=VALUE keeps only the entries whose key (FIELD
"key") or value field has that value, e.g. key=1234 or value.pid=1234.
"""
import json
import subprocess
import sys


def entries(x):
    if isinstance(x, list):
        for y in x:
            yield from entries(y)
    elif isinstance(x, dict):
        if "elements" in x:
            yield from entries(x["elements"])
        elif "key" in x:
            yield x.get("formatted", x)


def field(e, path):
    v = e
    for part in path.split("."):
        if not isinstance(v, dict) or part not in v:
            return None
        v = v[part]
    return v


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: bpf_map_entries.py NAME [FIELD=VALUE ...]\n")
        return 2
    out = subprocess.run(["bpftool", "-j", "map", "dump", "name",
                          sys.argv[1]], capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        return 1
    want = [a.split("=", 1) for a in sys.argv[2:]]
    for e in entries(json.loads(out.stdout or "[]")):
        if all(str(field(e, f)) == v for f, v in want):
            print(json.dumps(e["key"]), json.dumps(e["value"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
