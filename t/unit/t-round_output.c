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

int
main(void)
{
	test_outlive_collect();
	test_batch_freed();
	return done_testing();
}
