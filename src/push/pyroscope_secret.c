/*
 * Secrets kept out of the config file, which every user may be able to
 * read: the password, the bearer token and header values, each the
 * first line of a file of its own (as Grafana Alloy's *_file settings).
 * A file is read when the config is loaded, so that one that is missing
 * or unreadable is a config error at its line and a reload keeps the
 * old config; then again before each request, so that a rotated secret
 * is used.  What a file holds is never logged, only its path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config/config.h"
#include "pyroscope.h"
#include "pyroscope_conf.h"
#include "util/xmalloc.h"

#define PYROSCOPE_SECRET_MAX	8192	/* bytes of a secret's file */
#define PYROSCOPE_HFILES_MAX	16	/* header_file.NAME lines */

char *
pyroscope_secret_read(const char *path, const char **why)
{
	char	 buf[PYROSCOPE_SECRET_MAX + 1], *s = NULL, *e;
	ssize_t	 r;
	size_t	 got = 0;
	int	 fd;

	/* Non-blocking: a FIFO must not stop the daemon in open(). */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1) {
		*why = strerror(errno);
		return NULL;
	}
	while (got < sizeof(buf) - 1) {
		r = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			*why = strerror(errno);
			close(fd);
			explicit_bzero(buf, got);
			return NULL;
		}
		if (r == 0)
			break;
		got += r;
	}
	close(fd);
	buf[got] = '\0';
	*why = NULL;
	if (memchr(buf, '\0', got) != NULL)
		*why = "binary data";
	else {
		if ((e = strchr(buf, '\n')) != NULL)
			*e = '\0';
		if ((e = strchr(buf, '\r')) != NULL && e[1] == '\0')
			*e = '\0';
		s = pyroscope_conf_trim(buf);
		if (!pyroscope_conf_is_text(s))
			*why = "control character";
		else if (*s == '\0')
			*why = "empty";
		else
			s = xstrdup(s);
	}
	explicit_bzero(buf, sizeof(buf));
	return *why == NULL ? s : NULL;
}

void
pyroscope_secret_free(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

/* A key's check: a path that is set must hold a secret now. */
const char *
pyroscope_secret_file_check(const char *path)
{
	const char	*why;
	char		*s;

	if (*path == '\0')
		return NULL;
	if ((s = pyroscope_secret_read(path, &why)) == NULL)
		return why;
	pyroscope_secret_free(s);
	return NULL;
}

const char *
pyroscope_secret_header_add(struct config *conf, const char *name,
    const char *path)
{
	const char	*why;
	size_t		 i, n = conf->pyroscope_nhfiles;

	if (*name == '\0')
		return "empty header name";
	for (i = 0; name[i] != '\0'; i++)
		if (!pyroscope_conf_is_tchar((unsigned char)name[i]))
			return "invalid character in a header name";
	if (*path == '\0')
		return "no file";
	if (n >= PYROSCOPE_HFILES_MAX)
		return "too many header files (at most 16)";
	for (i = 0; i < n; i++)
		if (strcasecmp(conf->pyroscope_hfile_names[i], name) == 0)
			return "duplicate header";
	if ((why = pyroscope_secret_file_check(path)) != NULL)
		return why;
	conf->pyroscope_hfile_names = xreallocarray(
	    conf->pyroscope_hfile_names, n + 1, sizeof(char *));
	conf->pyroscope_hfile_paths = xreallocarray(
	    conf->pyroscope_hfile_paths, n + 1, sizeof(char *));
	conf->pyroscope_hfile_names[n] = xstrdup(name);
	conf->pyroscope_hfile_paths[n] = xstrdup(path);
	conf->pyroscope_nhfiles = n + 1;
	return NULL;
}

void
pyroscope_secret_headers_free(struct config *conf)
{
	size_t	 i;

	for (i = 0; i < conf->pyroscope_nhfiles; i++) {
		free(conf->pyroscope_hfile_names[i]);
		free(conf->pyroscope_hfile_paths[i]);
	}
	free(conf->pyroscope_hfile_names);
	free(conf->pyroscope_hfile_paths);
	conf->pyroscope_hfile_names = NULL;
	conf->pyroscope_hfile_paths = NULL;
	conf->pyroscope_nhfiles = 0;
}

void
pyroscope_secret_headers_dump(const struct config *conf, FILE *f)
{
	size_t	 i;

	for (i = 0; i < conf->pyroscope_nhfiles; i++)
		fprintf(f, "header_file.%s = %s\n",
		    conf->pyroscope_hfile_names[i],
		    conf->pyroscope_hfile_paths[i]);
}
