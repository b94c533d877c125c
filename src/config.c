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
#include "config_int.h"
#include "util/log.h"
#include "util/xmalloc.h"

/*
 * Errors shown of one parse: enough to see what is wrong and fix it; a
 * generated file can make one an entry (80,000 targets, 78,976 errors)
 * and the rest would only bury the first ones.  They are counted.
 */
#define CONFIG_ERRORS_MAX	20

struct config_parse {
	const char		*path;
	FILE			*f;
	int			 lineno;
	char			*line;
	size_t			 linecap;
	struct config		*conf;
	struct config_errors	*errs;
	size_t			 more;		/* errors not kept */
	int			 section_ok;	/* its keys are taken */
	const struct config_section *own;	/* the section is its */
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

	if (e->n >= CONFIG_ERRORS_MAX) {
		p->more++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) == -1)
		fatal("vasprintf");
	va_end(ap);
	if (section != NULL && key != NULL)
		xasprintf(&line, "%s:%d: [%s] %s: %s", p->path, p->lineno,
		    section, key, msg);
	else if (section != NULL)
		xasprintf(&line, "%s:%d: [%s]: %s", p->path, p->lineno,
		    section, msg);
	else
		xasprintf(&line, "%s:%d: %s", p->path, p->lineno, msg);
	free(msg);
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

/* The line that counts the errors not kept. */
static void
config_errors_count(struct config_parse *p)
{
	struct config_errors	*e = p->errs;

	if (p->more == 0)
		return;
	e->v = xreallocarray(e->v, e->n + 1, sizeof(*e->v));
	xasprintf(&e->v[e->n++], "%s: and %zu more error%s", p->path,
	    p->more, p->more == 1 ? "" : "s");
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
 * A section of a table of sections ([target "name"]): open it now, so
 * its keys that follow go to it.  Returns -1 when no table has it.
 */
static int
config_section_open(struct config_parse *p, const char *name)
{
	const struct config_section	*s;
	const char			*err;
	size_t				 i, len = strlen(name), pl, sl;
	char				*inner;

	for (i = 0; (s = config_section_at(i)) != NULL; i++) {
		if (s->section != NULL)
			continue;
		pl = strlen(s->prefix);
		sl = strlen(s->suffix);
		if (len <= pl + sl || strncmp(name, s->prefix, pl) != 0 ||
		    strcmp(name + len - sl, s->suffix) != 0)
			continue;
		inner = xstrndup(name + pl, len - pl - sl);
		if (s->open(p->conf, inner, p->lineno, &err) == -1)
			config_error(p, name, NULL, "%s", err);
		else {
			p->section_ok = 1;
			p->own = s;
		}
		free(inner);
		return 0;
	}
	return -1;
}

/* The table of the prefixed keys ([pyroscope] label.NAME) name is of. */
static const struct config_section *
config_section_prefixed(const char *section, const char *name)
{
	const struct config_section	*s;
	size_t				 i;

	for (i = 0; (s = config_section_at(i)) != NULL; i++) {
		if (s->section != NULL && strcmp(s->section, section) == 0 &&
		    strncmp(name, s->prefix, strlen(s->prefix)) == 0)
			return s;
	}
	return NULL;
}

/* Check one raw line; return 0 to pass it to inih, -1 to hide it. */
static int
config_check_line(struct config_parse *p, char *s, size_t len)
{
	char	*end, *name, hint[CONFIG_LINE_MAX];
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
		p->own = NULL;
		p->section_ok = config_section_is_known(name);
		if (!p->section_ok && config_section_open(p, name) == -1) {
			if (config_suggest_section(name, hint,
			    sizeof(hint)) != NULL)
				config_error(p, name, NULL, "unknown section "
				    "(did you mean [%s]?)", hint);
			else
				config_error(p, name, NULL, "unknown section");
		}
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
config_handler(void *arg, const char *section, const char *name,
    const char *value)
{
	struct config_parse		*p = arg;
	const struct config_key		*k;
	const struct config_section	*s;
	const char			*msg;
	char				 buf[256];
	size_t				 idx;

	if (!p->section_ok)
		return 1;	/* reported at the section line */
	if ((s = p->own) != NULL ||
	    (s = config_section_prefixed(section, name)) != NULL) {
		msg = s->set(p->conf, s == p->own ? name :
		    name + strlen(s->prefix), value, p->lineno, buf,
		    sizeof(buf));
		if (msg != NULL)
			config_error(p, section, name, "%s", msg);
		return 1;
	}
	if ((k = config_key_lookup(section, name, &idx)) == NULL) {
		if ((msg = config_suggest_home(section, name)) != NULL)
			config_error(p, section, name, "unknown key (a key "
			    "of [%s])", msg);
		else if ((msg = config_suggest_key(section, name)) != NULL)
			config_error(p, section, name, "unknown key (did you "
			    "mean %s?)", msg);
		else
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
	config_errors_count(&p);
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
