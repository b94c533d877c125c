/*
 * fakepy: a program that looks like a CPython interpreter of a version
 * ebpfspyd has no offsets for (3.15): it defines _PyRuntime and
 * Py_Version.  ebpfspyd must refuse to walk it, count the refusal, and
 * profile it natively: main;fake_work;fake_burn.
 *
 *	fakepy seconds
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((used)) char _PyRuntime[4096];
__attribute__((used)) const unsigned long Py_Version = 0x030f00f0;

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long
fake_burn(unsigned long n)
{
	volatile unsigned long	 x = 0;
	unsigned long		 i;

	for (i = 0; i < n; i++)
		x += i * i;
	return x;
}

__attribute__((noinline)) static void
fake_work(double seconds)
{
	double	 end = now() + seconds;

	while (now() < end)
		fake_burn(1000000);
}

int
main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: fakepy seconds\n");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	fake_work(atof(argv[1]));
	return _PyRuntime[0] + (int)(Py_Version >> 32);
}
