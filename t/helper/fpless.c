/*
 * A CPU workload built as Debian builds (gcc -O2 -g, no frame
 * pointers), whose callers a frame-pointer walk loses.
 *
 *   fpless [-m cpu|signal|plt|vdso] [-t seconds] [-c cpu-seconds]
 *
 * cpu:    main -> sort_phase -> qsort (libc) -> ... -> compare_keys, and
 *         main -> hash_phase -> hash_block, in turns.
 * signal: main -> spin_phase, interrupted every 5 ms by SIGALRM, whose
 *         handler on_alarm -> alarm_work burns 2 ms: a stack through
 *         the signal frame (__restore_rt).
 * plt:    main -> plt_phase -> rand_r (libc), a call of a few
 *         instructions through the executable's lazily bound PLT (it
 *         is linked -z lazy): many samples land in the PLT stub.
 * vdso:   main -> vdso_phase -> clock_gettime (libc) -> the vDSO's
 *         clock_gettime, in a tight loop: most samples land in the vDSO.
 *
 * Prints "ready <pid>" when it starts working; exits after -t seconds
 * (default 5), or when it has used -c seconds of CPU, printing
 * "cpu <ns>".  Functions are noinline and do work after their calls, so
 * that none is inlined or left by a tail call: each is a frame.
 */
#include <sys/time.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NKEYS	20000
#define NBLOCK	4096

static volatile unsigned long	 sink;
static unsigned int		 keys[NKEYS];
static unsigned char		 block[NBLOCK];

static double
clock_s(clockid_t clk)
{
	struct timespec	 ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static int
compare_keys(const void *a, const void *b)
{
	unsigned int	 x = *(const unsigned int *)a;
	unsigned int	 y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) static unsigned long
sort_phase(unsigned long seed)
{
	size_t	 i;

	for (i = 0; i < NKEYS; i++) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		keys[i] = seed >> 33;
	}
	qsort(keys, NKEYS, sizeof(keys[0]), compare_keys);
	/* Used after the call: no tail call. */
	return seed ^ keys[0] ^ keys[NKEYS - 1];
}

__attribute__((noinline)) static unsigned long
hash_block(const unsigned char *p, size_t n, unsigned long h)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3UL;
	return h;
}

__attribute__((noinline)) static unsigned long
hash_phase(unsigned long seed)
{
	unsigned long	 h = seed;
	int		 i;

	for (i = 0; i < 64; i++) {
		block[i % NBLOCK] ^= (unsigned char)h;
		h = hash_block(block, sizeof(block), h);
	}
	return h + 1;
}

__attribute__((noinline)) static unsigned long
alarm_work(unsigned long x)
{
	double	 end = clock_s(CLOCK_THREAD_CPUTIME_ID) + 0.002;

	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end) {
		int	 i;

		for (i = 0; i < 1000; i++)
			x = x * 6364136223846793005UL + 1;
	}
	return x;
}

static void
on_alarm(int sig)
{
	sink = alarm_work(sink + sig) + 1;
}

__attribute__((noinline)) static unsigned long
spin_phase(unsigned long x)
{
	int	 i;

	for (i = 0; i < 100000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x + 1;
}

__attribute__((noinline)) static unsigned long
plt_phase(unsigned long x)
{
	unsigned int	 seed = x;
	int		 i;

	for (i = 0; i < 100000; i++)
		x += rand_r(&seed);
	return x + 1;
}

__attribute__((noinline)) static unsigned long
vdso_phase(unsigned long x)
{
	struct timespec	 ts;
	int		 i;

	for (i = 0; i < 20000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		x += ts.tv_nsec;
	}
	return x + 1;
}

static void
usage(void)
{
	fprintf(stderr, "usage: fpless [-m cpu|signal|plt|vdso] [-t seconds] "
	    "[-c cpu-seconds]\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	struct itimerval	 it;
	const char		*mode = "cpu";
	double			 t = 5, c = 0, start, cpu0;
	unsigned long		 x = 1;
	int			 ch;

	while ((ch = getopt(argc, argv, "m:t:c:")) != -1) {
		switch (ch) {
		case 'm':
			mode = optarg;
			break;
		case 't':
			t = atof(optarg);
			break;
		case 'c':
			c = atof(optarg);
			t = 600;
			break;
		default:
			usage();
		}
	}
	if (strcmp(mode, "cpu") != 0 && strcmp(mode, "signal") != 0 &&
	    strcmp(mode, "plt") != 0 && strcmp(mode, "vdso") != 0)
		usage();
	if (strcmp(mode, "signal") == 0) {
		signal(SIGALRM, on_alarm);
		memset(&it, 0, sizeof(it));
		it.it_interval.tv_usec = 5000;
		it.it_value.tv_usec = 5000;
		setitimer(ITIMER_REAL, &it, NULL);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	start = clock_s(CLOCK_MONOTONIC);
	cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	while (clock_s(CLOCK_MONOTONIC) - start < t &&
	    (c == 0 || clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0 < c)) {
		if (*mode == 's')
			x = spin_phase(x);
		else if (*mode == 'p')
			x = plt_phase(x);
		else if (*mode == 'v')
			x = vdso_phase(x);
		else {
			x = sort_phase(x);
			x = hash_phase(x);
		}
	}
	sink = x;
	printf("cpu %.0f\n", (clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0) * 1e9);
	return 0;
}
