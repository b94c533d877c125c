#!/usr/bin/env python3
"""Turn readelf's view of a file's CFI into the rows of an unwind table.

Usage: unwind_readelf.py [--section .eh_frame|.debug_frame] ELF

readelf --debug-dump=frames-interp gives, per FDE, the CFA and register
rules by address; readelf --debug-dump=frames gives the expressions that
frames-interp only calls "exp".  Each row becomes what bpf/unwind.h can
say of it, in the form t/unit/t-unwind_table.c prints for its own table:

    START END RULE        (hex addresses, [START, END))

RULE is "rsp+N" or "rbp+N" (CFA), "plt", "deref+N" (CFA = *(rsp+N)+8),
followed by " c-N" when rbp is saved at CFA-N; or "sig" (signal frame),
"stop" (return address undefined), "inv" (anything else), "exp?" (an
expression the raw ops did not show: should not happen).

An aarch64 file (readelf -h says AArch64) has its own words: "sp+N" or
"x29+N", " c-N" when x29 is saved at CFA-N, then where the return
address x30 is, unless at CFA-8: " ra=lr" (not saved: in the register),
" ra=fp" (beside the saved x29), " ra=c-N" (saved alone); "stop" where
the raw ops made x30 undefined (frames-interp shows "u" for that and for
a register with no rule yet alike); no expression is followed.  FDEs are taken
by start address; one starting inside the previous cuts it short, as in
libgcc's lookup.  Addresses no FDE covers are left out, and consecutive
identical rows are merged.
"""
import bisect
import re
import subprocess
import sys

HDR = re.compile(r'^([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) (CIE|FDE)(.*)$')
SECTION = re.compile(r'^Contents of the (\S+) section')
ROW = re.compile(r'^([0-9a-f]{16}) (.*)$')
PLT = ('DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; DW_OP_lit15; '
       'DW_OP_and; DW_OP_lit11; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus')
DEREF = re.compile(r'^DW_OP_breg7 \(rsp\): (-?\d+); DW_OP_deref; '
                   r'DW_OP_plus_uconst: 8$')
DEFEXPR = re.compile(r'DW_CFA_def_cfa_expression \((.*)\)$')
ADVANCE = re.compile(r'^DW_CFA_(?:advance_loc\d?|MIPS_advance_loc8|set_loc)'
                     r'.*?([0-9a-f]{8,16})$')


def readelf(how, path):
    # readelf exits 1 on some of Debian's files with no message:
    # judge its output instead.
    out = subprocess.run(['readelf', '--debug-dump=' + how, path],
                         capture_output=True, text=True).stdout
    return out.splitlines()


def sections(lines):
    """Yield (section, header match, body lines) for each entry."""
    sec = None
    cur = None
    for line in lines:
        m = SECTION.match(line)
        if m:
            if cur:
                yield cur
            cur = None
            sec = m.group(1)
            continue
        m = HDR.match(line)
        if m:
            if cur:
                yield cur
            cur = (sec, m, [])
            continue
        if cur and line.strip():
            cur[2].append(line)
    if cur:
        yield cur


RA30 = re.compile(r'^DW_CFA_(\w+): r30 ')


def expressions(path, want):
    """Per FDE offset: [(loc, (CFA expression in force or None, whether
    r30 is undefined))], from the raw ops, following
    remember/restore_state as frames-interp does."""
    ex = {}
    for sec, m, body in sections(readelf('frames', path)):
        if sec != want or m.group(4) != 'FDE':
            continue
        loc = int(re.search(r'pc=([0-9a-f]+)', m.group(5)).group(1), 16)
        cur = None
        undef = False
        stack = []
        hist = [(loc, (None, False))]
        for line in body:
            t = line.strip()
            a = ADVANCE.match(t)
            if a:
                loc = int(a.group(1), 16)
                hist.append((loc, (cur, undef)))
                continue
            r = RA30.match(t)
            if r:
                undef = r.group(1) == 'undefined'
            e = DEFEXPR.search(t)
            if e:
                cur = e.group(1)
            elif t.startswith(('DW_CFA_def_cfa:', 'DW_CFA_def_cfa_sf:',
                               'DW_CFA_def_cfa_register')):
                cur = None
            elif t.startswith('DW_CFA_remember_state'):
                stack.append((cur, undef))
            elif t.startswith('DW_CFA_restore_state') and stack:
                cur, undef = stack.pop()
            hist[-1] = (hist[-1][0], (cur, undef))
        ex[int(m.group(1), 16)] = hist
    return ex


def expression_at(hist, loc):
    i = bisect.bisect_right([h[0] for h in hist], loc) - 1
    return hist[i][1] if i >= 0 else (None, False)


def canon_arm64(cols, cie, undef):
    if undef:
        return 'stop'
    if 'S' in cie['aug']:
        return 'sig'
    if cie['ra'] != 30:
        return 'inv'
    m = re.match(r'^(sp|x29)\+(\d+)$', cols.get('CFA') or '')
    if not m or int(m.group(2)) > 65535:
        return 'inv'
    base = cols['CFA']
    fp = cols.get('x29', 'u')
    ra = cols.get('ra', 'u')
    fm = re.match(r'^c([+-]\d+)$', fp)
    rm = re.match(r'^c([+-]\d+)$', ra)
    if fp not in ('u', 's') and not (fm and slot(int(fm.group(1)))):
        return 'inv'
    if ra in ('u', 's'):
        where = ' ra=lr'
    elif rm and int(rm.group(1)) == -8:
        where = ''
    elif rm and slot(int(rm.group(1))):
        if fm and int(fm.group(1)) + 8 == int(rm.group(1)):
            where = ' ra=fp'
        elif fm:
            return 'inv'
        else:
            return '%s ra=c%+d' % (base, int(rm.group(1)))
    else:
        return 'inv'
    return base + (' c%+d' % int(fm.group(1)) if fm else '') + where


def slot(off):
    return off != 0 and off % 8 == 0 and -128 <= off // 8 <= 127


def classify(expr):
    if expr == PLT:
        return 'plt'
    if expr == 'DW_OP_breg7 (rsp): 160; DW_OP_deref':
        return 'sig'
    m = DEREF.match(expr)
    if m and -32768 <= int(m.group(1)) <= 32767:
        return 'deref+%d' % int(m.group(1))
    return 'inv'


def canon(cols, cie, expr):
    ra = cols.get('ra')
    if ra == 'u':
        return 'stop'
    if 'S' in cie['aug']:
        return 'sig'
    cfa = cols.get('CFA')
    kind = None
    if cfa == 'exp' and expr is not None:
        kind = classify(expr)
        if kind == 'sig':
            return 'sig'
    if cie['ra'] != 16 or ra != 'c-8':
        return 'inv'
    if cfa == 'exp':
        if kind is None:
            return 'exp?'
        if kind == 'inv':
            return 'inv'
        base = kind
    else:
        m = re.match(r'^(rsp|rbp)\+(\d+)$', cfa or '')
        if not m or int(m.group(2)) > 65535:
            return 'inv'
        base = cfa
    rbp = cols.get('rbp', 'u')
    if rbp in ('u', 's'):
        return base
    m = re.match(r'^c([+-]\d+)$', rbp)
    if m:
        off = int(m.group(1))
        if off != 0 and off % 8 == 0 and -128 <= off // 8 <= 127:
            return '%s c%+d' % (base, off)
    return 'inv'


def main():
    args = sys.argv[1:]
    want = None
    if len(args) == 3 and args[0] == '--section':
        want = args[1]
        args = args[2:]
    if len(args) != 1:
        sys.exit('usage: unwind_readelf.py [--section NAME] ELF')
    path = args[0]
    lines = readelf('frames-interp', path)
    if want is None:
        names = [SECTION.match(x).group(1) for x in lines if SECTION.match(x)]
        want = '.eh_frame' if '.eh_frame' in names else '.debug_frame'
    exprs = expressions(path, want)
    hdr = subprocess.run(['readelf', '-h', path], capture_output=True,
                         text=True).stdout
    arm64 = re.search(r'Machine:\s+AArch64', hdr) is not None

    cies = {}
    fdes = []
    for sec, m, body in sections(lines):
        if sec != want:
            continue
        off = int(m.group(1), 16)
        rest = m.group(5)
        cols = None
        rows = []
        for line in body:
            if line.strip().startswith('LOC'):
                cols = line.split()[1:]
                continue
            r = ROW.match(line)
            if r and cols:
                vals = []
                for v in r.group(2).split():
                    if v.startswith('(') and vals:
                        vals[-1] += ' ' + v     # "r10 (r10)"
                    else:
                        vals.append(v)
                rows.append((int(r.group(1), 16), dict(zip(cols, vals))))
        if m.group(4) == 'CIE':
            a = re.search(r'"([^"]*)".*ra=(\d+)', rest)
            cies[off] = {'aug': a.group(1), 'ra': int(a.group(2)),
                         'init': rows[-1][1] if rows else {}}
            continue
        f = re.search(r'cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+)', rest)
        cie = cies.get(int(f.group(1), 16))
        start, end = int(f.group(2), 16), int(f.group(3), 16)
        if cie is None or start >= end:
            continue
        if not rows:
            rows = [(start, cie['init'])]
        hist = exprs.get(off, [])
        if arm64:
            rules = [(loc, canon_arm64(c, cie,
                                       expression_at(hist, loc)[1]))
                     for loc, c in rows]
        else:
            rules = [(loc, canon(c, cie, expression_at(hist, loc)[0]))
                     for loc, c in rows]
        fdes.append((start, off, end, rules))

    fdes.sort(key=lambda x: (x[0], x[1]))
    out = []
    for i, (start, _, end, rows) in enumerate(fdes):
        limit = min(end, fdes[i + 1][0]) if i + 1 < len(fdes) else end
        for j, (loc, rule) in enumerate(rows):
            if loc >= limit:
                break
            nxt = rows[j + 1][0] if j + 1 < len(rows) else limit
            nxt = min(nxt, limit)
            if nxt <= loc:
                continue
            if out and out[-1][2] == rule and out[-1][1] == loc:
                out[-1][1] = nxt
            else:
                out.append([loc, nxt, rule])
    for s, e, r in out:
        print('%x %x %s' % (s, e, r))


if __name__ == '__main__':
    main()
