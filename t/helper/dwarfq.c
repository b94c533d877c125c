/*
 * dwarfq: the inline chain of addresses of an ELF file from its DWARF,
 * as ebpfspyd reads it (src/dwarf/srcline.c), printed as addr2line -i -f
 * prints it, to compare the two:
 *
 *	dwarfq [-a altfile] [-B count] file addr ...
 *
 * For each address (hex, with or without 0x), each function of the
 * chain, innermost first, on two lines: its name ("??" for none) and
 * "file:line" ("??:0" for none).  An address without DWARF prints
 * "??" and "??:0", as addr2line does.  -a names the dwz supplementary
 * file.  -B times count lookups cycling through the addresses after a
 * first (cold) one each, and prints "name value" lines: open_ms,
 * cold_us (an address's first lookup, on average), lookups,
 * lookups_per_sec, bytes, and max_rss_kb.
 */
#include <sys/resource.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dwarf/srcline.h"
#include "util/log.h"

static double
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
usage(void)
{
	fprintf(stderr, "usage: dwarfq [-a altfile] [-B count] file "
	    "addr ...\n");
	exit(2);
}

static void
print_chain(struct srcline *s, uint64_t addr)
{
	struct srcline_frame	 fr[SRCLINE_DEPTH_MAX];
	int			 n, i;

	srcline_round_begin();
	if ((n = srcline_lookup(s, addr, fr, SRCLINE_DEPTH_MAX)) <= 0) {
		printf("??\n??:0\n");
		return;
	}
	for (i = 0; i < n; i++)
		printf("%s\n%s:%d\n", fr[i].func != NULL ? fr[i].func : "??",
		    fr[i].file != NULL ? fr[i].file : "??", fr[i].line);
}

int
main(int argc, char **argv)
{
	struct srcline_frame	 fr[SRCLINE_DEPTH_MAX];
	struct srcline		*s;
	struct rusage		 ru;
	uint64_t		*addrs;
	long			 count = 0, i;
	double			 t0, t1, t2;
	int			 ch, fd, altfd = -1, n;

	log_init(0, 0);
	while ((ch = getopt(argc, argv, "a:B:")) != -1) {
		switch (ch) {
		case 'a':
			if ((altfd = open(optarg, O_RDONLY)) == -1) {
				perror(optarg);
				return 1;
			}
			break;
		case 'B':
			count = strtol(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	if ((fd = open(argv[0], O_RDONLY)) == -1) {
		perror(argv[0]);
		return 1;
	}
	srcline_budget(UINT64_MAX);
	s = srcline_create(fd, altfd, 0, argv[0]);
	addrs = calloc(argc - 1, sizeof(*addrs));
	if (addrs == NULL)
		return 1;
	for (i = 1; i < argc; i++)
		addrs[i - 1] = strtoull(argv[i], NULL, 16);
	if (count == 0) {
		for (i = 0; i < argc - 1; i++)
			print_chain(s, addrs[i]);
		srcline_free(s);
		free(addrs);
		return 0;
	}
	t0 = now_ms();
	srcline_round_begin();
	n = srcline_lookup(s, addrs[0], fr, SRCLINE_DEPTH_MAX);
	t1 = now_ms();
	for (i = 1; i < argc - 1; i++)
		n += srcline_lookup(s, addrs[i], fr, SRCLINE_DEPTH_MAX);
	t2 = now_ms();
	printf("open_ms %.3f\n", t1 - t0);
	printf("cold_us %.3f\n", argc > 2 ? (t2 - t1) * 1e3 / (argc - 2) :
	    0.0);
	t0 = now_ms();
	for (i = 0; i < count; i++) {
		if (i % 100000 == 0)
			srcline_round_begin();
		n += srcline_lookup(s, addrs[i % (argc - 1)], fr,
		    SRCLINE_DEPTH_MAX);
	}
	t1 = now_ms();
	printf("lookups %ld\n", count);
	printf("lookups_per_sec %.0f\n", count / ((t1 - t0) / 1e3));
	printf("bytes %zu\n", srcline_bytes(s));
	getrusage(RUSAGE_SELF, &ru);
	printf("max_rss_kb %ld\n", ru.ru_maxrss);
	printf("frames %d\n", n);
	srcline_free(s);
	free(addrs);
	return 0;
}
