/*
 * The [pyroscope] settings.  Whatever ends up in an HTTP header line --
 * extra headers, the tenant, a token read from a file -- must not carry a
 * CR or LF, or it would forge headers; the config parser already refuses
 * control characters, files are checked here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>

#include "config/config.h"
#include "util/log.h"
#include "proc/target.h"
#include "pyroscope.h"
#include "pyroscope_conf.h"
#include "util/xmalloc.h"

#define PYROSCOPE_GLOBALS_MAX	16	/* label.NAME lines */
#define PYROSCOPE_LABEL_VALUE_MAX 1024	/* as pyroscope_req.c cuts them */
#define PYROSCOPE_XSTR(x)	#x
#define PYROSCOPE_STR(x)	PYROSCOPE_XSTR(x)

/* RFC 9110 tchar: the characters of a header name. */
int
pyroscope_conf_is_tchar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' &&
	    strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

int
pyroscope_conf_is_text(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

char *
pyroscope_conf_trim(char *s)
{
	char	*e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

int
pyroscope_conf_headers(const char *spec, char ***hp, size_t *np,
    const char **why)
{
	char	*copy, *item, *next, *colon, *name, *value, **h = NULL;
	size_t	 n = 0, i;

	*hp = NULL;
	*np = 0;
	copy = xstrdup(spec);
	for (item = copy; item != NULL; item = next) {
		if ((next = strchr(item, '|')) != NULL)
			*next++ = '\0';
		item = pyroscope_conf_trim(item);
		if (*item == '\0')
			continue;
		if ((colon = strchr(item, ':')) == NULL) {
			*why = "expected Name: value | Name: value";
			goto bad;
		}
		*colon = '\0';
		name = pyroscope_conf_trim(item);
		value = pyroscope_conf_trim(colon + 1);
		if (*name == '\0') {
			*why = "empty header name";
			goto bad;
		}
		for (i = 0; name[i] != '\0'; i++)
			if (!pyroscope_conf_is_tchar((unsigned char)name[i])) {
				*why = "invalid character in a header name";
				goto bad;
			}
		if (!pyroscope_conf_is_text(value)) {
			*why = "control character in a header value";
			goto bad;
		}
		h = xreallocarray(h, n + 1, sizeof(*h));
		xasprintf(&h[n++], "%s: %s", name, value);
	}
	free(copy);
	*hp = h;
	*np = n;
	return 0;
bad:
	free(copy);
	for (i = 0; i < n; i++)
		free(h[i]);
	free(h);
	return -1;
}

const char *
pyroscope_headers_check(const char *v)
{
	const char	*why = NULL;
	char		**h;
	size_t		 n, i;

	if (pyroscope_conf_headers(v, &h, &n, &why) == -1)
		return why;
	for (i = 0; i < n; i++)
		free(h[i]);
	free(h);
	return NULL;
}

const char *
pyroscope_url_check(const char *v)
{
	CURLU		*u;
	const char	*p;
	char		*host = NULL;
	int		 bad;

	if (*v == '\0')
		return NULL;
	if (strncasecmp(v, "http://", 7) == 0)
		p = v + 7;
	else if (strncasecmp(v, "https://", 8) == 0)
		p = v + 8;
	else
		return "expected an http:// or https:// URL";
	if (*p == '\0' || *p == '/')
		return "no host in URL";
	for (; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return "space or control character in URL";
		if (*p == '?' || *p == '#')
			return "URL has a query or fragment";
	}
	if ((u = curl_url()) == NULL)
		fatalx("curl_url");
	bad = curl_url_set(u, CURLUPART_URL, v, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    host == NULL || *host == '\0';
	curl_free(host);
	curl_url_cleanup(u);
	return bad ? "malformed URL" : NULL;
}

static const struct config_enum pyroscope_api_enum[] = {
	{ "push", PYROSCOPE_API_PUSH },
	{ "ingest", PYROSCOPE_API_INGEST },
	{ NULL, 0 }
};

/* [pyroscope]. */
const struct config_key pyroscope_conf_keys[] = {
	{ "pyroscope", "url", CONFIG_STRING, CONFIG_OFF(pyroscope_url), 0, 0,
	    NULL, "", CONFIG_LIVE,
	    "Pyroscope server, http(s)://host:port (empty: no push)",
	    pyroscope_url_check },
	{ "pyroscope", "api", CONFIG_ENUM, CONFIG_OFF(pyroscope_api), 0, 0,
	    pyroscope_api_enum, "push", CONFIG_LIVE,
	    "push (the Push API) or ingest (legacy /ingest)", NULL },
	{ "pyroscope", "basic_auth_user", CONFIG_STRING,
	    CONFIG_OFF(pyroscope_basic_auth_user), 0, 0, NULL, "", CONFIG_LIVE,
	    "HTTP basic auth user (empty: none)", NULL },
	{ "pyroscope", "basic_auth_password", CONFIG_STRING,
	    CONFIG_OFF(pyroscope_basic_auth_password), 0, 0, NULL, "",
	    CONFIG_LIVE, "HTTP basic auth password", NULL },
	{ "pyroscope", "basic_auth_password_file", CONFIG_STRING,
	    CONFIG_OFF(pyroscope_basic_auth_password_file), 0, 0, NULL, "",
	    CONFIG_LIVE, "file holding the basic auth password",
	    pyroscope_secret_file_check },
	{ "pyroscope", "bearer_token_file", CONFIG_STRING,
	    CONFIG_OFF(pyroscope_bearer_token_file), 0, 0, NULL, "",
	    CONFIG_LIVE, "file holding a bearer token (empty: none)",
	    pyroscope_secret_file_check },
	{ "pyroscope", "tenant_id", CONFIG_STRING,
	    CONFIG_OFF(pyroscope_tenant_id), 0, 0, NULL, "", CONFIG_LIVE,
	    "X-Scope-OrgID header (empty: none)", NULL },
	{ "pyroscope", "headers", CONFIG_STRING, CONFIG_OFF(pyroscope_headers),
	    0, 0, NULL, "", CONFIG_LIVE,
	    "extra headers, \"Name: value | Name: value\"",
	    pyroscope_headers_check },
	{ "pyroscope", "tls_ca_file", CONFIG_STRING,
	    CONFIG_OFF(pyroscope_tls_ca_file), 0, 0, NULL, "", CONFIG_LIVE,
	    "CA certificates to verify the server (empty: the system's)",
	    NULL },
	{ "pyroscope", "tls_cert_file", CONFIG_STRING,
	    CONFIG_OFF(pyroscope_tls_cert_file), 0, 0, NULL, "", CONFIG_LIVE,
	    "client certificate (empty: none)", NULL },
	{ "pyroscope", "tls_key_file", CONFIG_STRING,
	    CONFIG_OFF(pyroscope_tls_key_file), 0, 0, NULL, "", CONFIG_LIVE,
	    "client certificate's key", NULL },
	{ "pyroscope", "tls_insecure_skip_verify", CONFIG_BOOL,
	    CONFIG_OFF(pyroscope_tls_insecure_skip_verify), 0, 0, NULL, "no",
	    CONFIG_LIVE, "do not verify the server's certificate", NULL },
	{ "pyroscope", "timeout", CONFIG_INT, CONFIG_OFF(pyroscope_timeout), 1,
	    3600, NULL, "10", CONFIG_LIVE, "seconds one request may take",
	    NULL },
	{ "pyroscope", "spool_dir", CONFIG_STRING,
	    CONFIG_OFF(pyroscope_spool_dir), 0, 0, NULL, "", CONFIG_RESTART,
	    "where undelivered requests wait (empty: <[output] dir>/spool)",
	    NULL },
	{ "pyroscope", "spool_max_bytes", CONFIG_INT,
	    CONFIG_OFF(pyroscope_spool_max_bytes), 4096, 1LL << 40, NULL,
	    "268435456", CONFIG_LIVE,
	    "size of the spool; beyond it the oldest go", NULL },
	{ "pyroscope", "backoff_min", CONFIG_INT,
	    CONFIG_OFF(pyroscope_backoff_min), 1, 3600, NULL, "1", CONFIG_LIVE,
	    "seconds before the first retry", NULL },
	{ "pyroscope", "backoff_max", CONFIG_INT,
	    CONFIG_OFF(pyroscope_backoff_max), 1, 86400, NULL, "120",
	    CONFIG_LIVE, "longest wait between retries, seconds", NULL },
	{ "pyroscope", "max_request_bytes", CONFIG_INT,
	    CONFIG_OFF(pyroscope_max_request_bytes), 65536, 1LL << 30, NULL,
	    "4194304", CONFIG_LIVE,
	    "obsolete, ignored: a request holds one series", NULL },
	{ "pyroscope", "flush_timeout", CONFIG_INT,
	    CONFIG_OFF(pyroscope_flush_timeout), 0, 60, NULL, "5", CONFIG_LIVE,
	    "seconds to deliver at stop before spooling", NULL },
	{ "pyroscope", "max_inflight", CONFIG_INT,
	    CONFIG_OFF(pyroscope_max_inflight), 1, 64, NULL, "4", CONFIG_LIVE,
	    "requests in flight at once", NULL },
	{ "pyroscope", "max_age", CONFIG_INT, CONFIG_OFF(pyroscope_max_age), 0,
	    1LL << 31, NULL, "3600", CONFIG_LIVE,
	    "seconds after which a waiting profile is dropped (0: never)",
	    NULL },
	{ "pyroscope", "max_profile_bytes", CONFIG_INT,
	    CONFIG_OFF(pyroscope_max_profile_bytes), 0, 1LL << 30, NULL,
	    "4194304", CONFIG_LIVE,
	    "uncompressed pprof beyond which a profile is trimmed (0: none)",
	    NULL },
	{ "pyroscope", "max_profile_samples", CONFIG_INT,
	    CONFIG_OFF(pyroscope_max_profile_samples), 0, 1LL << 30, NULL,
	    "16000", CONFIG_LIVE,
	    "samples beyond which a profile is trimmed (0: no limit)", NULL },
	{ NULL }
};

/* Global labels --------------------------------------------------------- */

/* label.NAME = VALUE: a global label; NULL or why it cannot be. */
static const char *
pyroscope_conf_label_set(struct config *conf, const char *name,
    const char *value, int line, char *buf, size_t len)
{
	size_t	 i, n = conf->pyroscope_nlabels;

	/*
	 * The names every Pyroscope accepts, with or without its label
	 * sanitization: [a-zA-Z_][a-zA-Z0-9_]* (pkg/validation/validate.go,
	 * SanitizeLegacyLabelName); "__" names are the server's own and
	 * service_name is each target's.
	 */
	if (!target_label_name_is_valid(name))
		return "bad label name: [a-zA-Z_][a-zA-Z0-9_]* expected";
	if (strncmp(name, "__", 2) == 0)
		return "label names starting with __ are reserved";
	if (strcmp(name, "service_name") == 0)
		return "service_name is a target's label, not a global one";
	if (*value == '\0')
		return "empty value";
	if (strlen(value) > PYROSCOPE_LABEL_VALUE_MAX)
		return "value longer than "
		    PYROSCOPE_STR(PYROSCOPE_LABEL_VALUE_MAX) " bytes";
	if (n >= PYROSCOPE_GLOBALS_MAX)
		return "too many labels (at most "
		    PYROSCOPE_STR(PYROSCOPE_GLOBALS_MAX) ")";
	for (i = 0; i < n; i++)
		if (strcmp(conf->pyroscope_label_names[i], name) == 0)
			return "duplicate label";
	conf->pyroscope_label_names = xreallocarray(
	    conf->pyroscope_label_names, n + 1, sizeof(char *));
	conf->pyroscope_label_values = xreallocarray(
	    conf->pyroscope_label_values, n + 1, sizeof(char *));
	conf->pyroscope_label_names[n] = xstrdup(name);
	conf->pyroscope_label_values[n] = xstrdup(value);
	conf->pyroscope_nlabels = n + 1;
	return NULL;
}

static void
pyroscope_conf_labels_free(struct config *conf)
{
	size_t	 i;

	for (i = 0; i < conf->pyroscope_nlabels; i++) {
		free(conf->pyroscope_label_names[i]);
		free(conf->pyroscope_label_values[i]);
	}
	free(conf->pyroscope_label_names);
	free(conf->pyroscope_label_values);
	conf->pyroscope_label_names = NULL;
	conf->pyroscope_label_values = NULL;
	conf->pyroscope_nlabels = 0;
}

static void
pyroscope_conf_labels_dump(const struct config *conf, FILE *f)
{
	size_t	 i;

	for (i = 0; i < conf->pyroscope_nlabels; i++)
		fprintf(f, "label.%s = %s\n", conf->pyroscope_label_names[i],
		    conf->pyroscope_label_values[i]);
}

const struct config_section pyroscope_conf_labels = {
	"pyroscope", "label.", NULL, NULL, pyroscope_conf_label_set,
	pyroscope_conf_labels_dump, pyroscope_conf_labels_free
};

/* header_file.NAME = path (pyroscope_secret.c): "path: why" on error. */
static const char *
pyroscope_conf_header_file_set(struct config *conf, const char *name,
    const char *value, int line, char *buf, size_t len)
{
	const char	*msg;

	if ((msg = pyroscope_secret_header_add(conf, name, value)) == NULL)
		return NULL;
	snprintf(buf, len, "%s: %s", value, msg);
	return buf;
}

const struct config_section pyroscope_conf_header_files = {
	"pyroscope", "header_file.", NULL, NULL,
	pyroscope_conf_header_file_set, pyroscope_secret_headers_dump,
	pyroscope_secret_headers_free
};

static char *
pyroscope_conf_str(const char *s)
{
	return s == NULL || *s == '\0' ? NULL : xstrdup(s);
}

void
pyroscope_conf_free(struct pyroscope_conf *pc)
{
	size_t	 i;

	if (pc == NULL)
		return;
	free(pc->url);
	free(pc->user);
	pyroscope_secret_free(pc->password);
	free(pc->password_file);
	free(pc->bearer_file);
	pyroscope_secret_free(pc->bearer);
	for (i = 0; i < pc->nhfiles; i++) {
		free(pc->hfile_names[i]);
		free(pc->hfile_paths[i]);
		pyroscope_secret_free(pc->hfile_lines[i]);
	}
	free(pc->hfile_names);
	free(pc->hfile_paths);
	free(pc->hfile_lines);
	free(pc->tenant);
	for (i = 0; i < pc->nheaders; i++)
		free(pc->headers[i]);
	free(pc->headers);
	free(pc->tls_ca);
	free(pc->tls_cert);
	free(pc->tls_key);
	free(pc->spool_dir);
	for (i = 0; i < pc->labels.n; i++) {
		free(pc->labels.names[i]);
		free(pc->labels.values[i]);
	}
	free(pc->labels.names);
	free(pc->labels.values);
	free(pc);
}

/* A secret's file, read now; NULL (logged, not its content) if it fails. */
static char *
pyroscope_conf_secret(const char *path)
{
	const char	*why;
	char		*s;

	if ((s = pyroscope_secret_read(path, &why)) == NULL)
		log_warnx("pyroscope: %s: %s", path, why);
	return s;
}

/* Header i of the files, "Name: value"; NULL (logged) if unreadable. */
static char *
pyroscope_conf_hline(const struct pyroscope_conf *pc, size_t i)
{
	char	*s, *line;

	if ((s = pyroscope_conf_secret(pc->hfile_paths[i])) == NULL)
		return NULL;
	xasprintf(&line, "%s: %s", pc->hfile_names[i], s);
	pyroscope_secret_free(s);
	return line;
}

/* header_file.NAME: a header of headers set twice is a mistake. */
static int
pyroscope_conf_hfiles(struct pyroscope_conf *pc, const struct config *conf)
{
	size_t	 i, j, len;

	pc->nhfiles = conf->pyroscope_nhfiles;
	pc->hfile_names = xcalloc(pc->nhfiles + 1, sizeof(char *));
	pc->hfile_paths = xcalloc(pc->nhfiles + 1, sizeof(char *));
	pc->hfile_lines = xcalloc(pc->nhfiles + 1, sizeof(char *));
	for (i = 0; i < pc->nhfiles; i++) {
		pc->hfile_names[i] = xstrdup(conf->pyroscope_hfile_names[i]);
		pc->hfile_paths[i] = xstrdup(conf->pyroscope_hfile_paths[i]);
		len = strlen(pc->hfile_names[i]);
		for (j = 0; j < pc->nheaders; j++)
			if (strncasecmp(pc->headers[j], pc->hfile_names[i],
			    len) == 0 && pc->headers[j][len] == ':') {
				log_warnx("pyroscope: header %s is in headers "
				    "and header_file", pc->hfile_names[i]);
				return -1;
			}
	}
	return 0;
}

struct pyroscope_conf *
pyroscope_conf_create(const struct config *conf)
{
	struct pyroscope_conf	*pc;
	const char		*why = NULL;
	size_t			 len, i;

	pc = xcalloc(1, sizeof(*pc));
	pc->url = pyroscope_conf_str(conf->pyroscope_url);
	if (pc->url != NULL) {
		if ((why = pyroscope_url_check(pc->url)) != NULL) {
			log_warnx("pyroscope: url %s: %s", pc->url, why);
			goto bad;
		}
		len = strlen(pc->url);
		while (len > 0 && pc->url[len - 1] == '/')
			pc->url[--len] = '\0';
	}
	pc->api = conf->pyroscope_api;
	pc->user = pyroscope_conf_str(conf->pyroscope_basic_auth_user);
	pc->password = pyroscope_conf_str(conf->pyroscope_basic_auth_password);
	pc->password_file =
	    pyroscope_conf_str(conf->pyroscope_basic_auth_password_file);
	pc->bearer_file = pyroscope_conf_str(conf->pyroscope_bearer_token_file);
	pc->tenant = pyroscope_conf_str(conf->pyroscope_tenant_id);
	if (pc->password != NULL && pc->password_file != NULL) {
		log_warnx("pyroscope: basic_auth_password and "
		    "basic_auth_password_file are both set");
		goto bad;
	}
	if (pc->user == NULL && (pc->password != NULL ||
	    pc->password_file != NULL)) {
		log_warnx("pyroscope: a basic auth password without "
		    "basic_auth_user");
		goto bad;
	}
	if (pc->user != NULL && pc->bearer_file != NULL) {
		log_warnx("pyroscope: basic_auth_user and bearer_token_file "
		    "are both set");
		goto bad;
	}
	if (pc->tenant != NULL && !pyroscope_conf_is_text(pc->tenant)) {
		log_warnx("pyroscope: tenant_id: control character");
		goto bad;
	}
	if (pyroscope_conf_headers(conf->pyroscope_headers, &pc->headers,
	    &pc->nheaders, &why) == -1) {
		log_warnx("pyroscope: headers: %s", why);
		goto bad;
	}
	pc->tls_ca = pyroscope_conf_str(conf->pyroscope_tls_ca_file);
	pc->tls_cert = pyroscope_conf_str(conf->pyroscope_tls_cert_file);
	pc->tls_key = pyroscope_conf_str(conf->pyroscope_tls_key_file);
	pc->tls_insecure = conf->pyroscope_tls_insecure_skip_verify;
	pc->timeout = conf->pyroscope_timeout;
	pc->spool_dir = pyroscope_conf_str(conf->pyroscope_spool_dir);
	if (pc->spool_dir == NULL && conf->output_dir != NULL &&
	    *conf->output_dir != '\0')
		xasprintf(&pc->spool_dir, "%s/spool", conf->output_dir);
	pc->spool_max = conf->pyroscope_spool_max_bytes;
	pc->backoff_min = conf->pyroscope_backoff_min;
	pc->backoff_max = conf->pyroscope_backoff_max;
	if (pc->backoff_max < pc->backoff_min)
		pc->backoff_max = pc->backoff_min;
	pc->flush_timeout = conf->pyroscope_flush_timeout;
	pc->max_inflight = conf->pyroscope_max_inflight;
	pc->max_age = conf->pyroscope_max_age;
	pc->max_profile_bytes = conf->pyroscope_max_profile_bytes;
	pc->max_profile_samples = conf->pyroscope_max_profile_samples;
	pc->labels.n = conf->pyroscope_nlabels;
	pc->labels.names = xcalloc(pc->labels.n + 1, sizeof(char *));
	pc->labels.values = xcalloc(pc->labels.n + 1, sizeof(char *));
	for (i = 0; i < pc->labels.n; i++) {
		pc->labels.names[i] = xstrdup(conf->pyroscope_label_names[i]);
		pc->labels.values[i] = xstrdup(conf->pyroscope_label_values[i]);
	}
	if (pyroscope_conf_hfiles(pc, conf) == -1)
		goto bad;
	/* Only a sink that is on needs its secrets now. */
	if (pc->url != NULL && pc->password_file != NULL &&
	    (pc->password = pyroscope_conf_secret(pc->password_file)) == NULL)
		goto bad;
	if (pc->url != NULL && pc->bearer_file != NULL &&
	    (pc->bearer = pyroscope_conf_secret(pc->bearer_file)) == NULL)
		goto bad;
	for (i = 0; pc->url != NULL && i < pc->nhfiles; i++)
		if ((pc->hfile_lines[i] = pyroscope_conf_hline(pc, i)) == NULL)
			goto bad;
	return pc;
bad:
	pyroscope_conf_free(pc);
	return NULL;
}

/*
 * A secret read again (name: a header's, "Name: value"), or NULL.  Said
 * once until the files are good again; the last good one stays.
 */
static void
pyroscope_conf_replace(struct pyroscope_conf *pc, char **old,
    const char *path, const char *name, int quiet)
{
	const char	*why;
	char		*s, *line;

	if ((s = pyroscope_secret_read(path, &why)) == NULL) {
		if (!quiet)
			log_warnx("pyroscope: %s: %s; keeping the secret last "
			    "read from it", path, why);
		pc->secret_failed = 1;
		return;
	}
	if (name != NULL) {
		xasprintf(&line, "%s: %s", name, s);
		pyroscope_secret_free(s);
		s = line;
	}
	pyroscope_secret_free(*old);
	*old = s;
}

void
pyroscope_conf_refresh(struct pyroscope_conf *pc)
{
	int	 quiet = pc->secret_failed;
	size_t	 i;

	pc->secret_failed = 0;
	if (pc->password_file != NULL)
		pyroscope_conf_replace(pc, &pc->password, pc->password_file,
		    NULL, quiet);
	if (pc->bearer_file != NULL)
		pyroscope_conf_replace(pc, &pc->bearer, pc->bearer_file, NULL,
		    quiet);
	for (i = 0; i < pc->nhfiles; i++)
		pyroscope_conf_replace(pc, &pc->hfile_lines[i],
		    pc->hfile_paths[i], pc->hfile_names[i], quiet);
}
