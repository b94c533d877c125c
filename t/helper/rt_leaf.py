#!/usr/bin/env python3
"""Leaf runtime frames (JavaScript, Java) of a process's folded stacks.

    rt_leaf.py ours|perfmap|java COMM MARK CHAIN[|CHAIN...]

Reads ebpfspy's folded stacks ("SERVICE;frame;...;frame COUNT") on
stdin and keeps the samples of COMM whose stack holds a frame named
MARK, or one of MARK's comma-separated names (Builtins_JSEntry and
Builtins_RunMicrotasks: the main thread running JavaScript, not its
start-up nor its teardown; Builtin_AtomicsWait for the waits).  A
JavaScript frame is "name (file.js:line)" or "name (node:module:line)"
as ebpfspy names them (ours), or "JS:*name file:line:col" as node
--perf-basic-prof names them (perfmap); a Java frame is
"pkg.Class.method (File.java)" as ebpfspy names them (java).  CHAIN
may be several, separated by "|": a sample is whole if one matches.
Prints

    samples N	the samples kept
    whole N	of which the leaf JavaScript function is CHAIN's last,
		the JavaScript functions (repeats folded) end with CHAIN
		(comma-separated, outermost first), the stack holds the
		thread's native start (node::Start, start_thread) and no
		[unknown] frame
    truncated N	the samples whose stack says [truncated] at its root
    leaf FUNC N	the samples whose leaf JavaScript function is FUNC
"""
import re
import sys

OURS = re.compile(r'^(.+) \((?:[^;()]*\.js|node:[^;()]*)(?::\d+)?\)$')
PERF = re.compile(r'^JS:[*~^+-]?(\S*) ')
JAVA = re.compile(r'^(\S+) \([^;()]*\.java\)$')
MODES = {'ours': OURS, 'perfmap': PERF, 'java': JAVA}


def js_name(mode, frame):
    m = MODES[mode].match(frame)
    if m is None:
        return None
    return m.group(1) or '(anonymous)'


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in MODES:
        sys.stderr.write('usage: rt_leaf.py ours|perfmap|java COMM MARK '
                         'CHAIN[|CHAIN...]\n')
        return 2
    mode, comm = sys.argv[1:3]
    marks = set(sys.argv[3].split(','))
    chains = [c.split(',') for c in sys.argv[4].split('|')]
    samples = whole = truncated = 0
    leaf = {}
    for line in sys.stdin:
        stack, _, n = line.rstrip('\n').rpartition(' ')
        frames = stack.split(';')
        if not frames or frames[0] != comm or not marks & set(frames):
            continue
        n = int(n)
        samples += n
        js = []
        for f in frames[1:]:
            name = js_name(mode, f)
            if name is not None and (not js or js[-1] != name):
                js.append(name)
        last = js[-1] if js else '-'
        leaf[last] = leaf.get(last, 0) + n
        if len(frames) > 1 and frames[1] == '[truncated]':
            truncated += n
        if (any(js[-len(c):] == c for c in chains) and
                ('node::Start' in frames or 'start_thread' in frames) and
                '[unknown]' not in frames):
            whole += n
    print('samples %d' % samples)
    print('whole %d' % whole)
    print('truncated %d' % truncated)
    for k, v in sorted(leaf.items(), key=lambda x: -x[1]):
        print('leaf %s %d' % (k, v))
    return 0


if __name__ == '__main__':
    sys.exit(main())
