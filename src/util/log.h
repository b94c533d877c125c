#ifndef EBPFSPY_LOG_H
#define EBPFSPY_LOG_H

#include <stdarg.h>

/* Verbosity: 0 info, 1 debug (-v), 2 more debug (-vv). */
void	log_init(int foreground, int verbose);
void	log_setverbose(int);
int	log_getverbose(void);
int	log_isforeground(void);
/* Daemonized and starting: warnings and fatal messages go to fd too. */
void	log_startfd(int);
void	log_procname(const char *);
/* Log to path, at most maxbytes (0: unbounded); NULL: not to a file. */
int	log_file_open(const char *, long long);

void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	vlog(int, const char *, va_list) __attribute__((format(printf, 2, 0)));

#endif
