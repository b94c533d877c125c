/*
 * fakejava MODE: a process that maps a libjvm.so (t/helper/fakejvm.c)
 * whose tables are, by MODE:
 *   garbage  every word random
 *   stride   strides of 0 and of 1 MB
 *   noend    well-formed entries that never end
 *   names    entries whose names point at unmapped memory
 *   old      well-formed tables of a JDK 8
 *   field    well-formed tables of a JDK 17 that lack every field
 * Prints "ready", then waits to be killed.
 */
#include <stdio.h>
#include <unistd.h>

int	fakejvm_fill(const char *);

int
main(int argc, char **argv)
{
	if (fakejvm_fill(argc > 1 ? argv[1] : "garbage") == -1)
		return 2;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
