#!/usr/bin/env python3
"""Share of the samples of a process whose stack holds each function.

    stack_shares.py perf|folded COMM FUNC...

Reads `perf script -F comm,ip,sym` output (perf) or ebpfspy's folded
stacks, "SERVICE;frame;...;frame COUNT" (folded), on stdin, keeps the
samples of COMM, and prints "samples N", then "FUNC PERMILLE" for each
FUNC: the samples with a frame named FUNC, in thousandths.  A frame's
name loses its symbol version (@@GLIBC_2.34, not @plt), GCC's clone
suffix (.constprop.0: perf names the clone's code after the function
its DWARF says is inlined there) and perf's " (inlined)" mark.
"""
import re
import sys

CLONE = re.compile(r'(\.(constprop|isra|part|cold)(\.\d+)?)+$')


def name(s):
    s = s.strip()
    if s.endswith('(inlined)'):
        s = s[:-len('(inlined)')].strip()
    if not s.endswith('@plt'):
        s = s.split('@', 1)[0]
    return CLONE.sub('', s)


def perf_samples(f, comm):
    """(frames, 1) for each sample of comm."""
    cur = None
    for line in f:
        line = line.rstrip('\n')
        if not line.strip():
            if cur is not None:
                yield cur, 1
            cur = None
        elif not line[0].isspace():
            if cur is not None:
                yield cur, 1
            cur = [] if line.split()[0] == comm else None
        elif cur is not None:
            parts = line.split(None, 1)
            if len(parts) == 2:
                cur.append(name(parts[1]))
    if cur is not None:
        yield cur, 1


def folded_samples(f, comm):
    for line in f:
        stack, _, n = line.rstrip('\n').rpartition(' ')
        frames = stack.split(';')
        if frames and frames[0] == comm:
            yield [name(x) for x in frames[1:]], int(n)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ('perf', 'folded'):
        sys.stderr.write('usage: stack_shares.py perf|folded COMM '
                         'FUNC...\n')
        return 2
    read = perf_samples if sys.argv[1] == 'perf' else folded_samples
    funcs = sys.argv[3:]
    total = 0
    hits = dict.fromkeys(funcs, 0)
    for frames, n in read(sys.stdin, sys.argv[2]):
        total += n
        seen = set(frames)
        for fn in funcs:
            if fn in seen:
                hits[fn] += n
    print('samples %d' % total)
    for fn in funcs:
        print('%s %d' % (fn, (hits[fn] * 1000 + total // 2) // total
                         if total else 0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
