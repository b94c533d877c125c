#!/usr/bin/env python3
"""Check the shape of src/ (issues #16 and #25, README "Architecture").

Usage: layout.py [SRCDIR [MODE]]      (SRCDIR: the src/ beside t/)
  report    the picture: folders and their floors, the edges between
            folders, those that go up, circles between folders and
            between modules, files over FILE_MAX lines (the default)
  folders   each include that crosses folders, as "from -> to"
  check     exit 1 with a line per violation:
    - a file of a folder includes a header of a folder above it in the
      pipeline (the order below) -- there is no exception;
    - a circle between folders (implied by the order, checked anyway);
    - a circle between modules through config (the parser or the
      contract), reload or watch;
    - a file outside src/session/ calls libbpf on the daemon's maps;
    - a file directly in src/ that is not one of the top modules;
    - a comment of a C file that names a src/ file that does not exist.
  big       exit 1 with a line per file of src/ and bpf/ over FILE_MAX
            lines

The tree checked is the parent of SRCDIR: bpf/, fuzz/, t/ and tools/
have their comments checked too.
"""
import os
import re
import sys

# The pipeline, lowest first: a folder may include its own headers and
# those of folders before it in this list.  config/ is the contract (the
# configuration's types and tables) and includes nothing; "" is the top.
ORDER = ["config", "util", "proc", "elf", "dwarf", "session", "sym", "runtime",
         "jvm", "python", "v8", "unwind", "profile", "push", "sink", "round",
         "metrics",
         ""]
TOP = {"main", "ebpfspyd", "ebpfspyd_check", "ebpfspyd_daemon",
       "ebpfspyd_reload", "ebpfspyd_say", "reload", "watch", "config",
       "config_int", "config_keys", "config_suggest", "config_value"}
# Modules no circle may go through (issue #25).
NO_CIRCLE = {"config", "config/config", "reload", "watch"}
FILE_MAX = 700
LIBBPF = re.compile(r"\b(bpf_map_[a-z_]+|bpf_obj_[a-z_]+|ring_buffer__[a-z_]+|"
                    r"bpf_map__[a-z_]+)\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
SRCPATH = re.compile(r"\bsrc/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.[ch]\b")
COMMENT_DIRS = ["src", "bpf", "fuzz", "t", "tools"]


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


def module(headers, rel):
    """The module a file belongs to: the header it is written for, found
    as the longest prefix of its name ("pids_load.c", "pids_int.h": pids)
    that is a header of its folder; else its own name."""
    d, f = os.path.split(rel)
    stem = f.rsplit(".", 1)[0]
    if stem.endswith("_int"):
        stem = stem[:-4]        # the insides of stem, shared in its files
    parts = stem.split("_")
    for i in range(len(parts), 0, -1):
        p = "_".join(parts[:i])
        if os.path.join(d, p + ".h") in headers:
            return os.path.join(d, p)
    return os.path.join(d, stem)


def circles(graph):
    """The strongly connected parts of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def lines(path):
    with open(path, errors="replace") as f:
        return sum(1 for _ in f)


def big_files(root):
    out = []
    for top in ("src", "bpf"):
        for dp, dns, fns in os.walk(os.path.join(root, top)):
            dns[:] = [x for x in dns if x != "vmlinux"]
            for f in sorted(fns):
                if not f.endswith((".c", ".h")) or ".pb-c." in f or \
                   f.endswith(".skel.h"):
                    continue
                p = os.path.join(dp, f)
                n = lines(p)
                if n > FILE_MAX:
                    out.append((os.path.relpath(p, root), n))
    return sorted(out)


def stale_comments(root):
    """Comments naming a src/ file that is not there (moved, renamed)."""
    out = []
    for top in COMMENT_DIRS:
        for dp, dns, fns in os.walk(os.path.join(root, top)):
            dns[:] = [x for x in dns if x != "vmlinux" and
                      not x.startswith("trash directory")]
            for f in sorted(fns):
                if not f.endswith((".c", ".h")) or ".pb-c." in f:
                    continue
                p = os.path.join(dp, f)
                text = open(p, errors="replace").read()
                for m in COMMENT.finditer(text):
                    for name in SRCPATH.findall(m.group(0)):
                        if not os.path.exists(os.path.join(root, name)):
                            ln = text.count("\n", 0, m.start()) + \
                                m.group(0).count(
                                    "\n", 0, m.group(0).find(name)) + 1
                            out.append("%s:%d: comment names %s, which "
                                       "does not exist" %
                                       (os.path.relpath(p, root), ln, name))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(here, "..", "..", "src")
    src = os.path.normpath(src)
    root = os.path.dirname(os.path.abspath(src))
    mode = sys.argv[2] if len(sys.argv) > 2 else "report"
    headers, files = scan(src)
    bad = []
    edges = set()
    medges = {}         # module -> modules it includes
    for d, path in sorted(files):
        rel = os.path.relpath(path, src)
        if d not in ORDER:
            bad.append("%s: folder %r is not in the pipeline order" % (rel, d))
            continue
        stem = os.path.basename(path).rsplit(".", 1)[0]
        if d == "" and stem not in TOP:
            bad.append("%s: only the top modules live directly in src/" % rel)
        text = open(path, errors="replace").read()
        mod = module(headers, rel)
        for h in INCLUDE.findall(text):
            if h.startswith("bpf/") or h.endswith(".pb-c.h"):
                continue
            # Same-folder includes are bare names.
            key = h if "/" in h or d == "" else d + "/" + h
            if key not in headers and h in headers:
                key = h
            if key not in headers:
                continue
            hm = module(headers, key)
            if hm != mod:
                medges.setdefault(mod, set()).add(hm)
            hd = headers[key]
            if hd == d:
                continue
            edges.add((d, hd))
            if ORDER.index(hd) > ORDER.index(d):
                bad.append("%s: includes %s, a folder above %s" %
                           (rel, key, d or "src"))
        if d != "session" and LIBBPF.search(text):
            bad.append("%s: calls libbpf (%s); only session may" %
                       (rel, LIBBPF.search(text).group(1)))
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    fcircles = circles(graph)
    for c in fcircles:
        bad.append("circle: %s" % " <-> ".join(x or "src" for x in c))
    mcircles = circles(medges)
    for c in mcircles:
        if NO_CIRCLE.intersection(c):
            bad.append("module circle: %s" % " <-> ".join(c))
    bad.extend(stale_comments(root))
    big = big_files(root)

    if mode == "folders":
        for a, b in sorted(edges):
            print("%s -> %s" % (a or "src", b or "src"))
    elif mode == "big":
        for p, n in big:
            print("%s: %d lines, more than %d" % (p, n, FILE_MAX))
        return 1 if big else 0
    elif mode == "report":
        up = sorted((a, b) for a, b in edges
                    if b in ORDER and a in ORDER and
                    ORDER.index(b) > ORDER.index(a))
        used = [d for d in ORDER if any(fd == d for fd, _ in files)]
        print("folders: %d" % len(used))
        for d in used:
            print("  floor %2d  %s" % (ORDER.index(d), d or "src (top)"))
        print("edges between folders: %d" % len(edges))
        print("upward edges: %d" % len(up))
        for a, b in up:
            print("  %s -> %s" % (a or "src", b or "src"))
        print("circles between folders: %d" % len(fcircles))
        for c in fcircles:
            print("  " + " <-> ".join(x or "src" for x in c))
        print("circles between modules: %d" % len(mcircles))
        for c in mcircles:
            print("  " + " <-> ".join(c))
        print("files over %d lines: %d" % (FILE_MAX, len(big)))
        for p, n in big:
            print("  %s (%d)" % (p, n))
        print("violations: %d" % len(bad))
        for b in bad:
            print("  " + b)
        return 0
    for b in bad:
        print(b)
    return 1 if bad else 0


sys.exit(main())
