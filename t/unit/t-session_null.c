/*
 * A reload over the null session whose prepare fails, as the off-CPU
 * attach of a real one can: ebpfspyd_reload() refuses the new config before
 * anything takes it -- the session keeps its rate, the process table
 * its targets, the daemon its config.  Then one whose prepare succeeds.
 */
#include "tap.h"
#include "roundfix.h"
#include "ebpfspyd.h"
#include "metrics/metrics.h"
#include "reload.h"

/* The config file: kid under service, at rate Hz. */
static void
write_conf(struct roundfix *f, pid_t kid, const char *service, int rate)
{
	char	*extra;

	xasprintf(&extra, "[target \"%s\"]\npid = %d\n"
	    "label.service_name = %s\n", service, (int)kid, service);
	f->rate = rate;
	config_free(roundfix_conf(f, extra));
	free(extra);
}

int
main(void)
{
	struct roundfix		 f;
	struct ebpfspyd		 d;
	struct config		*before;
	char			*folded;
	pid_t			 kid;

	kid = roundfix_start(&f, "old", "");
	roundfix_exec(&f, kid, "kid", 1, 5);
	session_drain_events(f.s);
	is_int(session_null_rate(f.s), 100, "the session samples at 100 Hz");

	memset(&d, 0, sizeof(d));
	d.loop = f.loop;
	d.conf = f.conf;
	d.conf_path = f.path;
	d.session = f.s;
	d.pids = f.p;
	d.resolve = f.r;
	d.sinks = f.sinks;
	d.metrics = metrics_create(f.loop, f.conf, NULL, NULL);
	d.timer_fd = -1;
	d.outdir_fd = -1;
	before = d.conf;

	write_conf(&f, kid, "new", 200);
	session_null_fail_prepare(f.s, 1);
	is_int(ebpfspyd_reload(&d), -1, "the reload is refused");
	ok(d.conf == before, "the old config stays in force");
	is_int(d.reload_failures, 1, "counted as a failure");
	is_int(session_null_rate(f.s), 100, "the session's rate is the old");
	is_int(collect_round(f.c, d.conf, 0), 0, "round");
	folded = roundfix_folded(&f, "cpu", "old");
	roundfix_has(folded, "kid;round_caller;round_leaf_a 5\n",
	    "the samples go to the old target");
	free(folded);

	session_null_fail_prepare(f.s, 0);
	is_int(ebpfspyd_reload(&d), 0, "the same reload, prepared, is done");
	f.conf = d.conf;
	is_int(d.conf->sample_rate, 200, "the new config is in force");
	is_int(session_null_rate(f.s), 200, "the session samples at 200 Hz");
	roundfix_count(&f, kid, PROFILE_KIND_CPU, 2, 4);
	is_int(collect_round(f.c, d.conf, 0), 0, "round");
	folded = roundfix_folded(&f, "cpu", "new");
	roundfix_has(folded, "kid;round_caller;round_leaf_b 4\n",
	    "the samples go to the new target");
	free(folded);

	metrics_free(d.metrics);
	roundfix_close(&f);
	return done_testing();
}
