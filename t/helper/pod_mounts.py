#!/usr/bin/env python3
"""pod_mounts.py DAEMONSET.yaml: the mounts of ebpfspyd's container in
deploy/daemonset.yaml, one a line: MOUNTPATH<TAB>SOURCE<TAB>ro|rw, where
SOURCE is a hostPath's path, "configMap" or "emptyDir"; and a first line
"hostPID<TAB>true|false".  A reader of the manifest's own layout (block
lists of "- name:" items), standard library only: t/t4102-pod-mounts.sh
mounts what it prints and nothing else."""

import re
import sys


def items(lines, key):
    """The "- " items of the block list under "key:", as dicts of their
    own keys, and "path" of a key nested in them (hostPath's)."""
    out, cur, depth, own = [], None, None, None
    inside = False
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        text = line.strip()
        if text == key + ":":
            inside, depth, cur = True, indent, None
            continue
        if not inside:
            continue
        if indent <= depth:
            break
        if text.startswith("- "):
            cur, own = {}, indent + 2
            out.append(cur)
            text = text[2:]
            indent = own
        m = re.match(r"([A-Za-z]+):\s*(.*)$", text)
        if m is None or cur is None:
            continue
        k, v = m.group(1), m.group(2).strip().strip('"')
        if indent == own:
            cur[k] = v
        elif k == "path":
            cur["path"] = v
    return out


def main():
    lines = open(sys.argv[1]).read().splitlines()
    hostpid = any(l.strip() == "hostPID: true" for l in lines)
    print("hostPID\t%s" % ("true" if hostpid else "false"))
    vols = {}
    for v in items(lines, "volumes"):
        if "path" in v:
            vols[v["name"]] = v["path"]
        elif "configMap" in v:
            vols[v["name"]] = "configMap"
        elif "emptyDir" in v:
            vols[v["name"]] = "emptyDir"
    for m in items(lines, "volumeMounts"):
        src = vols.get(m["name"])
        if src is None:
            sys.exit("pod_mounts.py: volume %s not declared" % m["name"])
        ro = "ro" if m.get("readOnly") == "true" else "rw"
        print("%s\t%s\t%s" % (m["mountPath"], src, ro))


main()
