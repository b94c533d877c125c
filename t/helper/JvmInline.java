/*
 * A Java workload for inlined frames: outer calls inner, which the JIT
 * is told to inline (-XX:CompileCommand=inline,JvmInline::inner), and
 * inner calls leafWork, which it is told not to
 * (dontinline,JvmInline::leafWork).  Once compiled, inner has no frame
 * of its own: it lives in outer's code, and is named only from the
 * debug information at the call of leafWork.  Runs for the seconds
 * given; prints "ready" after 2 s, when the JIT has compiled them.
 */
public class JvmInline {
	static long leafWork(long n) {
		long s = 0;
		for (long i = 0; i < n; i++)
			s += (i * i) ^ (s >>> 3);
		return s;
	}

	static long inner(long n) {
		return leafWork(n) + 1;
	}

	static long outer(long n) {
		return inner(n) * 3;
	}

	public static void main(String[] args) {
		long secs = args.length > 0 ? Long.parseLong(args[0]) : 10;
		long start = System.nanoTime();
		long end = start + secs * 1000000000L;
		boolean ready = false;
		long sink = 0;

		while (System.nanoTime() < end) {
			sink += outer(20000);
			if (!ready && System.nanoTime() - start > 2000000000L) {
				ready = true;
				System.out.println("ready");
				System.out.flush();
			}
		}
		System.out.println(sink);
	}
}
