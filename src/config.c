/*
 * Configuration: defaults first, then the INI file through inih.  Every
 * error is collected, not just the first, as "file:line: [section] key:
 * message".  Lines reach inih through our reader, which rejects what inih
 * would silently misread: binary data, overlong lines, lines that are
 * neither a section, a key = value pair nor a comment.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>

#include "config.h"
#include "util/log.h"
#include "proc/target.h"
#include "push/pyroscope.h"
#include "util/xmalloc.h"

#define CONFIG_LINE_MAX		4096	/* inih's buffer, set below */
#define CONFIG_ERRORS_MAX	100

struct config_parse {
	const char		*path;
	FILE			*f;
	int			 lineno;
	char			*line;
	size_t			 linecap;
	struct config		*conf;
	struct config_errors	*errs;
	int			 section_ok;	/* 1 keys, 2 a target */
	int			 in_section;
	int			*seen;		/* line of each key, 0 unseen */
};

static void
config_error(struct config_parse *p, const char *section, const char *key,
    const char *fmt, ...)
{
	struct config_errors	*e = p->errs;
	char			*msg, *line;
	va_list			 ap;

	if (e->n == CONFIG_ERRORS_MAX) {
		xasprintf(&line, "%s: too many errors", p->path);
	} else if (e->n > CONFIG_ERRORS_MAX)
		return;
	else {
		va_start(ap, fmt);
		if (vasprintf(&msg, fmt, ap) == -1)
			fatal("vasprintf");
		va_end(ap);
		if (section != NULL && key != NULL)
			xasprintf(&line, "%s:%d: [%s] %s: %s", p->path,
			    p->lineno, section, key, msg);
		else if (section != NULL)
			xasprintf(&line, "%s:%d: [%s]: %s", p->path,
			    p->lineno, section, msg);
		else
			xasprintf(&line, "%s:%d: %s", p->path, p->lineno, msg);
		free(msg);
	}
	e->v = xreallocarray(e->v, e->n + 1, sizeof(*e->v));
	e->v[e->n++] = line;
}

void
config_errors_clear(struct config_errors *e)
{
	size_t	 i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

static int
config_section_is_known(const char *name)
{
	const struct config_key	*k;
	size_t			 i;

	for (i = 0; (k = config_key_at(i)) != NULL; i++) {
		if (strcmp(k->section, name) == 0)
			return 1;
	}
	return 0;
}

/* Key [section] name and its number, or NULL. */
static const struct config_key *
config_key_lookup(const char *section, const char *name, size_t *idx)
{
	const struct config_key	*k;
	size_t			 i;

	for (i = 0; (k = config_key_at(i)) != NULL; i++) {
		if (strcmp(k->section, section) == 0 &&
		    strcmp(k->name, name) == 0) {
			*idx = i;
			return k;
		}
	}
	return NULL;
}

const struct config_key *
config_key_find(const char *section, const char *name)
{
	size_t	 idx;

	return config_key_lookup(section, name, &idx);
}

/*
 * A [target "name"] section: add the target now, so its keys that follow
 * go to it.  Returns -1 when the section is no target section.
 */
static int
config_target_section(struct config_parse *p, const char *name)
{
	const char	*err;
	size_t		 len = strlen(name);
	char		*tname;

	if (strncmp(name, "target \"", 8) != 0 || len < 10 ||
	    name[len - 1] != '"')
		return -1;
	tname = xstrndup(name + 8, len - 9);
	if (target_conf_add(p->conf, tname, p->lineno, &err) == -1)
		config_error(p, name, NULL, "%s", err);
	else
		p->section_ok = 2;
	free(tname);
	return 0;
}

/* Check one raw line; return 0 to pass it to inih, -1 to hide it. */
static int
config_check_line(struct config_parse *p, char *s, size_t len)
{
	char	*end, *name;
	size_t	 i;

	if (memchr(s, '\0', len) != NULL) {
		config_error(p, NULL, NULL, "binary data in configuration");
		return -1;
	}
	if (len > CONFIG_LINE_MAX - 3) {
		config_error(p, NULL, NULL, "line too long (%zu bytes, at most "
		    "%d)", len, CONFIG_LINE_MAX - 3);
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			config_error(p, NULL, NULL, "control character 0x%02x",
			    c);
			return -1;
		}
	}
	/* UTF-8 byte order mark on the first line. */
	if (p->lineno == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0' || *s == ';' || *s == '#')
		return 0;
	if (*s == '[') {
		if ((end = strchr(s, ']')) == NULL) {
			config_error(p, NULL, NULL, "missing ']' in section");
			/* Its keys are reported with it, not again. */
			p->in_section = 1;
			p->section_ok = 0;
			return -1;
		}
		name = xstrndup(s + 1, end - s - 1);
		p->in_section = 1;
		p->section_ok = config_section_is_known(name);
		if (!p->section_ok && config_target_section(p, name) == -1)
			config_error(p, name, NULL, "unknown section");
		free(name);
		return 0;
	}
	if (!p->in_section && strchr(s, '=') != NULL) {
		config_error(p, NULL, NULL, "key outside a section");
		return -1;
	}
	if (strchr(s, '=') == NULL) {
		config_error(p, NULL, NULL, "syntax error: expected "
		    "'key = value' or '[section]'");
		return -1;
	}
	return 0;
}

static char *
config_reader(char *str, int num, void *stream)
{
	struct config_parse	*p = stream;
	ssize_t			 n;

	if ((n = getline(&p->line, &p->linecap, p->f)) == -1)
		return NULL;
	p->lineno++;
	if (config_check_line(p, p->line, n) == -1 || n >= num) {
		/* Keep inih's line count in step: give it a blank line. */
		snprintf(str, num, "\n");
		return str;
	}
	memcpy(str, p->line, n + 1);
	return str;
}

static int
config_parse_bool(const char *v, int *out)
{
	if (strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0 ||
	    strcasecmp(v, "on") == 0 || strcmp(v, "1") == 0)
		*out = 1;
	else if (strcasecmp(v, "no") == 0 || strcasecmp(v, "false") == 0 ||
	    strcasecmp(v, "off") == 0 || strcmp(v, "0") == 0)
		*out = 0;
	else
		return -1;
	return 0;
}

/* Set one key from its text; return NULL or a message. */
static const char *
config_set(struct config *conf, const struct config_key *k, const char *v,
    char *buf, size_t len)
{
	char			*p = (char *)conf + k->off, *end;
	const struct config_enum *e;
	const char		*msg;
	long long		 ll;
	int			 b;

	switch (k->type) {
	case CONFIG_BOOL:
		if (config_parse_bool(v, &b) == -1)
			return "expected yes or no";
		*(int *)p = b;
		break;
	case CONFIG_INT:
		errno = 0;
		ll = strtoll(v, &end, 10);
		if (*v == '\0' || *end != '\0')
			return "not a number";
		if (errno == ERANGE || ll < k->min || ll > k->max) {
			snprintf(buf, len, "out of range (%lld to %lld)",
			    k->min, k->max);
			return buf;
		}
		*(long long *)p = ll;
		break;
	case CONFIG_STRING:
		if (k->check != NULL && (msg = k->check(v)) != NULL)
			return msg;
		free(*(char **)p);
		*(char **)p = xstrdup(v);
		break;
	case CONFIG_ENUM:
		for (e = k->enums; e->name != NULL; e++) {
			if (strcmp(e->name, v) == 0)
				break;
		}
		if (e->name == NULL) {
			size_t	 used;

			used = snprintf(buf, len, "expected one of");
			for (e = k->enums; e->name != NULL && used < len; e++)
				used += snprintf(buf + used, len - used, " %s",
				    e->name);
			return buf;
		}
		*(int *)p = e->value;
		break;
	}
	return NULL;
}

static int
config_handler(void *arg, const char *section, const char *name,
    const char *value)
{
	struct config_parse	*p = arg;
	const struct config_key	*k;
	const char		*msg;
	char			 buf[256];
	size_t			 idx;

	if (!p->section_ok)
		return 1;	/* reported at the section line */
	if (p->section_ok == 2) {
		msg = target_conf_set(&p->conf->targets[p->conf->ntargets - 1],
		    name, value, p->lineno, buf, sizeof(buf));
		if (msg != NULL)
			config_error(p, section, name, "%s", msg);
		return 1;
	}
	if (strcmp(section, "pyroscope") == 0 &&
	    strncmp(name, "label.", 6) == 0) {
		msg = pyroscope_conf_label_add(p->conf, name + 6, value);
		if (msg != NULL)
			config_error(p, section, name, "%s", msg);
		return 1;
	}
	if (strcmp(section, "pyroscope") == 0 &&
	    strncmp(name, "header_file.", 12) == 0) {
		msg = pyroscope_secret_header_add(p->conf, name + 12, value);
		if (msg != NULL)
			config_error(p, section, name, "%s: %s", value, msg);
		return 1;
	}
	if ((k = config_key_lookup(section, name, &idx)) == NULL) {
		config_error(p, section, name, "unknown key");
		return 1;
	}
	if (p->seen[idx] != 0) {
		config_error(p, section, name, "duplicate key (first at "
		    "line %d)", p->seen[idx]);
		return 1;
	}
	p->seen[idx] = p->lineno;
	if ((msg = config_set(p->conf, k, value, buf, sizeof(buf))) != NULL)
		config_error(p, section, name, "%s: %s", value, msg);
	return 1;
}

struct config *
config_defaults(void)
{
	const struct config_key	*k;
	struct config		*conf;
	char			 buf[256];
	size_t			 i;

	conf = xcalloc(1, sizeof(*conf));
	for (i = 0; (k = config_key_at(i)) != NULL; i++) {
		if (config_set(conf, k, k->def, buf, sizeof(buf)) != NULL)
			fatalx("bad default for %s", k->name);
	}
	return conf;
}

/*
 * Load a configuration.  A missing file is an error unless missing_ok,
 * then the defaults are used.  Returns NULL with errs filled on error.
 */
struct config *
config_load(const char *path, int missing_ok, struct config_errors *errs)
{
	struct config_parse	 p;
	struct config		*conf;
	struct stat		 sb;
	char			*line;
	int			 fd;

	memset(&p, 0, sizeof(p));
	p.path = path;
	p.errs = errs;
	conf = config_defaults();
	conf->path = xstrdup(path);

	/* Non-blocking: a FIFO must not stop the daemon in open(). */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (errno == ENOENT && missing_ok)
			return conf;
		xasprintf(&line, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		xasprintf(&line, "%s: not a regular file", path);
		close(fd);
		goto fail;
	}
	if ((p.f = fdopen(fd, "r")) == NULL) {
		xasprintf(&line, "%s: %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	p.conf = conf;
	p.section_ok = 0;
	p.seen = xcalloc(config_nkeys(), sizeof(*p.seen));

	ini_use_stack = 0;
	ini_allow_realloc = 0;
	ini_initial_alloc = CONFIG_LINE_MAX;
	ini_max_line = CONFIG_LINE_MAX;
	ini_allow_multiline = 0;
	ini_stop_on_first_error = 0;

	if (ini_parse_stream(config_reader, &p, config_handler, &p) < 0)
		config_error(&p, NULL, NULL, "cannot parse");
	if (ferror(p.f))
		config_error(&p, NULL, NULL, "read error: %s", strerror(errno));
	conf->empty = !p.in_section;
	/* Keys before the first section. */
	fclose(p.f);
	free(p.line);
	free(p.seen);
	if (errs->n != 0) {
		config_free(conf);
		return NULL;
	}
	return conf;

fail:
	errs->v = xreallocarray(errs->v, errs->n + 1, sizeof(*errs->v));
	errs->v[errs->n++] = line;
	config_free(conf);
	return NULL;
}

void
config_free(struct config *conf)
{
	const struct config_key	*k;
	size_t			 i;

	if (conf == NULL)
		return;
	for (i = 0; (k = config_key_at(i)) != NULL; i++) {
		if (k->type == CONFIG_STRING)
			free(*(char **)((char *)conf + k->off));
	}
	target_conf_free(conf);
	pyroscope_conf_labels_free(conf);
	pyroscope_secret_headers_free(conf);
	free(conf->path);
	free(conf);
}

static void
config_value(const struct config_key *k, const struct config *conf,
    char *buf, size_t len)
{
	const char		*p = (const char *)conf + k->off;
	const struct config_enum *e;

	switch (k->type) {
	case CONFIG_BOOL:
		snprintf(buf, len, "%s", *(const int *)p ? "yes" : "no");
		break;
	case CONFIG_INT:
		snprintf(buf, len, "%lld", *(const long long *)p);
		break;
	case CONFIG_STRING:
		snprintf(buf, len, "%s", *(char *const *)p);
		break;
	case CONFIG_ENUM:
		snprintf(buf, len, "?");
		for (e = k->enums; e->name != NULL; e++) {
			if (e->value == *(const int *)p) {
				snprintf(buf, len, "%s", e->name);
				break;
			}
		}
		break;
	}
}

int
config_key_equal(const struct config_key *k, const struct config *a,
    const struct config *b)
{
	char	 va[CONFIG_LINE_MAX], vb[CONFIG_LINE_MAX];

	config_value(k, a, va, sizeof(va));
	config_value(k, b, vb, sizeof(vb));
	return strcmp(va, vb) == 0;
}

/* Print the effective configuration as a valid INI file. */
void
config_dump(const struct config *conf, FILE *f)
{
	const struct config_key	*k;
	const char		*section = NULL;
	char			 buf[CONFIG_LINE_MAX];
	size_t			 i;

	for (i = 0; (k = config_key_at(i)) != NULL; i++) {
		if (section == NULL || strcmp(section, k->section) != 0) {
			fprintf(f, "%s[%s]\n", section == NULL ? "" : "\n",
			    k->section);
			section = k->section;
		}
		config_value(k, conf, buf, sizeof(buf));
		fprintf(f, "%s = %s\t; %s, %s\n", k->name, buf, k->help,
		    k->reload == CONFIG_LIVE ? "live" : "restart");
		if ((config_key_at(i + 1) == NULL ||
		    strcmp(config_key_at(i + 1)->section, k->section) != 0) &&
		    strcmp(k->section, "pyroscope") == 0) {
			pyroscope_conf_labels_dump(conf, f);
			pyroscope_secret_headers_dump(conf, f);
		}
	}
	target_conf_dump(conf, f);
}

/*
 * A reload cannot change a restart-only key: warn and keep the running
 * value in the new config, so it describes what is in force.  Returns
 * the number of such changes.
 */
int
config_keep_restart(const struct config *old, struct config *new)
{
	const struct config_key	*k;
	char			 buf[256];
	char			 v[CONFIG_LINE_MAX];
	size_t			 i;
	int			 n = 0;

	for (i = 0; (k = config_key_at(i)) != NULL; i++) {
		if (k->reload != CONFIG_RESTART ||
		    config_key_equal(k, old, new))
			continue;
		config_value(k, new, v, sizeof(v));
		log_warnx("%s: [%s] %s: changed to %s, takes effect only on "
		    "restart", new->path, k->section, k->name, v);
		config_value(k, old, v, sizeof(v));
		if (config_set(new, k, v, buf, sizeof(buf)) != NULL)
			fatalx("%s: cannot restore %s", __func__, k->name);
		n++;
	}
	return n;
}
