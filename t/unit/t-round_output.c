/*
 * A round's output is the sinks': collect hands its profiles over and
 * keeps nothing, the sinks draw the flame graphs from them once the
 * loop is idle and then free them.  Run under ASan (configure
 * --enable-sanitizers) or valgrind, a profile freed before its flame
 * graph is drawn, or a batch never freed, is an error of its own.
 */
#include "tap.h"
#include "roundfix.h"
#include "profile/profile.h"

/* The text of a file, allocated; "" if it cannot be read. */
static char *
slurp(const char *path)
{
	char	*all;
	FILE	*fp;
	long	 n;

	if ((fp = fopen(path, "r")) == NULL)
		return xstrdup("");
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	all = xcalloc(1, n + 1);
	if (fread(all, 1, n, fp) != (size_t)n)
		all[0] = '\0';
	fclose(fp);
	return all;
}

/*
 * The round's profiles outlive collect's round, and collect itself:
 * latest.svg is drawn from them when the loop is idle.
 */
static void
test_outlive_collect(void)
{
	struct roundfix		 f;
	struct sinks_info	 si;
	struct stat		 sb;
	char			 path[256], *svg;
	pid_t			 kid;

	kid = roundfix_start(&f, "outlive", "");
	f.conf->svg = 1;
	roundfix_exec(&f, kid, "kid", 1, 5);
	is_int(collect_round(f.c, f.conf, 0), 0, "round");
	sinks_info(f.sinks, &si);
	is_int(si.held, 1, "the sinks hold the round's profile");
	snprintf(path, sizeof(path), "%s/out/cpu/outlive/latest.svg", f.dir);
	ok(stat(path, &sb) == -1, "latest.svg is not drawn within the round");

	/* The conductor is gone: the profiles were never its to keep. */
	collect_free(f.c);
	f.c = NULL;
	ev_run(f.loop, EVRUN_NOWAIT);
	svg = slurp(path);
	ok(strstr(svg, "round_leaf_a") != NULL,
	    "latest.svg drawn when idle, from the profile collect built");
	free(svg);
	sinks_info(f.sinks, &si);
	is_int(si.held, 0, "drawn, the profile is freed");
	roundfix_close(&f);
}

/* Profiles of a batch: n of a service each. */
static struct profile **
profiles(size_t n)
{
	struct profile	**v;
	const char	*frames[] = { "main", "work" };
	size_t		 i;

	v = xcalloc(n, sizeof(*v));
	for (i = 0; i < n; i++) {
		v[i] = profile_create(PROFILE_TYPE_CPU, 10000000, 0, 0);
		profile_label_set(v[i], "service_name", "batch");
		profile_add(v[i], frames, 2, i + 1);
	}
	return v;
}

/*
 * A batch handed to the sinks is freed by them: after the idle drawing,
 * at once without a loop, when the next round comes first, and
 * undrawn when they are freed.  The sanitizers tell a leak.
 */
static void
test_batch_freed(void)
{
	struct roundfix		 f;
	struct sinks_info	 si;
	struct sinks		*s;
	int64_t			 t = 1764670000LL * 1000000000;

	roundfix_start(&f, "batch", "");
	is_int(sinks_round(f.sinks, f.conf, sinks_batch_create(profiles(3), 3,
	    t, t + 1000000000)), 0, "a batch of 3");
	sinks_info(f.sinks, &si);
	is_int(si.held, 3, "held until the loop is idle");
	ev_run(f.loop, EVRUN_NOWAIT);
	sinks_info(f.sinks, &si);
	is_int(si.held, 0, "freed after the idle drawing");

	sinks_round(f.sinks, f.conf, sinks_batch_create(profiles(2), 2, t,
	    t + 2000000000));
	sinks_round(f.sinks, f.conf, sinks_batch_create(profiles(4), 4, t,
	    t + 3000000000));
	sinks_info(f.sinks, &si);
	is_int(si.held, 4, "the next round draws and frees the one before");
	/* No loop: drawn with the round. */
	s = sinks_create(NULL, f.conf);
	sinks_round(s, f.conf, sinks_batch_create(profiles(2), 2, t,
	    t + 4000000000));
	sinks_info(s, &si);
	is_int(si.held, 0, "without a loop, freed with the round");
	sinks_free(s);
	/* Stopping without a flush: freed undrawn. */
	s = sinks_create(f.loop, f.conf);
	sinks_round(s, f.conf, sinks_batch_create(profiles(2), 2, t,
	    t + 5000000000));
	sinks_info(s, &si);
	is_int(si.held, 2, "held, then the sinks are freed");
	sinks_free(s);
	roundfix_close(&f);
}

/* A batch of one profile: n samples of svc from start (ns) for dur. */
static struct sinks_batch *
batch_of(const char *svc, uint64_t n, int64_t start, int64_t dur)
{
	struct profile	**v;
	const char	*frames[] = { "main", "work" };

	v = xcalloc(1, sizeof(*v));
	v[0] = profile_create(PROFILE_TYPE_CPU, 10000000, start, dur);
	profile_label_set(v[0], "service_name", svc);
	profile_add(v[0], frames, 2, n);
	return sinks_batch_create(v, 1, start, start + dur);
}

/* The title of a service's flame graph, "" if there is none. */
static char *
title_of(struct roundfix *f, const char *svc, const char *name)
{
	char	 path[256], *svg, *s, *e, *t;

	snprintf(path, sizeof(path), "%s/out/cpu/%s/%s", f->dir, svc, name);
	svg = slurp(path);
	if ((s = strstr(svg, "<text id=\"title\"")) == NULL ||
	    (s = strchr(s, '>')) == NULL || (e = strchr(s, '<')) == NULL) {
		free(svg);
		return xstrdup("");
	}
	t = xstrndup(s + 1, e - s - 1);
	free(svg);
	return t;
}

/*
 * A run of a service: a full round of nfull samples (none if 0), then
 * the final one of nfinal samples lasting dur (ns); latest.svg's title
 * is to be want.
 */
static void
final_after(struct roundfix *f, const char *svc, uint64_t nfull,
    uint64_t nfinal, int64_t dur, const char *want, const char *what)
{
	struct sinks		*s;
	struct sinks_batch	*b;
	int64_t			 t = 1764670000LL * 1000000000;
	char			*title;

	s = sinks_create(NULL, f->conf);
	if (nfull > 0) {
		sinks_round(s, f->conf, batch_of(svc, nfull, t,
		    15000000000LL));
		t += 15000000000LL;
	}
	b = batch_of(svc, nfinal, t, dur);
	sinks_batch_final(b);
	sinks_round(s, f->conf, b);
	title = title_of(f, svc, "latest.svg");
	is_str(title, want, "%s", what);
	free(title);
	sinks_free(s);
}

/*
 * The final round at a stop comes a few ms after the round before (-t
 * a multiple of collect_interval): latest.svg shows both, not the few
 * samples of the last ms.  A run shorter than a round is its final
 * round alone; a final round of half a round or more stands alone.
 */
static void
test_final_short(void)
{
	struct roundfix		 f;
	char			*title;

	roundfix_start(&f, "final", "");
	f.conf->svg = 1;
	f.conf->collect_interval = 15;
	final_after(&f, "pic", 2850, 1, 10000000, "pic: cpu, 2,851 samples, "
	    "2025-12-02 10:06:40-10:06:55 UTC",
	    "a short final round: merged with the full one before");
	title = title_of(&f, "pic", "last-hour.svg");
	is_str(title, "pic: cpu, last hour, 2,851 samples, 2025-12-02 "
	    "10:06:40-10:06:55 UTC", "last-hour.svg: the run");
	free(title);
	final_after(&f, "solo", 0, 3, 2000000000, "solo: cpu, 3 samples, "
	    "2025-12-02 10:06:40-10:06:42 UTC",
	    "a run shorter than a round: its final round");
	final_after(&f, "full", 10, 4, 14900000000LL, "full: cpu, 4 samples, "
	    "2025-12-02 10:06:55-10:07:09 UTC",
	    "a final round but for 0.1 s full stands alone");
	final_after(&f, "half", 10, 4, 7500000000LL, "half: cpu, 4 samples, "
	    "2025-12-02 10:06:55-10:07:02 UTC",
	    "so does one of half a round");
	final_after(&f, "less", 10, 4, 7400000000LL, "less: cpu, 14 samples, "
	    "2025-12-02 10:06:40-10:07:02 UTC",
	    "one shorter than half a round is merged");
	/* Without folded files nothing to merge: the full round stays. */
	f.conf->folded = 0;
	final_after(&f, "nofold", 20, 1, 10000000, "nofold: cpu, 20 samples, "
	    "2025-12-02 10:06:40-10:06:55 UTC",
	    "no folded files: the full round's picture stays");
	roundfix_close(&f);
}

/* The flame graph to open first is a named service's. */
static void
test_busiest_named(void)
{
	struct roundfix		 f;
	struct sinks		*s;
	struct sinks_info	 si;
	int64_t			 t = 1764670000LL * 1000000000;

	roundfix_start(&f, "busiest", "");
	s = sinks_create(NULL, f.conf);
	sinks_round(s, f.conf, batch_of(f.conf->unknown_service, 500, t,
	    1000000000));
	sinks_info(s, &si);
	ok(si.busiest == NULL, "only unknown_service sampled: none");
	sinks_round(s, f.conf, batch_of("web", 5, t, 1000000000));
	sinks_info(s, &si);
	is_str(si.busiest != NULL ? si.busiest : "", "web",
	    "a named service, if less busy than unknown_service");
	sinks_free(s);
	roundfix_close(&f);
}

int
main(void)
{
	test_outlive_collect();
	test_batch_freed();
	test_final_short();
	test_busiest_named();
	return done_testing();
}
