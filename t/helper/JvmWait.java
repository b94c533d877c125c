/*
 * A Java workload for the off-CPU tests: a thread that waits on a
 * monitor (waitLoop: Object.wait with a timeout nobody notifies) and
 * one that sleeps (sleepLoop: Thread.sleep), 20 ms at a time, while
 * main sleeps too; for the seconds given.  Prints "ready" once both
 * threads run, and at the end the milliseconds each thread spent in
 * its waits.
 */
public class JvmWait {
	static final Object lock = new Object();
	static volatile long waited, slept;

	static void waitLoop(long end) throws InterruptedException {
		while (System.nanoTime() < end) {
			long t = System.nanoTime();
			synchronized (lock) {
				lock.wait(20);
			}
			waited += System.nanoTime() - t;
		}
	}

	static void sleepLoop(long end) throws InterruptedException {
		while (System.nanoTime() < end) {
			long t = System.nanoTime();
			Thread.sleep(20);
			slept += System.nanoTime() - t;
		}
	}

	public static void main(String[] args) throws Exception {
		long secs = args.length > 0 ? Long.parseLong(args[0]) : 10;
		final long end = System.nanoTime() + secs * 1000000000L;
		Thread w = new Thread(() -> {
			try { waitLoop(end); } catch (InterruptedException e) { }
		}, "waiter");
		Thread s = new Thread(() -> {
			try { sleepLoop(end); } catch (InterruptedException e) { }
		}, "sleeper");

		w.start();
		s.start();
		System.out.println("ready");
		System.out.flush();
		w.join();
		s.join();
		System.out.println("waited " + waited / 1000000);
		System.out.println("slept " + slept / 1000000);
	}
}
