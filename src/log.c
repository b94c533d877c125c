/*
 * Logging in the style of OpenBSD daemons: to stderr in the foreground,
 * to syslog when daemonized.  log_warn() appends strerror(errno) and
 * leaves errno as it was.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static int	 log_foreground = 1;
static int	 log_verbose;
static const char *log_name = "ebpfspyd";

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

void
log_procname(const char *name)
{
	log_name = name;
}

void
vlog(int pri, const char *fmt, va_list ap)
{
	int	 saved_errno = errno;

	if (log_foreground) {
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		fflush(stderr);
	} else
		vsyslog(pri, fmt, ap);
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
	if (log_foreground) {
		fprintf(stderr, "%s\n", buf);
		fflush(stderr);
	} else
		syslog(pri, "%s", buf);
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
