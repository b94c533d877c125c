/*
 * The values of a configuration: a key set from its text (the parser,
 * the defaults, a restart-only key restored on reload), printed back
 * (the dump of -n -v, comparisons), and a config freed.  The parser
 * proper, which reads the file and reports its errors, is config.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "config_int.h"
#include "util/log.h"
#include "util/xmalloc.h"

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

const char *
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

void
config_free(struct config *conf)
{
	const struct config_key		*k;
	const struct config_section	*s;
	size_t				 i;

	if (conf == NULL)
		return;
	for (i = 0; (k = config_key_at(i)) != NULL; i++) {
		if (k->type == CONFIG_STRING)
			free(*(char **)((char *)conf + k->off));
	}
	for (i = 0; (s = config_section_at(i)) != NULL; i++)
		s->free(conf);
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

/* The tables of section's prefixed keys, or of sections (NULL). */
static void
config_dump_sections(const struct config *conf, const char *section,
    FILE *f)
{
	const struct config_section	*s;
	size_t				 i;

	for (i = 0; (s = config_section_at(i)) != NULL; i++) {
		if (section == NULL ? s->section == NULL :
		    s->section != NULL && strcmp(s->section, section) == 0)
			s->dump(conf, f);
	}
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
		if (config_key_at(i + 1) == NULL ||
		    strcmp(config_key_at(i + 1)->section, k->section) != 0)
			config_dump_sections(conf, k->section, f);
	}
	config_dump_sections(conf, NULL, f);
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
