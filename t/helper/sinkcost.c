/*
 * sinkcost: the files sink's cost per round, without BPF: rounds of a
 * synthetic profile shaped like burn -m stacks -d 7 (4^7 call paths,
 * half with kernel frames under them), its frames located in mappings
 * as the daemon's are, written as the daemon writes them, timing each
 * part and giving the pprof file's size, for bench/sinks.sh.
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
#include "profile/frametab.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "sink/retention.h"
#include "sink/sink_file.h"
#include "util/intern.h"
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

/* The location of a frame, as a round's stacknames gives it. */
static uint32_t
sinkcost_loc(struct intern *names, struct frametab *ft, const char *name,
    uint32_t map, uint64_t addr)
{
	struct frametab_frame	 f;

	memset(&f, 0, sizeof(f));
	f.map = map;
	f.addr = addr;
	return frametab_loc_add(ft, intern_add(names, name), &f);
}

static uint32_t
sinkcost_map(struct intern *names, struct frametab *ft, const char *path,
    const char *build_id, uint64_t start)
{
	struct frametab_map	 m;

	memset(&m, 0, sizeof(m));
	m.start = start;
	m.limit = start + 0x100000;
	m.offset = start;
	m.file = intern_add(names, path);
	m.build_id = build_id != NULL ? intern_add(names, build_id) : 0;
	m.flags = FRAMETAB_MAP_FUNCTIONS;
	return frametab_map_add(ft, &m);
}

/*
 * A round's profile as the daemon builds it: frames as locations of
 * names kept across rounds (names, ft), in the program's, libc's and
 * the kernel's mappings, the leaf at one of a few addresses.
 */
static struct profile *
sinkcost_profile(struct intern *names, struct frametab *ft, unsigned int seed,
    int samples)
{
	struct profile	*p;
	uint32_t	 fr[16], prog, libc, kern;
	char		 name[64];
	int		 i, j, n, path, b;

	prog = sinkcost_map(names, ft, "/usr/bin/stk",
	    "85777ccb9806f86afca68bcf68aa17fdaddd954b", 0x1000);
	libc = sinkcost_map(names, ft, "/usr/lib/x86_64-linux-gnu/libc.so.6",
	    "93ac61ec5a8eb1396f9fbd350e3169a558528a40", 0x26000);
	kern = sinkcost_map(names, ft, "[kernel.kallsyms]", NULL, 0);
	p = profile_create(PROFILE_TYPE_CPU, 200000, 0, 0);
	profile_label_set(p, "service_name", "stk");
	srand(seed);
	for (i = 0; i < samples; i++) {
		path = rand() % 16384;
		n = 0;
		fr[n++] = sinkcost_loc(names, ft, "stk", 0, 0);
		fr[n++] = sinkcost_loc(names, ft, "_start", prog, 0x1010);
		fr[n++] = sinkcost_loc(names, ft, "__libc_start_main_impl",
		    libc, 0x27300);
		fr[n++] = sinkcost_loc(names, ft, "main", prog, 0x1100);
		fr[n++] = sinkcost_loc(names, ft, "burn_stacks", prog,
		    0x1200);
		for (j = 0; j < 7; j++) {
			b = (path >> 2 * j) & 3;
			snprintf(name, sizeof(name),
			    "stacks_level_%d_branch_%d", j, b);
			fr[n++] = sinkcost_loc(names, ft, name, prog,
			    0x2000 + 0x100 * (4 * j + b));
		}
		/* Sampled at one of its loop's 8 instructions, as burn's. */
		fr[n++] = (path & 1) ? sinkcost_loc(names, ft, "burn_a", prog,
		    0x4000 + 4 * (rand() % 8)) : sinkcost_loc(names, ft,
		    "burn_b", prog, 0x4100 + 4 * (rand() % 8));
		if (rand() % 2) {
			fr[n++] = sinkcost_loc(names, ft,
			    "asm_sysvec_apic_timer_interrupt", kern,
			    0xffffffff81000e05ULL);
			b = rand() % 64;
			snprintf(name, sizeof(name), "irq_%d", b);
			fr[n++] = sinkcost_loc(names, ft, name, kern,
			    0xffffffff81200000ULL + 0x100 * b);
		}
		profile_add_ids(p, names, ft, fr, n, 1 + rand() % 5, NULL, 0);
	}
	return p;
}

int
main(int argc, char *argv[])
{
	struct flamegraph_hours	*hs = NULL;
	struct intern		*names;
	struct frametab		*ft;
	struct config		*conf;
	struct profile		*p;
	struct stat		 sb;
	char			*folded;
	unsigned char		*buf;
	size_t			 len = 0;
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
	    "last-hour.svg ms  retention ms  all ms  pprof bytes\n");
	names = intern_create();
	intern_add(names, "");
	ft = frametab_create();
	for (r = 0; r < rounds; r++) {
		p = sinkcost_profile(names, ft, r, samples);
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
		flamegraph_write(hs, conf, p, NULL, t);
		conf->folded = 1;
		t3 = sinkcost_ms();
		if (hs != NULL && folded != NULL)
			flamegraph_hours_known(hs, folded, &sb, p);
		free(folded);
		flamegraph_write(hs, conf, p, NULL, t);
		t4 = sinkcost_ms();
		retention_run(conf, t);
		t5 = sinkcost_ms();
		printf("%5d  %6zu  %8.1f  %9.1f  %13.1f  %16.1f  %12.1f  "
		    "%6.1f  %11zu\n", r + 1, profile_nstacks(p), t1 - t0,
		    t2 - t1, t3 - t2, (t4 - t3) - (t3 - t2), t5 - t4,
		    (t1 - t0) + (t2 - t1) + (t4 - t3) + (t5 - t4), len);
		profile_free(p);
	}
	flamegraph_hours_free(hs);
	frametab_free(ft);
	intern_free(names);
	config_free(conf);
	return 0;
}
