/*
 * retention: run the files sink's retention sweep once, as ebpfspyd
 * does after each round, at a given time.
 *
 *	retention [-v] [-m max_bytes] [-r retention_hours] -n now dir
 *
 * now is in seconds since the epoch; -r and -m default as in
 * ebpfspy.conf(5).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "util/log.h"
#include "sink/retention.h"
#include "util/xmalloc.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: retention [-v] [-m max_bytes] "
	    "[-r retention_hours] -n now dir\n");
	exit(2);
}

static long long
number(const char *s)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < 0)
		usage();
	return v;
}

int
main(int argc, char *argv[])
{
	struct config	*conf;
	long long	 now = -1;
	int		 ch, verbose = 0;

	conf = config_defaults();
	while ((ch = getopt(argc, argv, "m:n:r:v")) != -1) {
		switch (ch) {
		case 'm':
			conf->max_bytes = number(optarg);
			break;
		case 'n':
			now = number(optarg);
			break;
		case 'r':
			conf->retention_hours = number(optarg);
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1 || now == -1)
		usage();
	log_init(1, verbose);
	free(conf->output_dir);
	conf->output_dir = xstrdup(argv[0]);
	retention_run(conf, (time_t)now);
	config_free(conf);
	return 0;
}
