/*
 * Retention, in a scratch output directory: the names it knows, exactly
 * the profiles over age deleted (by the time in the name, else mtime),
 * dead services removed whole, live ones keeping their flame graphs,
 * stale temporary files removed, exactly the oldest profiles over
 * max_bytes deleted, and nothing that is not ours touched, nor anything
 * reached through a symbolic link.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "sink/retention.h"
#include "util/xmalloc.h"
#include "tap.h"

#define NOW		1796206500	/* 2026-12-02T10:15:00Z */
#define HOUR		3600

static char	 tmpdir[] = "/tmp/t-retention.XXXXXX";

static char *
path_of(const char *rel)
{
	char	*p;

	xasprintf(&p, "%s/%s", tmpdir, rel);
	return p;
}

static void
mkdirs(const char *rel)
{
	char	*cmd;

	xasprintf(&cmd, "mkdir -p '%s/%s'", tmpdir, rel);
	if (system(cmd) != 0)
		printf("Bail out! %s\n", cmd);
	free(cmd);
}

/* A file of size bytes, modified at mtime. */
static void
mk(const char *dir, const char *name, size_t size, time_t mtime)
{
	struct timespec	 ts[2];
	char		*p, *rel;
	FILE		*f;
	size_t		 i;

	xasprintf(&rel, "%s/%s", dir, name);
	p = path_of(rel);
	if ((f = fopen(p, "w")) == NULL) {
		printf("Bail out! create %s: %s\n", p, strerror(errno));
		exit(1);
	}
	for (i = 0; i < size; i++)
		putc('x', f);
	fclose(f);
	ts[0].tv_sec = ts[1].tv_sec = mtime;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	utimensat(AT_FDCWD, p, ts, 0);
	free(p);
	free(rel);
}

static const char *
stamp(time_t t, const char *suffix)
{
	static char	 buf[8][64];
	static int	 i;
	struct tm	 tm;
	char		*b = buf[i++ % 8];

	gmtime_r(&t, &tm);
	strftime(b, 32, "%Y%m%dT%H%M%SZ", &tm);
	strcat(b, suffix);
	return b;
}

/* Names in tmpdir/rel, sorted, space separated; "-" if there is none. */
static char *
list(const char *rel)
{
	struct dirent	**ents;
	char		 *p = path_of(rel), *s, *t;
	int		  n, i;

	if ((n = scandir(p, &ents, NULL, alphasort)) == -1) {
		free(p);
		return xstrdup("-");
	}
	s = xstrdup("");
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") != 0 &&
		    strcmp(ents[i]->d_name, "..") != 0) {
			xasprintf(&t, "%s%s%s", s, *s ? " " : "",
			    ents[i]->d_name);
			free(s);
			s = t;
		}
		free(ents[i]);
	}
	free(ents);
	free(p);
	return s;
}

#define is_list(rel, want, ...) do {					\
	char *l_ = list(rel);						\
	is_str(l_, want, __VA_ARGS__);					\
	free(l_);							\
} while (0)

static struct config *
conf_for(const char *rel, long long hours, long long max)
{
	struct config	*conf;

	conf = config_defaults();
	free(conf->output_dir);
	conf->output_dir = path_of(rel);
	conf->retention_hours = hours;
	conf->max_bytes = max;
	return conf;
}

static void
test_classify(void)
{
	static const struct {
		const char		*name;
		enum retention_kind	 kind;
		int			 valid;
	} c[] = {
		{ "20261202T101500Z.pb.gz", RETENTION_PROFILE, 1 },
		{ "20261202T101500Z.folded", RETENTION_PROFILE, 1 },
		{ "20261202T101500Z-1.folded", RETENTION_PROFILE, 1 },
		{ "20261202T101500Z-999.pb.gz", RETENTION_PROFILE, 1 },
		{ "20261202T101500Z-1000.pb.gz", RETENTION_FOREIGN, 0 },
		{ "20261202T101500Z-0.pb.gz", RETENTION_FOREIGN, 0 },
		{ "20261202T101500Z-01.pb.gz", RETENTION_FOREIGN, 0 },
		{ "20261202T101500Z-.pb.gz", RETENTION_FOREIGN, 0 },
		{ "20261202T101500Z.pb", RETENTION_FOREIGN, 0 },
		{ "20261202T101500Z.folded.bak", RETENTION_FOREIGN, 0 },
		{ "20261202T101500Z.svg", RETENTION_FOREIGN, 0 },
		{ "20261202T1015Z.pb.gz", RETENTION_FOREIGN, 0 },
		{ "2026120xT101500Z.pb.gz", RETENTION_FOREIGN, 0 },
		{ "20261202t101500z.pb.gz", RETENTION_FOREIGN, 0 },
		{ "20261302T101500Z.pb.gz", RETENTION_PROFILE, 0 },
		{ "20260230T000000Z.folded", RETENTION_PROFILE, 0 },
		{ "20261202T246000Z.folded", RETENTION_PROFILE, 0 },
		{ "latest.svg", RETENTION_SVG, 0 },
		{ "last-hour.svg", RETENTION_SVG, 0 },
		{ "latest.svg2", RETENTION_FOREIGN, 0 },
		{ "Latest.svg", RETENTION_FOREIGN, 0 },
		{ ".latest.svg.Ab3dE9", RETENTION_TEMP, 0 },
		{ ".20261202T101500Z-3.pb.gz.zzzzzz", RETENTION_TEMP, 0 },
		{ ".latest.svg.Ab3d", RETENTION_FOREIGN, 0 },
		{ ".latest.svg.Ab-dE9", RETENTION_FOREIGN, 0 },
		{ ".notes.Ab3dE9", RETENTION_FOREIGN, 0 },
		{ "..latest.svg.Ab3dE9", RETENTION_FOREIGN, 0 },
		{ "..latest.svg.Ab3dE9.Ab3dE9", RETENTION_FOREIGN, 0 },
		{ ".", RETENTION_FOREIGN, 0 },
		{ "..", RETENTION_FOREIGN, 0 },
		{ "", RETENTION_FOREIGN, 0 },
	};
	size_t	 i;
	time_t	 when;
	int	 bad = 0;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		if (retention_classify(c[i].name, &when) != c[i].kind ||
		    (c[i].kind == RETENTION_PROFILE &&
		    (when != -1) != c[i].valid)) {
			printf("# %s: kind %d, time %lld\n", c[i].name,
			    retention_classify(c[i].name, &when),
			    (long long)when);
			bad++;
		}
	}
	is_int(bad, 0, "%zu names classified", i);
	retention_classify("20261202T101500Z-2.folded", &when);
	is_int(when, NOW, "the time of a profile is the one in its name");
}

static void
test_age(void)
{
	struct config	*conf;
	struct stat	 sb;
	char		*p;

	mkdirs("age/cpu/live");
	mkdirs("age/cpu/dead");
	mkdirs("age/cpu/deadplus");
	mkdirs("age/cpu/empty");
	mkdirs("age/offcpu/live");
	mkdirs("age/cpu/live/20200101T000000Z.folded");	/* a directory */
	mkdirs("outside");

	/* By name: one second over the hour goes, the hour itself stays. */
	mk("age/cpu/live", stamp(NOW - HOUR - 1, ".pb.gz"), 10, NOW);
	mk("age/cpu/live", stamp(NOW - HOUR - 1, ".folded"), 10, NOW);
	mk("age/cpu/live", stamp(NOW - 2 * HOUR, "-1.folded"), 10, NOW);
	mk("age/cpu/live", stamp(NOW - HOUR, ".pb.gz"), 10, NOW - 9 * HOUR);
	mk("age/cpu/live", stamp(NOW - 10, ".pb.gz"), 10, NOW - 9 * HOUR);
	/* No valid time in the name: by mtime. */
	mk("age/cpu/live", "20261302T000000Z.pb.gz", 10, NOW - HOUR - 1);
	mk("age/cpu/live", "20261302T000000Z.folded", 10, NOW - HOUR);
	/* Flame graphs of a live service stay, however old. */
	mk("age/cpu/live", "latest.svg", 10, NOW - 5 * HOUR);
	mk("age/cpu/live", "last-hour.svg", 10, NOW - 5 * HOUR);
	/* Temporary files: stale after ten minutes. */
	mk("age/cpu/live", ".latest.svg.Ab12Cd", 10, NOW - 601);
	mk("age/cpu/live", ".20261202T101500Z.pb.gz.Ab12Ce", 10, NOW - 600);
	/* Not ours. */
	mk("age/cpu/live", "notes.txt", 10, 0);
	mk("age/cpu/live", "20200101T000000Z.pb.gz.bak", 10, 0);
	mk("age/cpu/live", ".hidden", 10, 0);
	mk("age/cpu/live", ".latest.svg.Ab12", 10, 0);
	mk("outside", "20200101T000000Z.pb.gz", 10, 0);
	p = path_of("age/cpu/live/20200101T000000Z.pb.gz");
	if (symlink("../../../outside/20200101T000000Z.pb.gz", p) == -1)
		ok(0, "symlink: %s", strerror(errno));
	free(p);

	/* A dead service: everything goes, the directory too. */
	mk("age/cpu/dead", stamp(NOW - 3 * HOUR, ".pb.gz"), 10, NOW);
	mk("age/cpu/dead", stamp(NOW - 3 * HOUR, ".folded"), 10, NOW);
	mk("age/cpu/dead", "latest.svg", 10, NOW - 3 * HOUR);
	mk("age/cpu/dead", "last-hour.svg", 10, NOW - 3 * HOUR);
	mk("age/cpu/dead", ".latest.svg.Ab12Cd", 10, NOW - 3 * HOUR);
	/* Dead, with a file that is not ours: that file stays. */
	mk("age/cpu/deadplus", stamp(NOW - 3 * HOUR, ".pb.gz"), 10, NOW);
	mk("age/cpu/deadplus", "latest.svg", 10, NOW - 3 * HOUR);
	mk("age/cpu/deadplus", "keep.me", 10, 0);
	/* Only its flame graphs, fresh: live (pprof = no, folded = no). */
	mk("age/offcpu/live", "latest.svg", 10, NOW - 60);
	mk("age/offcpu/live", "last-hour.svg", 10, NOW - 60);

	conf = conf_for("age", 1, 0);
	retention_run(conf, NOW);
	is_list("age/cpu/live", ".20261202T101500Z.pb.gz.Ab12Ce .hidden "
	    ".latest.svg.Ab12 20200101T000000Z.folded "
	    "20200101T000000Z.pb.gz 20200101T000000Z.pb.gz.bak "
	    "20261202T091500Z.pb.gz 20261202T101450Z.pb.gz "
	    "20261302T000000Z.folded last-hour.svg latest.svg notes.txt",
	    "exactly the profiles over age and the stale temporary file go");
	is_list("age/cpu", "deadplus live",
	    "a dead service's directory is removed, so is an empty one");
	is_list("age/cpu/deadplus", "keep.me",
	    "a dead service's files go, not a file that is not ours");
	is_list("age/offcpu/live", "last-hour.svg latest.svg",
	    "fresh flame graphs keep a service alive");
	is_list("outside", "20200101T000000Z.pb.gz",
	    "a symlink's target is not touched");
	p = path_of("age/cpu/live/20200101T000000Z.pb.gz");
	ok(lstat(p, &sb) == 0 && S_ISLNK(sb.st_mode), "nor the symlink");
	free(p);

	/* The day after: the live service is dead too. */
	retention_run(conf, NOW + 24 * HOUR);
	is_list("age/cpu/live", ".hidden .latest.svg.Ab12 "
	    "20200101T000000Z.folded 20200101T000000Z.pb.gz "
	    "20200101T000000Z.pb.gz.bak notes.txt",
	    "a day later: only what is not ours is left");
	is_list("age/offcpu", "", "and the service of fresh flame graphs");
	config_free(conf);
}

static void
test_forever(void)
{
	struct config	*conf;
	char		 want[128];

	mkdirs("forever/cpu/s");
	mk("forever/cpu/s", stamp(NOW - 1000 * HOUR, ".pb.gz"), 100, 0);
	mk("forever/cpu/s", "latest.svg", 100, 0);
	mk("forever/cpu/s", ".latest.svg.aaaaaa", 100, NOW - 601);
	conf = conf_for("forever", 0, 0);
	retention_run(conf, NOW);
	snprintf(want, sizeof(want), "%s latest.svg",
	    stamp(NOW - 1000 * HOUR, ".pb.gz"));
	is_list("forever/cpu/s", want,
	    "retention_hours = 0, max_bytes = 0: stale temporary files go");
	config_free(conf);
}

static void
test_size(void)
{
	struct config	*conf;

	mkdirs("size/cpu/a");
	mkdirs("size/offcpu/b");
	mk("size/cpu/a", stamp(NOW - 50, ".pb.gz"), 100, NOW);
	mk("size/cpu/a", stamp(NOW - 50, ".folded"), 50, NOW);
	mk("size/cpu/a", stamp(NOW - 40, ".pb.gz"), 100, NOW - 100);
	mk("size/offcpu/b", stamp(NOW - 45, ".pb.gz"), 200, NOW);
	mk("size/offcpu/b", "latest.svg", 30, NOW - 1000);
	mk("size/offcpu/b", "notes", 5000, NOW - 1000);	/* not counted */
	/* 480 bytes of ours. */

	conf = conf_for("size", 72, 480);
	retention_run(conf, NOW);
	is_list("size/cpu/a", "20261202T101410Z.folded 20261202T101410Z.pb.gz "
	    "20261202T101420Z.pb.gz", "480 bytes, max_bytes 480: nothing goes");

	conf->max_bytes = 330;
	retention_run(conf, NOW);
	is_list("size/cpu/a", "20261202T101420Z.pb.gz",
	    "150 over: the oldest round goes, both its files");
	is_list("size/offcpu/b", "20261202T101415Z.pb.gz latest.svg notes",
	    "150 over: nothing else");

	conf->max_bytes = 329;
	retention_run(conf, NOW);
	is_list("size/offcpu/b", "latest.svg notes",
	    "1 byte over: the oldest profile goes, though it is 200");
	is_list("size/cpu/a", "20261202T101420Z.pb.gz", "and only that one");

	conf->max_bytes = 1;
	retention_run(conf, NOW);
	is_list("size/cpu/a", "", "every profile can go");
	is_list("size/offcpu/b", "latest.svg notes",
	    "flame graphs and other files stay");
	config_free(conf);
}

/*
 * Sweeps that keep what they learnt of the profiles decide as fresh
 * ones do; a profile replaced by another file is stat'ed again.
 */
static void
test_cache(void)
{
	struct retention_cache	*c;
	struct config		*conf;
	char			*path, *from;

	c = retention_cache_create();
	mkdirs("cache/cpu/a");
	mk("cache/cpu/a", stamp(NOW - 50, ".pb.gz"), 100, NOW);
	mk("cache/cpu/a", stamp(NOW - 40, ".pb.gz"), 100, NOW);
	mk("cache/cpu/a", "latest.svg", 10, NOW);
	conf = conf_for("cache", 72, 210);
	retention_sweep(c, conf, NOW);
	is_list("cache/cpu/a", "20261202T101410Z.pb.gz 20261202T101420Z.pb.gz "
	    "latest.svg", "cached: 210 bytes, max_bytes 210: nothing goes");
	retention_sweep(c, conf, NOW + 1);
	is_list("cache/cpu/a", "20261202T101410Z.pb.gz 20261202T101420Z.pb.gz "
	    "latest.svg", "from the cache: nothing goes either");

	/*
	 * Replaced as the sink replaces a file, renamed over it: another
	 * inode, 50 bytes more, stat'ed again at once.
	 */
	mk("cache/cpu/a", ".new", 150, NOW);
	xasprintf(&from, "%s/cache/cpu/a/.new", tmpdir);
	xasprintf(&path, "%s/cache/cpu/a/%s", tmpdir,
	    stamp(NOW - 40, ".pb.gz"));
	ok(rename(from, path) == 0, "a profile replaced");
	retention_sweep(c, conf, NOW + 2);
	is_list("cache/cpu/a", "20261202T101420Z.pb.gz latest.svg",
	    "its replacement is stat'ed: 260 bytes, the oldest goes");

	/*
	 * Grown in place, the same inode: seen once the cache is renewed,
	 * five minutes on.
	 */
	conf->max_bytes = 200;
	retention_sweep(c, conf, NOW + 3);
	is_list("cache/cpu/a", "20261202T101420Z.pb.gz latest.svg",
	    "160 bytes, max_bytes 200: nothing goes");
	ok(truncate(path, 250) == 0, "a profile grown in place");
	retention_sweep(c, conf, NOW + 4);
	is_list("cache/cpu/a", "20261202T101420Z.pb.gz latest.svg",
	    "the cache still has it at 150 bytes");
	retention_sweep(c, conf, NOW + 4 + 300);
	is_list("cache/cpu/a", "latest.svg",
	    "five minutes on, all is stat'ed again: 260 bytes, it goes");
	free(from);
	free(path);

	/* By age, a profile known from the cache: its name's time. */
	mk("cache/cpu/a", stamp(NOW - 30, ".folded"), 10, NOW);
	conf->max_bytes = 0;
	conf->retention_hours = 1;
	retention_sweep(c, conf, NOW + 400);
	is_list("cache/cpu/a", "20261202T101430Z.folded latest.svg",
	    "an hour old at most: kept");
	retention_sweep(c, conf, NOW - 30 + HOUR + 1);
	is_list("cache/cpu/a", "latest.svg", "then by age, it goes");
	config_free(conf);
	retention_cache_free(c);
}

/* Many files: the survivors are exactly the newest that fit. */
static void
test_size_many(void)
{
	struct config	*conf;
	char		 want[65536], name[64];
	size_t		 sizes[600], total = 0, keep, i, first;
	unsigned int	 seed = 1;
	int		 missing = 0, extra = 0;
	char		*got;

	mkdirs("many/cpu/s");
	for (i = 0; i < 600; i++) {
		seed = seed * 1103515245 + 12345;
		sizes[i] = 1 + (seed >> 16) % 300;
		total += sizes[i];
		mk("many/cpu/s", stamp(NOW - 600 + i, ".folded"), sizes[i],
		    NOW);
	}
	conf = conf_for("many", 72, total / 3);
	/* The oldest go until the rest fit. */
	for (keep = total, first = 0; keep > (size_t)conf->max_bytes; first++)
		keep -= sizes[first];
	want[0] = '\0';
	for (i = first; i < 600; i++) {
		strcat(want, *want ? " " : "");
		strcat(want, stamp(NOW - 600 + i, ".folded"));
	}
	retention_run(conf, NOW);
	got = list("many/cpu/s");
	is_str(got, want, "600 files, a third of the bytes: the newest %zu "
	    "stay", 600 - first);
	for (i = 0; i < 600; i++) {
		snprintf(name, sizeof(name), "%s", stamp(NOW - 600 + i,
		    ".folded"));
		if (i < first && strstr(got, name) != NULL)
			extra++;
		if (i >= first && strstr(got, name) == NULL)
			missing++;
	}
	ok(extra == 0 && missing == 0, "%d kept over, %d deleted under",
	    extra, missing);
	free(got);
	config_free(conf);
}

/* Symlinked type and service directories are not followed. */
static void
test_symlinks(void)
{
	struct config	*conf;
	char		*p, *t;

	mkdirs("links/cpu");
	mkdirs("elsewhere/s");
	mk("elsewhere/s", stamp(NOW - 100 * HOUR, ".pb.gz"), 10, 0);
	mk("elsewhere/s", "latest.svg", 10, 0);
	t = path_of("elsewhere");
	p = path_of("links/offcpu");
	ok(symlink(t, p) == 0, "offcpu is a symlink");
	free(p);
	p = path_of("links/cpu/s");
	ok(symlink(t, p) == 0, "cpu/s is a symlink");
	free(p);
	free(t);
	t = path_of("elsewhere/s");
	p = path_of("links/cpu/t");
	ok(symlink(t, p) == 0, "cpu/t is a symlink");
	free(p);
	free(t);

	conf = conf_for("links", 1, 1);
	retention_run(conf, NOW);
	is_list("elsewhere/s", "20261128T061500Z.pb.gz latest.svg",
	    "nothing deleted through a symlink");
	is_list("links/cpu", "s t", "the symlinks themselves stay");
	config_free(conf);

	/* A missing output directory is no error. */
	conf = conf_for("nonexistent", 1, 1);
	retention_run(conf, NOW);
	ok(1, "a missing output directory");
	config_free(conf);
}

int
main(void)
{
	char	*cmd;

	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_classify();
	test_age();
	test_forever();
	test_size();
	test_size_many();
	test_cache();
	test_symlinks();

	xasprintf(&cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("cannot remove the scratch directory");
	free(cmd);
	return done_testing();
}
