/*
 * A CPU workload with a known split, built with frame pointers.
 *
 *   burn [-m split|stacks|syscall] [-t seconds] [-c cpu-seconds]
 *        [-d depth] [-j threads]
 *
 * split:   main -> burn_a for 3 units of work, burn_b for 1: 75% / 25%
 *          by construction (the same loop body, 3x the iterations).
 * stacks:  the same 75/25 split, reached through 4^depth distinct call
 *          paths (path_0..path_3 at each level), for thousands of
 *          distinct stacks.  Depth up to 100: below level 14 all
 *          paths go through path_0.
 * syscall: main -> sys_loop, entering the kernel with raw syscalls.
 *
 * -j runs the work in that many threads (default 1).  Prints
 * "ready <pid>" when it starts working; exits after -t seconds
 * (default 5), printing "cpu <ns>", the CPU time it used.  With -c it
 * stops instead when it has used that much CPU time: on a busy machine
 * a test gets the samples it needs, however long that takes.
 */
/*
 * Frames for every function, leaves included, whatever CFLAGS say: GCC
 * omits the frame of a leaf above -O0 even with -fno-omit-frame-pointer,
 * and a frame-pointer walk from such a leaf loses its caller.
 */
#pragma GCC optimize("O0", "no-omit-frame-pointer")

#include <sys/syscall.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define UNIT	200000UL

static volatile unsigned long sink;

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void
spin(unsigned long n)
{
	unsigned long	 i, x = sink;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

__attribute__((noinline)) void
burn_a(unsigned long units)
{
	unsigned long	 i, x = sink;

	/* Inline loop: samples land in burn_a itself. */
	for (i = 0; i < units * UNIT; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

__attribute__((noinline)) void
burn_b(unsigned long units)
{
	unsigned long	 i, x = sink;

	for (i = 0; i < units * UNIT; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

static void path_0(int, unsigned);
static void path_1(int, unsigned);
static void path_2(int, unsigned);
static void path_3(int, unsigned);
static void (*const paths[4])(int, unsigned) = {
	path_0, path_1, path_2, path_3
};

/* Each level picks one of four functions from two bits of the path. */
#define PATH(n)								\
__attribute__((noinline)) static void					\
path_##n(int depth, unsigned path)					\
{									\
	if (depth == 0) {						\
		if (path & 0x80000000U)					\
			burn_b(1);					\
		else							\
			burn_a(3);					\
		return;							\
	}								\
	paths[path & 3](depth - 1, (path & 0x80000000U) |		\
	    ((path & 0x7fffffffU) >> 2));				\
	sink++;								\
}
PATH(0)
PATH(1)
PATH(2)
PATH(3)

static int	done(void);

__attribute__((noinline)) static void
sys_loop(void)
{
	long	 i;

	while (!done()) {
		for (i = 0; i < 1000; i++) {
			/* A raw syscall: no libc frame between us and it. */
			long ret;
			__asm__ volatile ("syscall" : "=a"(ret)
			    : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
			sink += ret;
		}
	}
}

static const char	*mode = "split";
static double		 end, cpu_end;

static double
cpu_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
done(void)
{
	if (cpu_end > 0)
		return cpu_now() >= cpu_end;
	return now() >= end;
}
static int		 depth = 6;

static void *
work(void *arg)
{
	unsigned	 path = 0, npaths = 1U << (2 * (depth < 14 ? depth : 14));

	if (strcmp(mode, "syscall") == 0) {
		sys_loop();
		return NULL;
	}
	while (!done()) {
		if (strcmp(mode, "stacks") == 0) {
			/* Each path once with burn_a(3), once with burn_b(1). */
			paths[path & 3](depth, path >> 2);
			paths[path & 3](depth, (path >> 2) | 0x80000000U);
			path = (path + 1) % npaths;
		} else {
			burn_a(3);
			burn_b(1);
		}
	}
	spin(1);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t	 th[64];
	double		 secs = 5;
	int		 ch, i, nthreads = 1;

	while ((ch = getopt(argc, argv, "c:d:j:m:t:")) != -1) {
		switch (ch) {
		case 'c':
			cpu_end = atof(optarg);
			break;
		case 'd':
			depth = atoi(optarg);
			break;
		case 'j':
			nthreads = atoi(optarg);
			break;
		case 'm':
			mode = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: burn [-m split|stacks|syscall] "
			    "[-t seconds] [-c cpu-seconds] [-d depth] "
			    "[-j threads]\n");
			return 1;
		}
	}
	if (depth < 0 || depth > 100)
		depth = 6;
	if (nthreads < 1 || nthreads > 64)
		nthreads = 1;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	end = now() + secs;
	for (i = 1; i < nthreads; i++)
		pthread_create(&th[i], NULL, work, NULL);
	work(NULL);
	for (i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);
	{
		struct timespec	 ts;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		printf("cpu %lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec);
	}
	return 0;
}
