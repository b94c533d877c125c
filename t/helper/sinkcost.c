/*
 * sinkcost: the files sink's cost per round, without BPF: rounds of a
 * synthetic profile shaped like burn -m stacks -d 7 (4^7 call paths,
 * half with kernel frames under them) written as the daemon writes
 * them, timing each part, for bench/sinks.sh.
 *
 *	sinkcost [-f] [-r rounds] [-s samples] dir
 *
 * -f: last-hour.svg read from all the hour's files every round, as
 * before the sums were kept in memory.  Rounds are 10 s apart.  Times
 * are CPU time (user and system) of this process: the machine may be
 * busy with other work, and the daemon's cost is its CPU.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "sink/flamegraph.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "sink/retention.h"
#include "sink/sink_file.h"
#include "util/xmalloc.h"

#define SINKCOST_WHEN	1796206500	/* 2026-12-02T10:15:00Z */

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: sinkcost [-f] [-r rounds] [-s samples] "
	    "dir\n");
	exit(2);
}

static double
sinkcost_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct profile *
sinkcost_profile(unsigned int seed, int samples)
{
	struct profile	*p;
	const char	*fr[16];
	char		 names[8][64];
	int		 i, j, n, path;

	p = profile_create(PROFILE_TYPE_CPU, 200000, 0, 0);
	profile_label_set(p, "service_name", "stk");
	srand(seed);
	for (i = 0; i < samples; i++) {
		path = rand() % 16384;
		n = 0;
		fr[n++] = "stk";
		fr[n++] = "_start";
		fr[n++] = "__libc_start_main_impl";
		fr[n++] = "main";
		fr[n++] = "burn_stacks";
		for (j = 0; j < 7; j++) {
			snprintf(names[j], sizeof(names[j]),
			    "stacks_level_%d_branch_%d", j,
			    (path >> 2 * j) & 3);
			fr[n++] = names[j];
		}
		fr[n++] = (path & 1) ? "burn_a" : "burn_b";
		if (rand() % 2) {
			fr[n++] = "asm_sysvec_apic_timer_interrupt";
			snprintf(names[7], sizeof(names[7]), "irq_%d",
			    rand() % 64);
			fr[n++] = names[7];
		}
		profile_add(p, fr, n, 1 + rand() % 5);
	}
	return p;
}

int
main(int argc, char *argv[])
{
	struct flamegraph_hours	*hs = NULL;
	struct config		*conf;
	struct profile		*p;
	struct stat		 sb;
	char			*folded;
	unsigned char		*buf;
	size_t			 len;
	time_t			 t;
	double			 t0, t1, t2, t3, t4, t5;
	int			 ch, full = 0, rounds = 12, samples = 28000, r;

	while ((ch = getopt(argc, argv, "fr:s:")) != -1) {
		switch (ch) {
		case 'f':
			full = 1;
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 's':
			samples = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1)
		usage();
	conf = config_defaults();
	free(conf->output_dir);
	conf->output_dir = xstrdup(argv[optind]);
	if (!full)
		hs = flamegraph_hours_create();

	printf("round  stacks  pprof ms  folded ms  latest.svg ms  "
	    "last-hour.svg ms  retention ms  all ms\n");
	for (r = 0; r < rounds; r++) {
		p = sinkcost_profile(r, samples);
		t = SINKCOST_WHEN + r * 10;
		t0 = sinkcost_ms();
		if (pprof_encode(p, &buf, &len) == 0)
			free(buf);
		t1 = sinkcost_ms();
		conf->pprof = 0;
		/* As sinks_round(): last-hour.svg knows the new file. */
		sink_file_write_folded(conf, p, t, &folded, &sb);
		t2 = sinkcost_ms();
		/* latest.svg alone, then both: the difference is the hour. */
		conf->folded = 0;
		flamegraph_write(hs, conf, p, t);
		conf->folded = 1;
		t3 = sinkcost_ms();
		if (hs != NULL && folded != NULL)
			flamegraph_hours_known(hs, folded, &sb, p);
		free(folded);
		flamegraph_write(hs, conf, p, t);
		t4 = sinkcost_ms();
		retention_run(conf, t);
		t5 = sinkcost_ms();
		printf("%5d  %6zu  %8.1f  %9.1f  %13.1f  %16.1f  %12.1f  "
		    "%6.1f\n", r + 1, profile_nstacks(p), t1 - t0, t2 - t1,
		    t3 - t2, (t4 - t3) - (t3 - t2), t5 - t4,
		    (t1 - t0) + (t2 - t1) + (t4 - t3) + (t5 - t4));
		profile_free(p);
	}
	flamegraph_hours_free(hs);
	config_free(conf);
	return 0;
}
