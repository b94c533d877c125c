/*
 * unwind_build: build a file's unwind table as the daemon would, and
 * print what it cost, for bench/unwind-build.sh.
 *
 *   unwind_build [-n reps] [-s fdes] file [debug-file]
 *
 * Each of reps builds opens the file, creates a builder, steps it fdes
 * FDEs at a time and finishes.  Printed as "name value" lines: the
 * table's size, the median CPU time of a whole build, the longest single
 * call (create, the first step that indexes the FDEs, or a step) in
 * CPU time of the thread (what the build costs, whoever else runs) and
 * in wall time, rows by kind and errors by kind.
 */
#include <sys/types.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf.h"
#include "unwind/unwind_table.h"

static double
now_ms(clockid_t clk)
{
	struct timespec	 ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct elf_file *
open_elf(const char *path, int *fd)
{
	struct elf_file	*ef;

	*fd = -1;
	if (path == NULL)
		return NULL;
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (ef = elf_file_open(*fd)) == NULL) {
		fprintf(stderr, "unwind_build: cannot read %s\n", path);
		exit(1);
	}
	return ef;
}

int
main(int argc, char **argv)
{
	struct unwind_table_builder	*b;
	struct unwind_table_stats	 st;
	struct unwind_table		*t;
	struct elf_file			*ef, *debug;
	double				*cpu, c0, w0, t0, w, wall_max = 0;
	double				 step_max = 0, first = 0;
	double				 create_max = 0;
	size_t				 reps = 20, fdes = 256, i, k, steps = 0;
	int				 ch, fd, dfd, more;

	while ((ch = getopt(argc, argv, "n:s:")) != -1) {
		switch (ch) {
		case 'n':
			reps = strtoul(optarg, NULL, 10);
			break;
		case 's':
			fdes = strtoul(optarg, NULL, 10);
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > 2 || reps == 0 || fdes == 0)
		goto usage;
	cpu = calloc(reps, sizeof(*cpu));
	memset(&st, 0, sizeof(st));
	for (i = 0; i < reps; i++) {
		c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
		t0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
		w0 = now_ms(CLOCK_MONOTONIC);
		ef = open_elf(argv[0], &fd);
		debug = open_elf(argc > 1 ? argv[1] : NULL, &dfd);
		b = unwind_table_builder_create(ef, debug, NULL);
		elf_file_close(debug);
		elf_file_close(ef);
		if (dfd != -1)
			close(dfd);
		close(fd);
		if (b == NULL) {
			fprintf(stderr, "unwind_build: %s: no CFI\n", argv[0]);
			return 1;
		}
		w = now_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (w > create_max)
			create_max = w;
		if ((w = now_ms(CLOCK_MONOTONIC) - w0) > wall_max)
			wall_max = w;
		steps = 0;
		for (k = 0, more = 1; more; k++) {
			t0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
			w0 = now_ms(CLOCK_MONOTONIC);
			more = unwind_table_builder_step(b, fdes);
			if ((w = now_ms(CLOCK_MONOTONIC) - w0) > wall_max)
				wall_max = w;
			w = now_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
			if (k == 0 && w > first)
				first = w;
			if (k > 0 && w > step_max)
				step_max = w;
			steps++;
		}
		t = unwind_table_builder_finish(b, &st);
		cpu[i] = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (t == NULL) {
			fprintf(stderr, "unwind_build: %s: no table\n",
			    argv[0]);
			return 1;
		}
		unwind_table_free(t);
	}
	qsort(cpu, reps, sizeof(*cpu), cmp_double);
	printf("source %s\n", st.source);
	printf("fdes %zu\n", st.fdes);
	printf("rows %zu\n", st.rows);
	printf("pages %zu\n", st.pages);
	printf("page_rows_max %zu\n", st.page_rows_max);
	printf("bytes %zu\n", st.bytes);
	printf("bytes_per_row %.2f\n", st.rows ? (double)st.bytes / st.rows :
	    0.0);
	printf("cpu_ms %.3f\n", cpu[reps / 2]);
	printf("cpu_min_ms %.3f\n", cpu[0]);
	printf("create_max_ms %.3f\n", create_max);
	printf("index_max_ms %.3f\n", first);
	printf("step_max_ms %.3f\n", step_max);
	printf("call_wall_max_ms %.3f\n", wall_max);
	printf("steps %zu\n", steps);
	printf("fdes_per_step %zu\n", fdes);
	for (k = 0; k <= UNWIND_GAP; k++)
		printf("rows_%s %zu\n", unwind_table_kind_name(k), st.kinds[k]);
	printf("expr_unknown %zu\n", st.expr_unknown);
	for (k = 0; k < UNWIND_TABLE_ERR_MAX; k++)
		printf("err_%s %zu\n", unwind_table_err_name(k), st.errors[k]);
	free(cpu);
	return 0;
usage:
	fprintf(stderr, "usage: unwind_build [-n reps] [-s fdes] file "
	    "[debug-file]\n");
	return 1;
}
