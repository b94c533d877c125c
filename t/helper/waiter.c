/*
 * An off-CPU workload whose threads block in known places, entering the
 * kernel with raw syscalls so that the frame-pointer walk sees our own
 * functions right below the kernel.
 *
 *   waiter [-m split|threads|spawn] [-t seconds]
 *
 * split:   thread wait_sleep sleeps 100 ms at a time; thread wait_pipe
 *          reads a pipe that main (feed_pipe) writes every 50 ms.  At
 *          exit each prints the time it measured itself blocked:
 *          "blocked wait_sleep <ns>" and "blocked wait_pipe <ns>".
 * threads: 8 threads; thread i (sleep_t0 .. sleep_t7) sleeps in 50 ms
 *          steps for (i + 1) * 250 ms in all, then exits; prints
 *          "blocked sleep_tI <ns>".
 * spawn:   1000 threads that each sleep 1 ms and exit.
 * long:    main (wait_long) sleeps once, for -t seconds.
 */
/*
 * Frames for every function, leaves included, whatever CFLAGS say: GCC
 * omits the frame of a leaf above -O0 even with -fno-omit-frame-pointer,
 * and a frame-pointer walk from such a leaf loses its caller.
 *
 * Why frame pointers and raw syscalls here, when the daemon walks
 * unwind tables (t3105 and fplesswait test that walk): the tests that
 * use this workload count its waits from the first one, in threads
 * that start blocking at once (t3100: -m threads, -m long).  Those
 * first waits come before the daemon has read the new process's maps
 * and built its tables, and are walked by frame pointer; through
 * libc's own nanosleep() (no frame pointer) they lose the waiting
 * function.  Measured: with -O2 -g and libc calls, t3100's per-thread
 * times came out 150 ms of 250 and wait_long was not found.
 */
#pragma GCC optimize("O0", "no-omit-frame-pointer")

#include <sys/syscall.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long
raw_syscall3(long nr, long a, long b, long c)
{
	long	 ret;

	__asm__ volatile ("syscall" : "=a"(ret)
	    : "0"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return ret;
}

static long long
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) static void
raw_sleep(long ms)
{
	struct timespec	 ts = { ms / 1000, (ms % 1000) * 1000000L };

	raw_syscall3(SYS_nanosleep, (long)&ts, 0, 0);
}

static volatile int	 stop;
static int		 pipefd[2];
static long long	 end_ns;

__attribute__((noinline)) static void *
wait_sleep(void *arg)
{
	long long	 t, blocked = 0;

	while (now_ns() < end_ns) {
		t = now_ns();
		raw_sleep(100);
		blocked += now_ns() - t;
	}
	printf("blocked wait_sleep %lld\n", blocked);
	return NULL;
}

__attribute__((noinline)) static void *
wait_pipe(void *arg)
{
	long long	 t, blocked = 0;
	char		 c;

	for (;;) {
		t = now_ns();
		if (raw_syscall3(SYS_read, pipefd[0], (long)&c, 1) != 1)
			break;
		blocked += now_ns() - t;
		if (c == 'q')
			break;
	}
	printf("blocked wait_pipe %lld\n", blocked);
	return NULL;
}

__attribute__((noinline)) static void
feed_pipe(void)
{
	while (now_ns() < end_ns) {
		raw_sleep(50);
		raw_syscall3(SYS_write, pipefd[1], (long)"x", 1);
	}
	raw_syscall3(SYS_write, pipefd[1], (long)"q", 1);
}

#define SLEEPER(n)							\
__attribute__((noinline)) static void *					\
sleep_t##n(void *arg)							\
{									\
	long long	 t, blocked = 0;				\
	int		 i;						\
									\
	for (i = 0; i < ((n) + 1) * 5; i++) {				\
		t = now_ns();						\
		raw_sleep(50);						\
		blocked += now_ns() - t;				\
	}								\
	printf("blocked sleep_t%d %lld\n", n, blocked);			\
	return NULL;							\
}
SLEEPER(0)
SLEEPER(1)
SLEEPER(2)
SLEEPER(3)
SLEEPER(4)
SLEEPER(5)
SLEEPER(6)
SLEEPER(7)

static void *(*const sleepers[8])(void *) = {
	sleep_t0, sleep_t1, sleep_t2, sleep_t3,
	sleep_t4, sleep_t5, sleep_t6, sleep_t7
};

__attribute__((noinline)) static void
wait_long(double secs)
{
	raw_sleep((long)(secs * 1000));
}

__attribute__((noinline)) static void *
short_thread(void *arg)
{
	raw_sleep(1);
	return NULL;
}

int
main(int argc, char **argv)
{
	const char	*mode = "split";
	pthread_t	 th[8];
	double		 secs = 5;
	int		 ch, i;

	while ((ch = getopt(argc, argv, "m:t:")) != -1) {
		switch (ch) {
		case 'm':
			mode = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: waiter [-m split|threads|spawn|long]"
			    " [-t seconds]\n");
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", (int)getpid());
	end_ns = now_ns() + (long long)(secs * 1e9);
	if (strcmp(mode, "threads") == 0) {
		for (i = 0; i < 8; i++)
			pthread_create(&th[i], NULL, sleepers[i], NULL);
		for (i = 0; i < 8; i++)
			pthread_join(th[i], NULL);
	} else if (strcmp(mode, "long") == 0) {
		wait_long(secs);
	} else if (strcmp(mode, "spawn") == 0) {
		for (i = 0; i < 1000; i++) {
			pthread_create(&th[0], NULL, short_thread, NULL);
			pthread_join(th[0], NULL);
		}
	} else {
		if (pipe(pipefd) == -1)
			return 1;
		pthread_create(&th[0], NULL, wait_sleep, NULL);
		pthread_create(&th[1], NULL, wait_pipe, NULL);
		feed_pipe();
		pthread_join(th[0], NULL);
		pthread_join(th[1], NULL);
	}
	printf("done\n");
	return 0;
}
