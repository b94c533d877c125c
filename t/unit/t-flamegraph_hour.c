/*
 * The memory of last-hour.svg's sums (flamegraph_hour*.c): a round a
 * second for more than an hour, with new stacks every round, kept the
 * same as the files read afresh while the minutes are merged and leave
 * the hour; then the byte bounds, a directory's and all's, held round
 * by round with many distinct stacks, the sum staying that of the files
 * of the minutes it still covers.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/config.h"
#include "flamegraph.h"
#include "profile.h"
#include "sink_file.h"
#include "xmalloc.h"
#include "tap.h"

#define T0		1796206500	/* 2026-12-02T10:15:00Z */

static char	 tmpdir[] = "/tmp/t-flamegraph_hour.XXXXXX";

/* Round k of a service: two stacks every round, and fresh new ones. */
static struct profile *
round_of(const char *svc, int k, int fresh)
{
	struct profile	*p;
	const char	*fr[3];
	char		 a[32], b[32];
	int		 i;

	p = profile_create(PROFILE_TYPE_CPU, 10000000, 0, 0);
	profile_label_set(p, "service_name", svc);
	fr[0] = "app";
	fr[1] = "main";
	fr[2] = "work";
	profile_add(p, fr, 3, 1 + k % 7);
	fr[1] = "idle";
	profile_add(p, fr, 2, 3);
	for (i = 0; i < fresh; i++) {
		snprintf(a, sizeof(a), "r%d", k);
		snprintf(b, sizeof(b), "f%d_%d", k, i);
		fr[1] = a;
		fr[2] = b;
		profile_add(p, fr, 3, 1 + i % 3);
	}
	return p;
}

static int
line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sum as text, a sorted line a stack of value > 0: to compare. */
static char *
dump(const struct profile *p)
{
	const uint32_t	*ids;
	char		**lines, *s, *t;
	uint64_t	 v;
	size_t		 i, j, n, nl = 0, len = 1;

	lines = xcalloc(profile_nstacks(p) + 1, sizeof(*lines));
	for (i = 0; (ids = profile_stack(p, i, &n, &v)) != NULL; i++) {
		if (v == 0)
			continue;
		xasprintf(&s, "%llu", (unsigned long long)v);
		for (j = n; j > 0; j--) {
			xasprintf(&t, "%s;%s", profile_string(p, ids[j - 1]),
			    s);
			free(s);
			s = t;
		}
		len += strlen(s) + 1;
		lines[nl++] = s;
	}
	qsort(lines, nl, sizeof(*lines), line_cmp);
	s = xcalloc(1, len);
	for (i = 0; i < nl; i++) {
		strcat(s, lines[i]);
		strcat(s, "\n");
		free(lines[i]);
	}
	free(lines);
	return s;
}

/* What sinks_round() does: the .folded file, then it is known. */
static void
write_round(struct flamegraph_hours *hs, const struct config *conf,
    const struct profile *p, time_t t)
{
	struct stat	 sb;
	char		*folded;

	sink_file_write_folded(conf, p, t, &folded, &sb);
	if (folded != NULL)
		flamegraph_hours_known(hs, folded, &sb, p);
	free(folded);
}

/* The hour kept in hs is the one read afresh from the files. */
static int
same_as_read(struct flamegraph_hours *hs, const char *dir,
    const struct profile *p, time_t t)
{
	struct flamegraph_hours	*once;
	struct flamegraph_order	*o;
	struct profile		*kept, *read;
	time_t			 from, from2;
	char			*a, *b;
	int			 same;

	kept = flamegraph_hours_get(hs, dir, p, t, &o, &from);
	once = flamegraph_hours_create();
	read = flamegraph_hours_get(once, dir, p, t, &o, &from2);
	if (kept == NULL || read == NULL) {
		flamegraph_hours_free(once);
		return 0;
	}
	a = dump(kept);
	b = dump(read);
	same = strcmp(a, b) == 0 && from == from2 &&
	    profile_total(kept) == profile_total(read) &&
	    profile_total(kept) > 0;
	free(a);
	free(b);
	flamegraph_hours_free(once);
	return same;
}

static char *
path_to(const char *rel)
{
	char	*p;

	xasprintf(&p, "%s/%s", tmpdir, rel);
	return p;
}

static struct config *
conf_in(const char *rel)
{
	struct config	*conf;

	conf = config_defaults();
	free(conf->output_dir);
	conf->output_dir = path_to(rel);
	return conf;
}

/*
 * 925 rounds 4 s apart: every minute merged, minutes leaving the
 * hour whole, a file of a merged minute deleted and another replaced
 * mid-hour; the sum kept is the one read from the files each time it is
 * compared, and the bytes held stay far from what a record per file
 * cost (900 records of 256 pairs of 12 bytes: 2.6 MiB).
 */
static void
test_merge(void)
{
	struct flamegraph_hours	*hs;
	struct flamegraph_order	*o;
	struct config		*conf;
	struct profile		*p;
	struct tm		 tm;
	FILE			*f;
	time_t			 t, from, gone;
	size_t			 bytes, most = 0;
	char			*dir, *path, name[64];
	int			 k, checks = 0, same = 0;

	conf = conf_in("merge");
	dir = path_to("merge/cpu/many");
	hs = flamegraph_hours_create();
	for (k = 0; k < 925; k++) {
		t = T0 + 4 * k;
		p = round_of("many", k, k % 10 == 0 ? 5 : 1);
		write_round(hs, conf, p, t);
		if (k == 250 || k == 375) {
			/* A file of a minute merged long ago goes. */
			gone = T0 + (k == 250 ? 400 : 800);
			gmtime_r(&gone, &tm);
			strftime(name, sizeof(name),
			    "merge/cpu/many/%Y%m%dT%H%M%SZ.folded", &tm);
			path = path_to(name);
			ok(unlink(path) == 0, "round %d: deleted %s", k, name);
			free(path);
			if (k == 375 && (path = path_to(name)) != NULL &&
			    (f = fopen(path, "w")) != NULL) {
				/* And another file under its name. */
				fputs("app;replaced 11\n", f);
				fclose(f);
			}
			if (k == 375)
				free(path);
		}
		if (k % 60 == 59 || k == 250 || k == 375 || k == 924) {
			checks++;
			if (same_as_read(hs, dir, p, t))
				same++;
			else
				printf("# round %d: the sum kept differs\n",
				    k);
		} else if (flamegraph_hours_get(hs, dir, p, t, &o, &from) ==
		    NULL)
			ok(0, "round %d: no sum", k);
		bytes = flamegraph_hours_bytes(hs);
		if (bytes > most)
			most = bytes;
		profile_free(p);
	}
	is_int(same, checks, "the sum kept is the one read from the files, "
	    "in all %d rounds compared (a round every 4 s, 925 rounds)",
	    checks);
	ok(most < (1 << 20), "bytes held at most %zu KiB (a record a file: "
	    "2.6 MiB)", most >> 10);
	flamegraph_hours_log_state(hs);
	flamegraph_hours_free(hs);
	free(dir);
	config_free(conf);
}

/*
 * Rounds of many new stacks under small bounds: the bytes held never
 * exceed them, the oldest minutes leave first, and the sum is that of
 * the files of the minutes it covers, from the time it says.
 */
static void
test_bound(void)
{
	struct flamegraph_hours	*hs;
	struct flamegraph_order	*o;
	struct config		*conf;
	struct profile		*p, *hp;
	FILE			*f;
	const char		*svc[2] = { "b1", "b2" };
	char			*dir[2], *svg, *path;
	uint64_t		 total[900], want;
	time_t			 t, from;
	size_t			 bytes, most = 0, mem_dir = 256 << 10;
	size_t			 mem_all = 384 << 10, cap;
	int			 k, j, d, wrong = 0, over = 0, nd, first = 0;

	/* One directory, then two under a bound for all. */
	for (nd = 1; nd <= 2; nd++) {
		conf = conf_in(nd == 1 ? "bound1" : "bound2");
		for (d = 0; d < nd; d++) {
			xasprintf(&path, "%s/cpu/%s", conf->output_dir, svc[d]);
			dir[d] = path;
		}
		hs = flamegraph_hours_create();
		flamegraph_hours_mem(hs, mem_dir, nd == 1 ? 64 << 20 :
		    mem_all);
		most = 0;
		first = 0;
		for (k = 0; k < 900; k++) {
			t = T0 + k;
			for (d = 0; d < nd; d++) {
				p = round_of(svc[d], k, nd == 1 ? 8 : 4);
				total[k] = profile_total(p);
				write_round(hs, conf, p, t);
				hp = flamegraph_hours_get(hs, dir[d], p, t, &o,
				    &from);
				for (j = 0, want = 0; j <= k; j++)
					if (T0 + j >= from)
						want += total[j];
				if (hp == NULL || profile_total(hp) != want) {
					if (wrong++ < 3)
						printf("# round %d: %s: the "
						    "sum is not its files' "
						    "from %lld\n", k, svc[d],
						    (long long)(from - T0));
				}
				if (first == 0 && from > t - 3600)
					first = k;
				profile_free(p);
			}
			bytes = flamegraph_hours_bytes(hs);
			if (bytes > most)
				most = bytes;
			if (bytes > (nd == 1 ? mem_dir : mem_all))
				over++;
		}
		is_int(over, 0, "%d director%s: the bytes held never over "
		    "%zu KiB (at most %zu KiB)", nd, nd == 1 ? "y" : "ies",
		    (nd == 1 ? mem_dir : mem_all) >> 10, most >> 10);
		is_int(wrong, 0, "%d director%s: the sum is always that of "
		    "the files from the time it covers", nd, nd == 1 ? "y" :
		    "ies");
		ok(first > 0 && from > T0 + 60, "%d director%s: the oldest "
		    "minutes left out from round %d, %lld s covered at the end",
		    nd, nd == 1 ? "y" : "ies", first, (long long)t -
		    (long long)from);
		if (nd == 1) {
			/* last-hour.svg says what it covers. */
			p = round_of(svc[0], k, 20);
			write_round(hs, conf, p, t + 1);
			flamegraph_write(hs, conf, p, t + 1);
			xasprintf(&path, "%s/last-hour.svg", dir[0]);
			svg = NULL;
			cap = 0;
			if ((f = fopen(path, "r")) != NULL) {
				if (getdelim(&svg, &cap, '\0', f) == -1) {
					free(svg);
					svg = NULL;
				}
				fclose(f);
			}
			ok(svg != NULL && strstr(svg, "(memory bound), ") !=
			    NULL, "the title says the memory bound cut the "
			    "hour");
			free(svg);
			free(path);
			profile_free(p);
		}
		flamegraph_hours_free(hs);
		for (d = 0; d < nd; d++)
			free(dir[d]);
		config_free(conf);
	}
}

int
main(void)
{
	char	*cmd;

	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_merge();
	test_bound();

	xasprintf(&cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("cannot remove the scratch directory");
	free(cmd);
	return done_testing();
}
