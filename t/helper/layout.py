#!/usr/bin/env python3
"""Check the shape of src/ (issue #16, README "Architecture").

Usage: layout.py SRCDIR [check]
  folders   print each folder's rank and the includes that cross folders
  check     exit 1 with a line per violation:
    - a file of a folder includes a header of a folder above it in the
      pipeline (the order below), other than the exceptions;
    - a circle between folders (implied by the order, checked anyway);
    - a file outside src/session/ calls libbpf on the daemon's maps;
    - a file directly in src/ that is not one of the top modules.
"""
import os
import re
import sys

# The pipeline, lowest first: a folder may include its own headers and
# those of folders before it in this list.
ORDER = ["util", "proc", "session", "sym", "runtime", "python", "unwind",
         "profile", "push", "sink", "round", "metrics", ""]
# Headers any folder may include, and why (README says the same).
EXCEPTIONS = {
    # The parsed configuration: the contract between the parser (top)
    # and every subsystem; it includes nothing of the project.
    "config.h",
}
TOP = {"main", "ebpfspyd", "ebpfspyd_check", "ebpfspyd_daemon", "reload",
       "watch", "config", "config_keys"}
LIBBPF = re.compile(r"\b(bpf_map_[a-z_]+|bpf_obj_[a-z_]+|ring_buffer__[a-z_]+|"
                    r"bpf_map__[a-z_]+)\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def scan(src):
    headers = {}        # header name (as included) -> folder
    files = []          # (folder, path)
    for dp, dns, fns in os.walk(src):
        rel = os.path.relpath(dp, src)
        d = "" if rel == "." else rel
        for f in fns:
            if f.endswith((".c", ".h")) and ".pb-c." not in f:
                files.append((d, os.path.join(dp, f)))
                headers[(d + "/" if d else "") + f] = d
    return headers, files


def main():
    src = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "check"
    headers, files = scan(src)
    bad = []
    edges = set()
    for d, path in sorted(files):
        rel = os.path.relpath(path, src)
        if d not in ORDER:
            bad.append("%s: folder %r is not in the pipeline order" % (rel, d))
            continue
        stem = os.path.basename(path).rsplit(".", 1)[0]
        if d == "" and stem not in TOP:
            bad.append("%s: only the top modules live directly in src/" % rel)
        text = open(path, errors="replace").read()
        for h in INCLUDE.findall(text):
            if h.startswith("bpf/") or h.endswith(".pb-c.h"):
                continue
            # Same-folder includes are bare names.
            key = h if "/" in h or d == "" else d + "/" + h
            if key not in headers and h in headers:
                key = h
            if key not in headers:
                continue
            hd = headers[key]
            if hd == d:
                continue
            edges.add((d, hd))
            if os.path.basename(key) in EXCEPTIONS and hd == "":
                continue
            if ORDER.index(hd) > ORDER.index(d):
                bad.append("%s: includes %s, a folder above %s" %
                           (rel, key, d or "src"))
        if d != "session" and LIBBPF.search(text):
            bad.append("%s: calls libbpf (%s); only session may" %
                       (rel, LIBBPF.search(text).group(1)))
    # Circles between folders, exceptions left out.
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    for a, b in sorted(edges):
        if b == "" and a != "":
            continue        # config.h: the exception above
        seen, todo = set(), [b]
        while todo:
            n = todo.pop()
            if n == a:
                bad.append("circle: %s -> %s -> ... -> %s" %
                           (a or "src", b or "src", a or "src"))
                break
            if n in seen:
                continue
            seen.add(n)
            todo.extend(x for x in graph.get(n, ()) if not (x == "" and n != ""))
    if mode == "folders":
        for a, b in sorted(edges):
            print("%s -> %s" % (a or "src", b or "src"))
    for b in bad:
        print(b)
    return 1 if bad else 0


sys.exit(main())
