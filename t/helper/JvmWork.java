/*
 * A Java workload for the HotSpot tests: a recursive fib, a small
 * method (square) the JIT inlines into a bigger one (sumSquares), both
 * busy until the time given in seconds is up.  Prints "ready" once
 * both have run hot (200 rounds, what C2 compiles here well within),
 * or after 2 s in an interpreter only (-Xint) that is slower.
 */
public class JvmWork {
	static int fib(int n) {
		if (n < 2)
			return n;
		return fib(n - 1) + fib(n - 2);
	}

	static long square(long x) {
		return x * x;
	}

	static long sumSquares(int n) {
		long s = 0;
		for (int i = 0; i < n; i++)
			s += square(i) ^ (s >>> 7);
		return s;
	}

	public static void main(String[] args) throws Exception {
		long secs = args.length > 0 ? Long.parseLong(args[0]) : 30;
		long start = System.nanoTime();
		long end = start + secs * 1000000000L;
		boolean ready = false;
		long sink = 0;
		int rounds = 0;

		while (System.nanoTime() < end) {
			sink += fib(22);
			sink += sumSquares(100000);
			if (!ready && (++rounds == 200 ||
			    System.nanoTime() - start > 2000000000L)) {
				ready = true;
				System.out.println("ready");
				System.out.flush();
			}
		}
		System.out.println(sink);
	}
}
