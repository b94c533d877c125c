/*
 * flamegraph: draw folded stacks with ebpfspyd's flame graph code, for
 * tests and for looking at a .folded file without flamegraph.pl.
 *
 *	flamegraph [-o] [-t title] [file ...] > graph.svg
 *
 * Reads the files, or standard input, as one profile.  -o: the values
 * are off-CPU nanoseconds, not samples.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sink/flamegraph.h"
#include "util/log.h"
#include "profile/profile.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: flamegraph [-o] [-t title] [file ...]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct profile		*p;
	struct flamegraph	*fg;
	enum profile_type	 type = PROFILE_TYPE_CPU;
	const char		*title = "flame graph";
	size_t			 budget = SIZE_MAX;
	FILE			*f;
	int			 ch, i, ret = 0;

	log_init(1, 0);
	while ((ch = getopt(argc, argv, "ot:")) != -1) {
		switch (ch) {
		case 'o':
			type = PROFILE_TYPE_OFFCPU;
			break;
		case 't':
			title = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	p = profile_create(type, 0, 0, 0);
	if (argc == 0 && flamegraph_folded_read(p, stdin, &budget) == -1) {
		log_warn("read standard input");
		ret = 1;
	}
	for (i = 0; i < argc; i++) {
		if ((f = fopen(argv[i], "r")) == NULL) {
			log_warn("open %s", argv[i]);
			ret = 1;
			continue;
		}
		if (flamegraph_folded_read(p, f, &budget) == -1) {
			log_warn("read %s", argv[i]);
			ret = 1;
		}
		fclose(f);
	}
	fg = flamegraph_create(p);
	if (flamegraph_svg_write(fg, title, stdout) == -1) {
		log_warn("write standard output");
		ret = 1;
	}
	flamegraph_free(fg);
	profile_free(p);
	return ret;
}
