/*
 * fakejava MODE [SECONDS]: a process that maps a libjvm.so (t/helper/fakejvm.c)
 * whose tables are, by MODE:
 *   garbage  every word random
 *   stride   strides of 0 and of 1 MB
 *   noend    well-formed entries that never end
 *   names    entries whose names point at unmapped memory
 *   old      well-formed tables of a JDK 8
 *   field    well-formed tables of a JDK 17 that lack every field
 * Prints "ready", then burns the CPU (so that a profiler samples it)
 * for SECONDS (30), or until killed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int	fakejvm_fill(const char *);

int
main(int argc, char **argv)
{
	volatile unsigned long	 n = 0;
	time_t			 end;

	if (fakejvm_fill(argc > 1 ? argv[1] : "garbage") == -1)
		return 2;
	end = time(NULL) + (argc > 2 ? atoi(argv[2]) : 30);
	printf("ready\n");
	fflush(stdout);
	while (time(NULL) < end)
		n++;
	return 0;
}
