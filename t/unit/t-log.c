/*
 * log: the same warning, word for word, goes out at most 5 times a
 * minute and then once with how often it came; other warnings and info
 * lines are not held back; a starting daemon's warnings and fatal
 * message also go to the waiting parent, one "-message" line each.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "tap.h"

static int	 saved_stderr = -1;
static int	 capture_fd[2];

/* Send stderr to a pipe until capture_end(). */
static void
capture_start(void)
{
	fflush(stderr);
	if (pipe(capture_fd) == -1 ||
	    fcntl(capture_fd[0], F_SETFL, O_NONBLOCK) == -1 ||
	    (saved_stderr = dup(STDERR_FILENO)) == -1 ||
	    dup2(capture_fd[1], STDERR_FILENO) == -1)
		abort();
}

/* What went to stderr since capture_start(), as a string. */
static char *
capture_end(void)
{
	static char	 buf[65536];
	ssize_t		 n;
	size_t		 len = 0;

	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	close(capture_fd[1]);
	while (len < sizeof(buf) - 1 &&
	    (n = read(capture_fd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(capture_fd[0]);
	buf[len] = '\0';
	return buf;
}

static int
count(const char *s, const char *line)
{
	const char	*p;
	int		 n = 0;
	size_t		 len = strlen(line);

	for (p = s; (p = strstr(p, line)) != NULL; p += len)
		if ((p == s || p[-1] == '\n') && p[len] == '\n')
			n++;
	return n;
}

int
main(void)
{
	char	*out, buf[4096];
	int	 i, fds[2];
	ssize_t	 n;

	log_init(1, 0);

	capture_start();
	for (i = 0; i < 20; i++)
		log_warnx("read %s: %s", "/proc/42/maps", "Permission denied");
	log_warnx("read /proc/43/maps: Permission denied");
	for (i = 0; i < 8; i++)
		log_info("round %d done", 1);
	out = capture_end();
	is_int(count(out, "read /proc/42/maps: Permission denied"), 5,
	    "a warning repeated 20 times goes out 5 times");
	is_int(count(out, "read /proc/43/maps: Permission denied"), 1,
	    "another object's warning goes out");
	is_int(count(out, "round 1 done"), 8, "info lines are not held back");

	/* The parent's pipe: warnings and worse, one line each. */
	log_init(0, 0);
	if (pipe(fds) == -1)
		abort();
	log_startfd(fds[1]);
	log_warnx("without CAP_SYSLOG: kernel frames\nunnamed");
	log_info("ready: not for the parent");
	log_startfd(-1);
	log_warnx("after ready: not for the parent");
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	is_str(buf, "-without CAP_SYSLOG: kernel frames unnamed\n",
	    "a starting daemon sends its warnings to the parent, one line");
	close(fds[0]);
	return done_testing();
}
