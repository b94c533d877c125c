/*
 * reload.c and watch.c on a loop of their own, with no daemon: a burst
 * of requests makes one reload, after the delay; the file written,
 * renamed into place or created and written again asks for one; a
 * write to another file of the directory does not.  Since they take
 * callbacks, nothing of ebpfspyd is needed to run them.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ev.h>

#include "reload.h"
#include "tap.h"
#include "util/xmalloc.h"
#include "watch.h"

struct state {
	struct ev_loop	*loop;
	struct reload	*reload;
	int		 asked;		/* changed_cb calls */
	int		 applied;	/* apply_cb calls */
	ev_tstamp	 first_ask;
	ev_tstamp	 applied_at;
};

static void
apply_cb(void *arg)
{
	struct state	*s = arg;

	s->applied++;
	s->applied_at = ev_now(s->loop);
}

static void
changed_cb(void *arg)
{
	struct state	*s = arg;

	if (s->asked++ == 0)
		s->first_ask = ev_now(s->loop);
	reload_schedule(s->reload);
}

static void
stop_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	ev_break(loop, EVBREAK_ALL);
}

/* Run the loop for secs: long enough for the delay and the events. */
static void
run(struct state *s, double secs)
{
	ev_timer	 t;

	ev_timer_init(&t, stop_cb, secs, 0.);
	ev_timer_start(s->loop, &t);
	ev_run(s->loop, 0);
	ev_timer_stop(s->loop, &t);
}

static void
write_file(const char *path, const char *text)
{
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    close(fd) == -1) {
		perror(path);
		exit(1);
	}
}

int
main(void)
{
	struct state	 s;
	struct watch	*w;
	char		 dir[] = "/tmp/t-config_reload.XXXXXX";
	char		*path, *tmp, *other;
	ev_tstamp	 start;

	memset(&s, 0, sizeof(s));
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	xasprintf(&path, "%s/ebpfspy.conf", dir);
	xasprintf(&tmp, "%s/ebpfspy.conf.new", dir);
	xasprintf(&other, "%s/other.log", dir);
	write_file(path, "[daemon]\n");
	s.loop = ev_loop_new(EVFLAG_AUTO);
	s.reload = reload_create(s.loop, apply_cb, &s);

	/* A burst of requests: one reload, after the delay. */
	ev_now_update(s.loop);
	start = ev_now(s.loop);
	reload_schedule(s.reload);
	reload_schedule(s.reload);
	reload_schedule(s.reload);
	run(&s, 1.0);
	is_int(s.applied, 1, "a burst of three requests: one reload");
	ok(s.applied_at - start >= 0.15 && s.applied_at - start < 0.9,
	    "after the delay (%.3f s)", s.applied_at - start);

	w = watch_open(s.loop, path, changed_cb, &s);
	ok(w != NULL, "watch_open");

	/* Written in place: closed after writing. */
	s.asked = s.applied = 0;
	write_file(path, "[daemon]\ncollect_interval = 10\n");
	run(&s, 1.0);
	ok(s.asked >= 1, "a write asks for a reload (%d)", s.asked);
	is_int(s.applied, 1, "a write: one reload");

	/* Renamed into place, as editors save. */
	s.asked = s.applied = 0;
	write_file(tmp, "[daemon]\ncollect_interval = 20\n");
	if (rename(tmp, path) == -1)
		perror("rename");
	run(&s, 1.0);
	ok(s.asked >= 1, "a rename onto the name asks for a reload");
	is_int(s.applied, 1, "a rename: one reload");

	/* Removed, then created again and written: followed anew. */
	s.asked = s.applied = 0;
	unlink(path);
	run(&s, 0.3);
	is_int(s.applied, 0, "removed: no reload");
	write_file(path, "[daemon]\ncollect_interval = 30\n");
	run(&s, 1.0);
	is_int(s.applied, 1, "created again: one reload");
	s.asked = s.applied = 0;
	write_file(path, "[daemon]\ncollect_interval = 40\n");
	run(&s, 1.0);
	is_int(s.applied, 1, "the new file's writes are watched");

	/* Another file of the directory: nothing. */
	s.asked = s.applied = 0;
	write_file(other, "a line of a log\n");
	run(&s, 0.5);
	is_int(s.asked, 0, "another file written: no request");
	is_int(s.applied, 0, "another file written: no reload");

	/* A pending reload is dropped with the reload, not run. */
	s.applied = 0;
	reload_schedule(s.reload);
	watch_close(w);
	reload_free(s.reload);
	run(&s, 0.5);
	is_int(s.applied, 0, "freed while pending: not run");
	watch_close(NULL);
	reload_free(NULL);

	ev_loop_destroy(s.loop);
	unlink(path);
	unlink(other);
	rmdir(dir);
	free(path);
	free(tmp);
	free(other);
	return done_testing();
}
