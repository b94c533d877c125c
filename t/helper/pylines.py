# pylines.py MODULE...: the line tables of every code object of the
# given stdlib modules, with the line CPython itself gives each
# instruction, for t/helper/pylines to check src/python/pysym.c's decoders:
#
#   C KIND FIRSTLINENO HEXTABLE     a code object (lnotab, linetable or
#                                   locations, as pysym.h names them)
#   A ADDR LINE                     an instruction: bytes (3.8-3.10) or
#                                   code units (3.11+); line -1: none
import dis
import importlib.util
import sys


def code_objects(co):
    yield co
    for c in co.co_consts:
        if hasattr(c, "co_code"):
            yield from code_objects(c)


def emit(co):
    v = sys.version_info[:2]
    out = []
    if v < (3, 10):
        out.append("C lnotab %d %s" % (co.co_firstlineno, co.co_lnotab.hex()))
        starts = list(dis.findlinestarts(co))
        for off in range(0, len(co.co_code), 2):
            line = co.co_firstlineno
            for s, l in starts:
                if s <= off:
                    line = l
            out.append("A %d %d" % (off, line))
    else:
        kind = "linetable" if v == (3, 10) else "locations"
        out.append("C %s %d %s" % (kind, co.co_firstlineno,
                                   co.co_linetable.hex()))
        for start, end, line in co.co_lines():
            for off in range(start, end, 2):
                addr = off if v == (3, 10) else off // 2
                out.append("A %d %d" % (addr, -1 if line is None else line))
    print("\n".join(out))


for name in sys.argv[1:]:
    path = importlib.util.find_spec(name).origin
    with open(path, "rb") as f:
        top = compile(f.read(), path, "exec")
    for co in code_objects(top):
        emit(co)
