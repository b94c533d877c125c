#ifndef EBPFSPY_PYROSCOPE_CONF_H
#define EBPFSPY_PYROSCOPE_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "pyroscope_req.h"

/*
 * The [pyroscope] settings the sink runs with, checked and parsed from a
 * config as a whole, so that a reload either takes all of them or none.
 * Internal to pyroscope.c; the unit tests use it too.
 */

struct config;

struct pyroscope_conf {
	char		*url;		/* no trailing '/'; NULL: off */
	int		 api;		/* enum pyroscope_api */
	char		*user;		/* basic auth; NULL: none */
	char		*password;
	char		*password_file;
	char		*bearer_file;	/* NULL: none */
	char		*bearer;	/* its token, as last read */
	char		*tenant;	/* X-Scope-OrgID; NULL: none */
	char		**headers;	/* "Name: value" */
	size_t		 nheaders;
	char		*tls_ca;
	char		*tls_cert;
	char		*tls_key;
	int		 tls_insecure;
	long		 timeout;	/* seconds */
	char		*spool_dir;
	uint64_t	 spool_max;
	double		 backoff_min;	/* seconds */
	double		 backoff_max;
	double		 flush_timeout;	/* seconds */
	size_t		 max_inflight;	/* requests at once */
	long long	 max_age;	/* seconds; 0: no limit */
	size_t		 max_profile_bytes;	/* uncompressed; 0: none */
	size_t		 max_profile_samples;	/* 0: no limit */
	struct pyroscope_globals labels;	/* label.NAME = VALUE */
	char		**hfile_names;	/* header_file.NAME = path */
	char		**hfile_paths;
	char		**hfile_lines;	/* "Name: value", as last read */
	size_t		 nhfiles;
	int		 secret_failed;	/* said that a file cannot be read */
};

/* NULL after logging when a value is unusable (a file cannot be read). */
struct pyroscope_conf *pyroscope_conf_create(const struct config *);
void		 pyroscope_conf_free(struct pyroscope_conf *);
/*
 * Re-read the secrets of the files (password, bearer token, headers), so
 * that a rotated one is used; on failure (logged once) keep the last
 * good.
 */
void		 pyroscope_conf_refresh(struct pyroscope_conf *);
/*
 * Split "Name: value | Name: value" into n headers; -1 when invalid.
 * Not ';': in the config file " ;" starts a comment.
 */
int		 pyroscope_conf_headers(const char *, char ***, size_t *,
		    const char **);
int		 pyroscope_conf_is_tchar(int);
int		 pyroscope_conf_is_text(const char *);
char		*pyroscope_conf_trim(char *);

/*
 * The first line of a secret's file, blanks trimmed; NULL and why (a
 * static string) if it cannot be read, is empty or holds control
 * characters.  Free it with pyroscope_secret_free(), which zeroes it.
 */
char		*pyroscope_secret_read(const char *, const char **);
void		 pyroscope_secret_free(char *);

#endif
