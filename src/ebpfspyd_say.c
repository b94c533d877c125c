/*
 * What the daemon says of itself: its state on SIGUSR1, a line per
 * round, and at exit where the profiles are and which flame graph to
 * open first.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <ev.h>

#include "config.h"
#include "dwarf/srcline.h"
#include "ebpfspyd.h"
#include "round/collect.h"
#include "round/pids.h"
#include "session/session.h"
#include "sink/sinks.h"
#include "sym/symfile.h"
#include "sym/symstats.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/xmalloc.h"

void
ebpfspyd_log_state(struct ebpfspyd *d)
{
	struct config	*c = d->conf;
	uint64_t	 stats[PROFILE_STAT_MAX];
	char		 line[256];
	size_t		 i, used;
	double		 uptime;

	/* Execs and exits that did not wake us count too. */
	session_drain_events(d->session);
	uptime = (clock_ns(CLOCK_MONOTONIC) - d->started) / 1e9;
	log_info("state: config %s, uptime %.1fs, rounds %llu (%llu failed), "
	    "reloads %llu, reload failures %llu", d->conf_path, uptime,
	    (unsigned long long)d->rounds,
	    (unsigned long long)d->round_failures,
	    (unsigned long long)d->reloads,
	    (unsigned long long)d->reload_failures);
	log_info("state: collect_interval %lld, sample_rate %lld, cpu %s, "
	    "offcpu %s, output %s", c->collect_interval, c->sample_rate,
	    c->cpu ? "yes" : "no", c->offcpu ? "yes" : "no", c->output_dir);
	pids_log_state(d->pids);
	collect_log_state(d->collect);
	symfile_log_state();
	srcline_log_state();
	symstats_log_state();
	sinks_log_state(d->sinks);
	xmalloc_log_state();

	/* The BPF counters, a few to a line. */
	session_stats(d->session, stats);
	used = 0;
	for (i = 0; i < PROFILE_STAT_MAX; i++) {
		used += snprintf(line + used, sizeof(line) - used, " %s %llu",
		    session_stat_name(i),
		    (unsigned long long)stats[i]);
		if (used >= sizeof(line))
			used = sizeof(line) - 1;	/* truncated */
		if (i % 5 == 4 || i == PROFILE_STAT_MAX - 1 ||
		    used >= sizeof(line) - 64) {
			log_info("state: bpf%s", line);
			used = 0;
		}
	}
	log_info("state: end");
}

/* Samples lost: in the kernel for want of room, or stacks gone. */
static uint64_t
ebpfspyd_lost(struct ebpfspyd *d, const struct collect_stats *cs)
{
	uint64_t	 st[PROFILE_STAT_MAX];

	session_stats(d->session, st);
	return st[PROFILE_STAT_PID_MAP_FULL] + st[PROFILE_STAT_COUNTS_FULL] +
	    st[PROFILE_STAT_STACKS_FULL] + st[PROFILE_STAT_RINGBUF_LOST] +
	    cs->lost_stacks;
}

/*
 * A line for each round: what it wrote and what it took.  Said at the
 * default verbosity in the foreground, where someone watches; a
 * daemon's log says it only with -v.
 */
void
ebpfspyd_round_log(struct ebpfspyd *d)
{
	struct collect_stats	 cs;
	struct sinks_info	 si;
	uint64_t		 lost;
	char			 offcpu[64], losses[64];
	void			 (*say)(const char *, ...);

	collect_stats(d->collect, &cs);
	sinks_info(d->sinks, &si);
	lost = ebpfspyd_lost(d, &cs);
	offcpu[0] = losses[0] = '\0';
	if (d->conf->offcpu)
		snprintf(offcpu, sizeof(offcpu), ", %.1f s off-CPU",
		    (cs.offcpu_ns - d->said_offcpu_ns) / 1e9);
	if (lost > d->said_lost)
		snprintf(losses, sizeof(losses), ", %llu lost",
		    (unsigned long long)(lost - d->said_lost));
	say = log_isforeground() ? log_info : log_debug;
	say("round %llu done: %zu profile%s of %zu service%s, %llu sample%s%s%s"
	    ", %.0f ms", (unsigned long long)cs.rounds, si.profiles,
	    si.profiles == 1 ? "" : "s", si.services,
	    si.services == 1 ? "" : "s",
	    (unsigned long long)(cs.samples - d->said_samples),
	    cs.samples - d->said_samples == 1 ? "" : "s", offcpu, losses,
	    cs.last_ms);
	d->said_samples = cs.samples;
	d->said_offcpu_ns = cs.offcpu_ns;
	d->said_lost = lost;
	d->said_profiles += si.profiles;
}

/*
 * At exit: where the profiles are, and which flame graph to open: one
 * that holds the run, last-hour.svg (made of the .folded files) when
 * the run was shorter than an hour, else the last hour of it; without
 * .folded files, latest.svg, the last round (with the final one).
 * None when no named service was sampled on-CPU.
 */
void
ebpfspyd_summary(struct ebpfspyd *d)
{
	struct sinks_info	 si;
	void			 (*say)(const char *, ...);
	const char		*dir = d->conf->output_dir, *what;
	int64_t			 ran;

	say = log_isforeground() ? log_info : log_debug;
	sinks_info(d->sinks, &si);
	if (d->said_profiles == 0) {
		say("no profile written: nothing was sampled");
		return;
	}
	say("%llu profile%s in %s", (unsigned long long)d->said_profiles,
	    d->said_profiles == 1 ? "" : "s", dir);
	if (si.busiest == NULL || !d->conf->svg)
		return;
	if (!d->conf->folded) {
		say("open %s/cpu/%s/latest.svg first: the last round",
		    dir, si.busiest);
		return;
	}
	ran = clock_ns(CLOCK_MONOTONIC) - d->started;
	what = ran < 3600 * 1000000000LL ? "the last hour, this run in full" :
	    "the last hour of the run";
	say("open %s/cpu/%s/last-hour.svg first: %s", dir, si.busiest, what);
}
