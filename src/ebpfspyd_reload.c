/*
 * Reload: parse the new configuration completely before touching
 * anything, so a broken file never costs the running daemon its
 * configuration.  Then every subsystem takes the live changes, and the
 * old configuration is freed only once nothing refers to it.  When a
 * reload runs is reload.c's (a burst of requests makes one), where a
 * request comes from is watch.c's and the signals'; both call back
 * here, so neither knows the daemon.
 */
#include <stdlib.h>
#include <unistd.h>

#include <ev.h>

#include "round/collect.h"
#include "config.h"
#include "ebpfspyd.h"
#include "util/log.h"
#include "metrics/metrics.h"
#include "round/pids.h"
#include "reload.h"
#include "push/debuginfod.h"
#include "sym/resolve.h"
#include "session/session.h"
#include "sink/sinks.h"

int
ebpfspyd_reload(struct ebpfspyd *d)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*old = d->conf, *new;
	struct session_change	*change;
	size_t			 i;
	int			 fd;

	log_debug("reloading %s", d->conf_path);
	if ((new = config_load(d->conf_path, d->conf_missing_ok,
	    &errs)) == NULL) {
		for (i = 0; i < errs.n; i++)
			log_warnx("%s", errs.v[i]);
		config_errors_clear(&errs);
		log_warnx("reload failed, keeping the previous configuration");
		d->reload_failures++;
		return -1;
	}
	/*
	 * A file of no section and no key is most likely one caught
	 * between an editor's truncate and its write: applying it would
	 * reset every key.  A section header alone says "defaults".
	 */
	if (new->empty) {
		log_warnx("%s: no section and no key, keeping the previous "
		    "configuration (write a section header such as [daemon] "
		    "for the defaults)", d->conf_path);
		config_free(new);
		d->reload_failures++;
		return -1;
	}
	config_keep_restart(old, new);
	ebpfspyd_conf_override(d, new);

	/* A directory another daemon writes is refused before BPF changes. */
	if (ebpfspyd_daemon_outdir_lock(d, new, &fd) == -1) {
		log_warnx("%s: [output] dir: keeping the previous "
		    "configuration", d->conf_path);
		config_free(new);
		d->reload_failures++;
		return -1;
	}
	/*
	 * The BPF side is the only part that can refuse a change; the
	 * process table and the symbolizer only copy values.  What can
	 * fail is prepared first; a refusal leaves BPF as it was.
	 */
	if ((change = session_prepare(d->session, new)) == NULL) {
		log_warnx("%s: cannot apply to the BPF session, keeping the "
		    "previous configuration", d->conf_path);
		if (fd != d->outdir_fd && fd != -1)
			close(fd);
		config_free(new);
		d->reload_failures++;
		return -1;
	}
	session_commit(d->session, change);
	/* Opened again even if unchanged: logrotate may have moved it. */
	if (log_file_open(ebpfspyd_log_path(d, new), new->log_file_bytes) ==
	    -1)
		log_warn("log file %s: keeping the previous log",
		    ebpfspyd_log_path(d, new));
	if (sinks_configure(d->sinks, new) == -1)
		log_warnx("%s: [pyroscope]: keeping the previous push settings",
		    d->conf_path);
	pids_configure(d->pids, new);
	resolve_configure(d->resolve, new);
	debuginfod_configure(d->debuginfod, new);
	/* A listener that cannot move keeps the old one: no reason to fail. */
	if (metrics_configure(d->metrics, new) == -1)
		log_warnx("%s: [metrics] listen: keeping the previous listener",
		    d->conf_path);

	ebpfspyd_daemon_outdir_hold(d, fd);
	d->conf = new;
	if (new->collect_interval != old->collect_interval &&
	    ebpfspyd_timer_set(d) == -1)
		log_warnx("collect_interval: keeping the previous timer");
	config_free(old);
	d->reloads++;
	log_info("reloaded %s", d->conf_path);
	return 0;
}

/* SIGHUP, or the file changed: reload soon, once for a burst. */
void
ebpfspyd_reload_ask(struct ebpfspyd *d)
{
	if (d->reload == NULL || d->exiting)
		return;
	reload_schedule(d->reload);
}

/* For watch_open(): the file watched changed. */
void
ebpfspyd_reload_ask_cb(void *arg)
{
	ebpfspyd_reload_ask(arg);
}

/* For reload_create(): the burst of requests is over. */
void
ebpfspyd_reload_cb(void *arg)
{
	ebpfspyd_reload(arg);
}
