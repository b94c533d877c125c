/*
 * Relabeling: which labels of a target's series are kept, dropped or
 * renamed, as Grafana Alloy's relabel rules labelkeep, labeldrop and a
 * replace to another name do it.  Labels such as container_id and
 * pod_uid change with every restart of a container, and each new value
 * is a new Pyroscope series; dropping them keeps one series a service.
 *
 *   drop_labels = NAME, ...        these labels go
 *   keep_labels = NAME, ...        only these (and service_name) stay
 *   rename_labels = OLD=NEW, ...   OLD is called NEW (replacing a NEW)
 *
 * In [targets] for every process, and in a [target "name"] section for
 * its processes: the target's rules first, then the global ones.  In
 * each set, renames first, then keep, then drop.  service_name is never
 * dropped or renamed: it names the profile's directory and series.
 * Names are separated by commas or blanks.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relabel.h"
#include "target.h"
#include "util/xmalloc.h"

#define RELABEL_SEP	", \t"

/*
 * The next word of *p into buf (at most len - 1 bytes): 1, 0 at the
 * end, -1 for a word too long.
 */
static int
relabel_next(const char **p, char *buf, size_t len)
{
	size_t	 n;

	*p += strspn(*p, RELABEL_SEP);
	if (**p == '\0')
		return 0;
	n = strcspn(*p, RELABEL_SEP);
	*p += n;
	if (n >= len)
		return -1;
	memcpy(buf, *p - n, n);
	buf[n] = '\0';
	return 1;
}

static const char *
relabel_check_name(const char *name)
{
	if (!target_label_name_is_valid(name))
		return "bad label name: [a-zA-Z_][a-zA-Z0-9_]* expected";
	if (strcmp(name, "service_name") == 0)
		return "service_name is always kept, under its name";
	return NULL;
}

const char *
relabel_check_names(const char *v)
{
	char		 word[RELABEL_NAME_MAX + 1];
	const char	*msg;
	int		 r, n = 0;

	while ((r = relabel_next(&v, word, sizeof(word))) == 1) {
		if ((msg = relabel_check_name(word)) != NULL)
			return msg;
		if (++n > RELABEL_MAX)
			return "too many names (at most "
			    TARGET_STR(RELABEL_MAX) ")";
	}
	return r == -1 ? "label name too long" : NULL;
}

const char *
relabel_check_renames(const char *v)
{
	char		 word[2 * RELABEL_NAME_MAX + 2], *eq;
	const char	*msg;
	int		 r, n = 0;

	while ((r = relabel_next(&v, word, sizeof(word))) == 1) {
		if ((eq = strchr(word, '=')) == NULL)
			return "expected OLD=NEW";
		*eq = '\0';
		if ((msg = relabel_check_name(word)) != NULL ||
		    (msg = relabel_check_name(eq + 1)) != NULL)
			return msg;
		if (strncmp(eq + 1, "__", 2) == 0)
			return "label names starting with __ are reserved";
		if (++n > RELABEL_MAX)
			return "too many renames (at most "
			    TARGET_STR(RELABEL_MAX) ")";
	}
	return r == -1 ? "label name too long" : NULL;
}

/* Whether name is a word of the list v. */
static int
relabel_listed(const char *v, const char *name)
{
	char	 word[RELABEL_NAME_MAX + 1];

	while (relabel_next(&v, word, sizeof(word)) == 1) {
		if (strcmp(word, name) == 0)
			return 1;
	}
	return 0;
}

static void
relabel_remove(struct target_labels *l, size_t i)
{
	free(l->v[i].name);
	free(l->v[i].value);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->n--;
}

static ssize_t
relabel_find(const struct target_labels *l, const char *name)
{
	size_t	 i;

	for (i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].name, name) == 0)
			return i;
	}
	return -1;
}

static void
relabel_rename(struct target_labels *l, const char *renames)
{
	char	 word[2 * RELABEL_NAME_MAX + 2], *eq;
	ssize_t	 from, to;

	while (relabel_next(&renames, word, sizeof(word)) == 1) {
		if ((eq = strchr(word, '=')) == NULL)
			continue;
		*eq = '\0';
		if ((from = relabel_find(l, word)) == -1 ||
		    strcmp(word, eq + 1) == 0)
			continue;
		if ((to = relabel_find(l, eq + 1)) != -1) {
			relabel_remove(l, to);
			if (to < from)
				from--;
		}
		free(l->v[from].name);
		l->v[from].name = xstrdup(eq + 1);
	}
}

/* One set of rules: renames, then keep, then drop. */
void
relabel_apply(struct target_labels *l, const char *drop, const char *keep,
    const char *rename)
{
	size_t	 i;

	if (rename != NULL && *rename != '\0')
		relabel_rename(l, rename);
	for (i = 0; i < l->n; ) {
		if (strcmp(l->v[i].name, "service_name") != 0 &&
		    ((keep != NULL && keep[strspn(keep, RELABEL_SEP)] != '\0' &&
		    !relabel_listed(keep, l->v[i].name)) ||
		    (drop != NULL && relabel_listed(drop, l->v[i].name))))
			relabel_remove(l, i);
		else
			i++;
	}
}
