/*
 * resolve: name frames the way ebpfspyd does, for tests, benchmarks and
 * finding out why a frame got a bad name.
 *
 *	resolve [-AiMv] [-D dirs] [-d mode] -p pid addr ...
 *					addresses in a running process
 *	resolve [-AiMv] [-D dirs] [-d mode] -f file addr ...
 *					ELF virtual addresses in a file
 *	resolve [-D dirs] [-d mode] -o -f file offset ...
 *					file offsets (perf script's)
 *	resolve [-AMv] -k addr ...	kernel addresses
 *	resolve -B [-n count] [-D dirs] [-d mode] -p pid | -f file | -k -
 *					benchmark
 *
 * Addresses are hex, with or without 0x; "-" reads them from stdin, one
 * a line.  One name per line.  -M turns unknown_symbol_module_offset
 * off, -A turns unknown_symbol_address on, -D sets debug_dirs, -d
 * demangle (none, simplified or full), -i prints Go's inlined calls
 * too, outermost first, joined by ';' as in a folded stack.  -v logs
 * where names came from; -vv more.
 *
 * -B times what the daemon does: loading the tables (opening the
 * process, the file's table, or kallsyms), then count lookups (default
 * 10000000) cycling through the addresses, and prints "name value"
 * lines: load_ms (wall clock), load_cpu_ms (our CPU time), lookups,
 * lookup_ns, lookups_per_sec, named, symbols, for a Go file line_ns
 * (a source line's lookup), tables, table_bytes, and for a file
 * warm_load_cpu_ms, the best of 5 loads more in the same process, as a
 * running daemon loads tables.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "util/log.h"
#include "sym/resolve.h"
#include "sym/symcache.h"
#include "util/xmalloc.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: resolve [-AiMv] [-D dirs] [-d mode] -p pid "
	    "addr ...\n"
	    "       resolve [-AiMv] [-D dirs] [-d mode] -f file addr ...\n"
	    "       resolve [-D dirs] [-d mode] -o -f file offset ...\n"
	    "       resolve [-AMv] -k addr ...\n"
	    "       resolve -B [-n count] [-D dirs] [-d mode] "
	    "-p pid | -f file | -k -\n");
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

/* The addresses of argv, or of stdin for "-". */
static uint64_t *
read_addrs(int argc, char **argv, size_t *np)
{
	uint64_t	*v = NULL, a;
	char		 line[256];
	size_t		 n = 0;
	int		 i;

	if (argc == 1 && strcmp(argv[0], "-") == 0) {
		while (fgets(line, sizeof(line), stdin) != NULL) {
			line[strcspn(line, " \t\r\n")] = '\0';
			if (parse_addr(line, &a) == -1)
				continue;
			v = xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = a;
		}
	} else
		for (i = 0; i < argc; i++) {
			if (parse_addr(argv[i], &a) == -1) {
				fprintf(stderr, "resolve: %s: not a hex "
				    "address\n", argv[i]);
				exit(2);
			}
			v = xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = a;
		}
	*np = n;
	return v;
}

static void
print_frames(const char **names, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		printf("%s%s", i > 0 ? ";" : "", names[i]);
	printf("\n");
}

static double
now(clockid_t clock)
{
	struct timespec	 ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Go's source lines of a file, looked up as a frame is named the first
 * time (the round keeps them per address after): within the functions
 * at a, 64 bytes on at most.  Prints line_ns if the file has lines.
 */
static void
bench_lines(struct symcache *c, const struct symcache_file *f,
    const uint64_t *a, size_t n)
{
	const char	*files[32];
	int32_t		 lines[32];
	double		 t0, t1;
	size_t		 i, k, found = 0, count = n * 64;

	t0 = now(CLOCK_MONOTONIC);
	for (i = 0, k = 0; i < count; i++, k = k + 1 == n ? 0 : k + 1)
		if (symcache_lines(c, f, a[k] + i / n, files, lines,
		    32) > 0)
			found++;
	t1 = now(CLOCK_MONOTONIC);
	if (found > 0)
		printf("line_lookups %zu\nline_ns %.1f\n", count,
		    (t1 - t0) * 1e9 / count);
}

/*
 * The benchmark.  A file's lookups go to its table directly
 * (symcache_symbol_vaddr), as the daemon's do once it has the mapping;
 * a process's through resolve_user, mappings and all.
 */
static int
bench(const struct config *conf, pid_t pid, const char *file, int kernel,
    const uint64_t *a, size_t n, unsigned long count)
{
	struct resolve		*r;
	struct resolve_proc	*rp = NULL;
	struct resolve_stats	 st;
	struct symcache		*c = NULL;
	struct symcache_file	*f = NULL;
	const char		*name;
	double			 t0, t1, t2, c0, c1, best;
	unsigned long		 i, named = 0, k;

	if (n == 0)
		return 2;
	r = resolve_create(conf);
	t0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	if (pid != 0 && (rp = resolve_proc_open(r, pid)) == NULL) {
		fprintf(stderr, "resolve: pid %d: cannot read its maps\n",
		    (int)pid);
		return 1;
	}
	if (file != NULL) {
		c = symcache_create(conf);
		f = symcache_get_path(c, file);
	}
	if (kernel)
		resolve_kernel(r, a[0]);
	c1 = now(CLOCK_PROCESS_CPUTIME_ID);
	t1 = now(CLOCK_MONOTONIC);
	for (i = 0, k = 0; i < count; i++, k = k + 1 == n ? 0 : k + 1) {
		if (f != NULL)
			name = symcache_symbol_vaddr(c, f, a[k]);
		else if (kernel)
			name = resolve_kernel(r, a[k]);
		else
			name = resolve_user(r, rp, a[k]);
		if (i < n && name != NULL && name[0] != '[' &&
		    strchr(name, '+') == NULL && strncmp(name, "0x", 2) != 0)
			named++;
	}
	t2 = now(CLOCK_MONOTONIC);
	resolve_stats(r, &st);
	printf("load_ms %.3f\n", (t1 - t0) * 1e3);
	printf("load_cpu_ms %.3f\n", (c1 - c0) * 1e3);
	printf("lookups %lu\n", count);
	printf("lookup_ns %.1f\n", (t2 - t1) * 1e9 / count);
	printf("lookups_per_sec %.0f\n", count / (t2 - t1));
	printf("named %lu of %zu\n", named, count < n ? (size_t)count : n);
	if (f != NULL) {
		printf("symbols %zu\n", symcache_file_count(f));
		printf("sources 0x%x\n", symcache_file_sources(f));
	} else
		printf("symbols %zu\n", st.ksyms);
	if (f != NULL)
		bench_lines(c, f, a, n);
	if (c != NULL) {
		struct symcache_stats	 cs;

		symcache_stats(c, &cs);
		printf("tables %zu\ntable_bytes %zu\n", cs.files, cs.bytes);
	} else if (kernel)
		printf("tables 1\ntable_bytes %zu\n", st.ksym_bytes);
	else
		printf("tables %zu\ntable_bytes %zu\n", st.files,
		    st.file_bytes);
	symcache_put(c, f);
	symcache_free(c);
	if (file != NULL) {
		/* Again, as a running daemon loads tables: warm. */
		for (i = 0, best = 1e9; i < 5; i++) {
			c = symcache_create(conf);
			t0 = now(CLOCK_PROCESS_CPUTIME_ID);
			f = symcache_get_path(c, file);
			t1 = now(CLOCK_PROCESS_CPUTIME_ID) - t0;
			if (t1 < best)
				best = t1;
			symcache_put(c, f);
			symcache_free(c);
		}
		printf("warm_load_cpu_ms %.3f\n", best * 1e3);
	}
	resolve_proc_close(r, rp);
	resolve_free(r);
	return 0;
}

/* Names at file offsets, as a mapping of the file would have them. */
static int
by_offset(const struct config *conf, const char *file, const uint64_t *a,
    size_t n)
{
	struct symcache		*c;
	struct symcache_file	*f;
	const char		*name;
	size_t			 i;

	c = symcache_create(conf);
	f = symcache_get_path(c, file);
	for (i = 0; i < n; i++) {
		name = symcache_symbol(c, f, a[i]);
		printf("%s\n", name != NULL ? name : "[unknown]");
	}
	symcache_put(c, f);
	symcache_free(c);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct config		*conf;
	struct resolve		*r;
	struct resolve_proc	*rp = NULL;
	const char		*file = NULL, *frames[64];
	char			*end;
	uint64_t		*addrs;
	unsigned long		 count = 10000000;
	long			 lpid;
	pid_t			 pid = 0;
	size_t			 n, naddrs, i;
	int			 ch, kernel = 0, verbose = 0, inl = 0;
	int			 bmark = 0, offsets = 0, ret;

	conf = config_defaults();
	while ((ch = getopt(argc, argv, "ABD:d:Mf:ikn:op:v")) != -1) {
		switch (ch) {
		case 'A':
			conf->unknown_symbol_address = 1;
			break;
		case 'B':
			bmark = 1;
			break;
		case 'D':
			free(conf->debug_dirs);
			conf->debug_dirs = xstrdup(optarg);
			break;
		case 'd':
			if (strcmp(optarg, "none") == 0)
				conf->demangle = CONFIG_DEMANGLE_NONE;
			else if (strcmp(optarg, "simplified") == 0)
				conf->demangle = CONFIG_DEMANGLE_SIMPLIFIED;
			else if (strcmp(optarg, "full") == 0)
				conf->demangle = CONFIG_DEMANGLE_FULL;
			else
				usage();
			break;
		case 'i':
			inl = 1;
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
		case 'n':
			count = strtoul(optarg, &end, 10);
			if (*end != '\0' || count == 0)
				usage();
			break;
		case 'o':
			offsets = 1;
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
	addrs = read_addrs(argc, argv, &naddrs);
	if (bmark) {
		ret = bench(conf, pid, file, kernel, addrs, naddrs, count);
		free(addrs);
		config_free(conf);
		return ret;
	}
	if (offsets) {
		if (file == NULL)
			usage();
		ret = by_offset(conf, file, addrs, naddrs);
		free(addrs);
		config_free(conf);
		return ret;
	}

	r = resolve_create(conf);
	if (pid != 0 && (rp = resolve_proc_open(r, pid)) == NULL) {
		fprintf(stderr, "resolve: pid %d: cannot read its maps\n",
		    (int)pid);
		exit(1);
	}
	for (i = 0; i < naddrs; i++) {
		if (kernel)
			printf("%s\n", resolve_kernel(r, addrs[i]));
		else if (file != NULL && inl) {
			n = resolve_file_frames(r, file, addrs[i], frames, 64);
			print_frames(frames, n);
		} else if (file != NULL)
			printf("%s\n", resolve_file(r, file, addrs[i]));
		else if (inl) {
			n = resolve_user_frames(r, rp, addrs[i], frames, 64);
			print_frames(frames, n);
		} else
			printf("%s\n", resolve_user(r, rp, addrs[i]));
	}
	resolve_proc_close(r, rp);
	resolve_free(r);
	free(addrs);
	config_free(conf);
	return 0;
}
