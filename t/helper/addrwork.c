/*
 * A CPU workload whose hot function spreads its time over several
 * source lines and instructions, for the tests of addresses in pprof
 * (t5101): built by the test with gcc -O2 -g, as Debian builds.
 *
 *   addrwork [-c cpu-seconds]
 *
 * main -> mix_phase -> mix_block, in a loop: mix_block's loop body is
 * four lines of arithmetic, each a few instructions.  Prints "ready
 * <pid>", then works until it has used -c seconds of CPU (default 2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NBLOCK	8192

static unsigned char		 block[NBLOCK];
static volatile unsigned long	 sink;

__attribute__((noinline, noclone)) static unsigned long
mix_block(const unsigned char *p, size_t n, unsigned long h)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211UL;
		h = (h << 7) | (h >> 57);
		h += (h >> 13) * (i | 1);
	}
	return h;
}

__attribute__((noinline)) static void
mix_phase(void)
{
	int	 i;

	for (i = 0; i < 64; i++)
		sink = mix_block(block, NBLOCK, sink + i);
}

static double
cpu_s(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char *argv[])
{
	double	 secs = 2;
	size_t	 i;
	int	 ch;

	while ((ch = getopt(argc, argv, "c:")) != -1) {
		if (ch != 'c') {
			fprintf(stderr, "usage: addrwork [-c cpu-seconds]\n");
			return 2;
		}
		secs = atof(optarg);
	}
	for (i = 0; i < NBLOCK; i++)
		block[i] = i * 7;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (cpu_s() < secs)
		mix_phase();
	return sink == 42;
}
