/*
 * inlinew: a workload whose hot code is a function the compiler
 * inlines, for the tests of native lines and inlined frames (t5110).
 * Built -O2 -g by the tests: mix() is always inlined into hash_block(),
 * which is never inlined into main(), so a profile without DWARF puts
 * every sample on hash_block and one with DWARF on "mix (inlined)"
 * below it, at the lines marked MIX-LINE.
 *
 *	inlinew [-c seconds]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile uint32_t sink;

static inline __attribute__((always_inline)) uint32_t
mix(uint32_t h, uint32_t v)
{
	h ^= v * 0x9e3779b1u;			/* MIX-LINE */
	h = (h << 13) | (h >> 19);		/* MIX-LINE */
	return h * 5 + 0xe6546b64u;		/* MIX-LINE */
}

static __attribute__((noinline, noclone)) uint32_t
hash_block(uint32_t seed, int n)
{
	uint32_t	 h = seed;
	int		 i;

	for (i = 0; i < n; i++)
		h = mix(h, (uint32_t)i);
	return h;
}

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double	 secs = 2, end;
	int	 ch;

	while ((ch = getopt(argc, argv, "c:")) != -1) {
		if (ch != 'c') {
			fprintf(stderr, "usage: inlinew [-c seconds]\n");
			return 2;
		}
		secs = atof(optarg);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	end = now() + secs;
	while (now() < end)
		sink = hash_block(sink, 1 << 20);
	return 0;
}
