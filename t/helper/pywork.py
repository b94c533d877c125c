# pywork.py MODE SECONDS: Python workloads with distinctive names and
# known splits, for the t7xxx tests.  Runs on CPython 3.8 and later.
# Prints "ready PID" once started, and what it measured at the end.
# Lines the tests look up carry a "# @name" marker.
#
#   split    main() calls hot_a() for 75% and hot_b() for 25% of its CPU
#            time (burning in burn_a() and burn_b()); prints "cpu hot_a
#            NS" and "cpu hot_b NS"
#   names    a method, a generator, a coroutine and module-level code,
#            each burning CPU
#   threads  thread_one() burns Python; thread_two() hashes (the GIL
#            released) at the same time
#   nap      nap() sleeps SECONDS; prints "blocked nap NS"
#   hash     hot_hash() hashes a large buffer (OpenSSL through hashlib)
#   deep     recurse() 200 deep, then burns
#
# With $PYWORK_GO set, it waits (sleeping) after "ready" until that file
# exists: a test starts it before the daemon and lets it work after.
import hashlib
import os
import sys
import threading
import time

MODE = sys.argv[1]
SECONDS = float(sys.argv[2])
clock = time.thread_time


def burn_for(seconds):
    end = clock() + seconds
    n = 0
    while clock() < end:
        n += 1
    return n


# Two copies of burn_for: the innermost Python function tells hot_a's
# work from hot_b's, for profilers that see only that (bench/python.sh).
def burn_a(seconds):
    end = clock() + seconds
    n = 0
    while clock() < end:
        for i in range(200):
            n += i
    return n


def burn_b(seconds):
    end = clock() + seconds
    n = 0
    while clock() < end:
        for i in range(200):
            n += i
    return n


def hot_a():
    burn_a(0.003)  # @line_a


def hot_b():
    burn_b(0.001)  # @line_b


def main():
    spent = {"hot_a": 0.0, "hot_b": 0.0}
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        t0 = clock()
        hot_a()  # @call_a
        t1 = clock()
        hot_b()  # @call_b
        t2 = clock()
        spent["hot_a"] += t1 - t0
        spent["hot_b"] += t2 - t1
    for k in sorted(spent):
        print("cpu", k, int(spent[k] * 1e9))


class Worker:
    def step(self):
        burn_for(0.002)  # @step


def gen_step():
    while True:
        burn_for(0.002)  # @gen
        yield


async def co_step():
    burn_for(0.002)  # @coro


def thread_one(end):
    while time.monotonic() < end:
        burn_for(0.01)  # @one


def thread_two(end):
    buf = b"t" * (8 << 20)
    while time.monotonic() < end:
        hashlib.sha256(buf).digest()  # @two


def nap():
    time.sleep(SECONDS)  # @nap


def hot_hash():
    buf = b"h" * (16 << 20)
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        hashlib.sha256(buf).digest()  # @hash


def recurse(n):
    if n == 0:
        burn_for(SECONDS)  # @deep
        return
    recurse(n - 1)


print("ready", os.getpid(), flush=True)
go = os.environ.get("PYWORK_GO")
while go and not os.path.exists(go):
    time.sleep(0.02)
if MODE == "split":
    main()
elif MODE == "names":
    w = Worker()
    g = gen_step()
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        w.step()
        next(g)
        try:
            co_step().send(None)
        except StopIteration:
            pass
        t = clock() + 0.002
        while clock() < t:  # @module
            pass
elif MODE == "threads":
    end = time.monotonic() + SECONDS
    ts = [threading.Thread(target=f, args=(end,))
          for f in (thread_one, thread_two)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
elif MODE == "nap":
    t0 = time.monotonic()
    nap()
    print("blocked nap", int((time.monotonic() - t0) * 1e9))
elif MODE == "hash":
    hot_hash()
elif MODE == "deep":
    recurse(200)
else:
    sys.exit("pywork.py: unknown mode " + MODE)
