/*
 * resolve: name frames the way ebpfspyd does, for tests and for finding
 * out why a frame got a bad name.
 *
 *	resolve [-AMv] -p pid addr ...	addresses in a running process
 *	resolve [-AMv] -f file addr ...	ELF virtual addresses in a file
 *	resolve [-AMv] -k addr ...	kernel addresses
 *
 * Addresses are hex, with or without 0x.  One name per line.  -M turns
 * unknown_symbol_module_offset off, -A turns unknown_symbol_address on.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/config.h"
#include "log.h"
#include "resolve.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: resolve [-AMv] -p pid addr ...\n"
	    "       resolve [-AMv] -f file addr ...\n"
	    "       resolve [-AMv] -k addr ...\n");
	exit(2);
}

static int
parse_addr(const char *s, uint64_t *addr)
{
	char	*end;

	if (s[0] == '\0' || s[0] == '-')
		return -1;
	errno = 0;
	*addr = strtoull(s, &end, 16);
	if (errno != 0 || *end != '\0')
		return -1;
	return 0;
}

int
main(int argc, char *argv[])
{
	struct config		*conf;
	struct resolve		*r;
	struct resolve_proc	*rp = NULL;
	const char		*file = NULL;
	char			*end;
	uint64_t		 addr;
	long			 lpid;
	pid_t			 pid = 0;
	int			 ch, kernel = 0, verbose = 0, i, ret = 0;

	conf = config_defaults();
	while ((ch = getopt(argc, argv, "AMf:kp:v")) != -1) {
		switch (ch) {
		case 'A':
			conf->unknown_symbol_address = 1;
			break;
		case 'M':
			conf->unknown_symbol_module_offset = 0;
			break;
		case 'f':
			file = optarg;
			break;
		case 'k':
			kernel = 1;
			break;
		case 'p':
			errno = 0;
			lpid = strtol(optarg, &end, 10);
			if (optarg[0] == '\0' || *end != '\0' || errno != 0 ||
			    lpid <= 0 || lpid > INT_MAX) {
				fprintf(stderr, "resolve: pid %s: invalid\n",
				    optarg);
				exit(2);
			}
			pid = lpid;
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
	if ((pid != 0) + (file != NULL) + kernel != 1 || argc == 0)
		usage();
	log_init(1, verbose);

	r = resolve_create(conf);
	if (pid != 0 && (rp = resolve_proc_open(r, pid)) == NULL) {
		fprintf(stderr, "resolve: pid %d: cannot read its maps\n",
		    (int)pid);
		exit(1);
	}
	for (i = 0; i < argc; i++) {
		if (parse_addr(argv[i], &addr) == -1) {
			fprintf(stderr, "resolve: %s: not a hex address\n",
			    argv[i]);
			ret = 2;
			continue;
		}
		if (kernel)
			printf("%s\n", resolve_kernel(r, addr));
		else if (file != NULL)
			printf("%s\n", resolve_file(r, file, addr));
		else
			printf("%s\n", resolve_user(r, rp, addr));
	}
	resolve_proc_close(r, rp);
	resolve_free(r);
	config_free(conf);
	return ret;
}
