/*
 * Logging in the style of OpenBSD daemons: to stderr in the foreground,
 * to syslog when daemonized.  log_warn() appends strerror(errno) and
 * leaves errno as it was.  A daemon that is starting also copies its
 * warnings and its fatal message to the parent waiting for it
 * (log_startfd()), which prints them on the terminal whether or not
 * there is a syslog.  A log file (log_file_open()) takes the place of
 * syslog, and is written beside stderr in the foreground: a size
 * bounds it, the file full is renamed FILE.1 (the one before is
 * dropped) and a new one started.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int	 log_foreground = 1;
static int	 log_verbose;
static int	 log_start_fd = -1;
static const char *log_name = "ebpfspyd";

static int	 log_file_fd = -1;
static char	*log_file_path;
static long long log_file_max;		/* bytes; 0: no bound */
static long long log_file_size;

/*
 * The same warning, word for word, is logged at most LOG_LIMIT_BURST
 * times a LOG_LIMIT_SECONDS; then how often it came is said once the
 * time is up and it comes again.  A warning names its object, so one
 * that fails every round says so a few times, not thousands.
 */
#define LOG_LIMIT_SLOTS		64
#define LOG_LIMIT_BURST		5
#define LOG_LIMIT_SECONDS	60
static struct log_limit {
	uint64_t	 hash;
	time_t		 start;
	unsigned	 n;
} log_limits[LOG_LIMIT_SLOTS];

void
log_init(int foreground, int verbose)
{
	log_foreground = foreground;
	log_verbose = verbose;
	if (!foreground)
		openlog(log_name, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	tzset();
}

void
log_setverbose(int v)
{
	log_verbose = v;
}

int
log_getverbose(void)
{
	return log_verbose;
}

int
log_isforeground(void)
{
	return log_foreground;
}

void
log_startfd(int fd)
{
	log_start_fd = fd;
}

/*
 * One line to the waiting parent: "-" and the message.  The pipe does
 * not block; a message that does not fit is lost, as the parent is
 * reading, not as the daemon waits.
 */
static void	log_out_(int, const char *);

static void
log_tostart(int pri, const char *msg)
{
	char	 buf[1024], *p;
	size_t	 len;

	if (log_start_fd == -1 || pri > LOG_WARNING)
		return;
	/* Room for the newline: snprintf stops a byte short of the end. */
	(void)snprintf(buf, sizeof(buf) - 1, "-%s", msg);
	for (p = buf; (p = strchr(p, '\n')) != NULL; p++)
		*p = ' ';
	len = strlen(buf);
	buf[len++] = '\n';
	if (write(log_start_fd, buf, len) == -1)
		return;		/* the parent is gone: nobody to tell */
}

/* Whether a warning may go out now; 0: it is one too many. */
static int
log_limit(int pri, const char *msg)
{
	struct log_limit	*l;
	struct timespec		 ts;
	char			 buf[1024];
	uint64_t		 h = 1469598103934665603ULL;	/* FNV-1a */
	const char		*p;
	unsigned		 over;

	if (pri != LOG_WARNING)
		return 1;
	for (p = msg; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	l = &log_limits[h % LOG_LIMIT_SLOTS];
	if (l->hash != h || ts.tv_sec - l->start >= LOG_LIMIT_SECONDS) {
		over = l->hash == h && l->n > LOG_LIMIT_BURST ?
		    l->n - LOG_LIMIT_BURST : 0;
		l->hash = h;
		l->start = ts.tv_sec;
		l->n = 0;
		if (over > 0) {
			snprintf(buf, sizeof(buf), "%s (and %u times more in "
			    "%d s)", msg, over, LOG_LIMIT_SECONDS);
			l->n++;
			log_out_(pri, buf);
			return 0;
		}
	}
	return ++l->n <= LOG_LIMIT_BURST;
}

/*
 * Open path as the log, appended to and at most maxbytes big (0: no
 * bound), in the place of the one open; NULL or "": no log file.  -1
 * with errno and the old file kept if it cannot be opened.
 */
int
log_file_open(const char *path, long long maxbytes)
{
	struct stat	 st;
	char		*copy = NULL;
	int		 fd = -1, saved_errno;

	if (path != NULL && *path != '\0') {
		if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND |
		    O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0640)) == -1)
			return -1;
		if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
			errno = EINVAL;		/* a log is a file */
		else if (fstat(fd, &st) == 0)
			copy = strdup(path);
		if (copy == NULL) {
			saved_errno = errno;
			close(fd);
			errno = saved_errno;
			return -1;
		}
		log_file_size = st.st_size;
	}
	if (log_file_fd != -1)
		close(log_file_fd);
	free(log_file_path);
	log_file_fd = fd;
	log_file_path = copy;
	log_file_max = maxbytes;
	return 0;
}

/* The file full: it becomes FILE.1, and a new one starts. */
static void
log_file_rotate(void)
{
	char	 old[4096];
	int	 fd;

	if (snprintf(old, sizeof(old), "%s.1", log_file_path) >=
	    (int)sizeof(old) || rename(log_file_path, old) == -1)
		goto truncate;
	if ((fd = open(log_file_path, O_WRONLY | O_CREAT | O_APPEND |
	    O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0640)) == -1)
		goto truncate;
	close(log_file_fd);
	log_file_fd = fd;
	log_file_size = 0;
	return;
truncate:
	/* Nowhere to put the old lines: they go, the bound holds. */
	if (ftruncate(log_file_fd, 0) == 0)
		log_file_size = 0;
}

/* One stamped line for each line of msg. */
static void
log_file_write(int pri, const char *msg)
{
	static const char *const levels[] = {
		"emerg", "alert", "crit", "error", "warning", "notice",
		"info", "debug"
	};
	char		 line[1200], stamp[32];
	struct tm	 tm;
	time_t		 now = time(NULL);
	const char	*nl;
	int		 n, len;

	if (localtime_r(&now, &tm) == NULL ||
	    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S%z", &tm) == 0)
		stamp[0] = '\0';
	do {
		nl = strchr(msg, '\n');
		len = nl != NULL ? (int)(nl - msg) : (int)strlen(msg);
		n = snprintf(line, sizeof(line), "%s %s[%ld]: %s: %.*s\n",
		    stamp, log_name, (long)getpid(), levels[pri & 7], len,
		    msg);
		if (n < 0)
			return;
		if (n >= (int)sizeof(line)) {
			n = sizeof(line) - 1;
			line[n - 1] = '\n';
		}
		if (log_file_max > 0 && log_file_size > 0 &&
		    log_file_size + n > log_file_max)
			log_file_rotate();
		if (write(log_file_fd, line, n) == n)
			log_file_size += n;
		msg = nl != NULL ? nl + 1 : NULL;
	} while (msg != NULL && *msg != '\0');
}

static void
log_out(int pri, const char *msg)
{
	if (log_limit(pri, msg))
		log_out_(pri, msg);
}

static void
log_out_(int pri, const char *msg)
{
	if (log_file_fd != -1) {
		log_file_write(pri, msg);
		if (!log_foreground) {
			log_tostart(pri, msg);
			return;
		}
	}
	if (log_foreground) {
		fprintf(stderr, "%s\n", msg);
		fflush(stderr);
		return;
	}
	syslog(pri, "%s", msg);
	log_tostart(pri, msg);
}

void
log_procname(const char *name)
{
	log_name = name;
}

void
vlog(int pri, const char *fmt, va_list ap)
{
	char	 buf[1024], *msg = buf;
	va_list	 ap2;
	size_t	 len;
	int	 n, saved_errno = errno;

	va_copy(ap2, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	/* A verifier log is long: it goes out whole. */
	if (n >= (int)sizeof(buf) && vasprintf(&msg, fmt, ap2) == -1)
		msg = buf;
	va_end(ap2);
	/* libbpf's messages end in a newline of their own. */
	len = strlen(msg);
	while (len > 0 && msg[len - 1] == '\n')
		msg[--len] = '\0';
	log_out(pri, msg);
	if (msg != buf)
		free(msg);
	errno = saved_errno;
}

static void
vlog_errno(int pri, const char *fmt, va_list ap)
{
	char	 buf[1024];
	int	 saved_errno = errno;

	if (fmt == NULL) {
		snprintf(buf, sizeof(buf), "%s", strerror(saved_errno));
	} else {
		vsnprintf(buf, sizeof(buf), fmt, ap);
		strncat(buf, ": ", sizeof(buf) - strlen(buf) - 1);
		strncat(buf, strerror(saved_errno),
		    sizeof(buf) - strlen(buf) - 1);
	}
	log_out(pri, buf);
	errno = saved_errno;
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog_errno(LOG_WARNING, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog_errno(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}
