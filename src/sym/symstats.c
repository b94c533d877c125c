/*
 * Names found, per service: how many user frames got a symbol and how
 * many did not, and in which modules the unnamed ones were -- what an
 * operator needs to see which debug packages are missing where.
 *
 * A frame is unknown when resolve gave one of its unknown forms:
 * "[unknown]", "module+0xoff" or "0xaddr".  Counters only grow, as
 * Prometheus counters must.  Services and modules are bounded: past the
 * bounds, frames are counted under service "_other" / module "_other".
 *
 * A service without frames for [metrics] service_ttl seconds is dropped
 * with its series (symstats_expire, at the end of each round): services
 * come and go, and a page that keeps every one it ever saw grows for as
 * long as the daemon runs.  One that comes back starts from zero, which
 * Prometheus takes as a counter reset.
 *
 * Beside them, for the whole daemon, what naming refused because it
 * would cost too much (symstats_refuse): on SIGUSR1 and in /metrics.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "symstats.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define SYMSTATS_SERVICES	512
#define SYMSTATS_MODULES	16	/* per service */
#define SYMSTATS_NAME_MAX	128

struct symstats_module {
	char		 name[SYMSTATS_NAME_MAX];
	uint64_t	 frames;
};

struct symstats_service {
	char			 name[SYMSTATS_NAME_MAX];
	uint64_t		 known, unknown;
	int			 touched;	/* frames since the last expire */
	int64_t			 last;		/* the expire that saw them */
	struct symstats_module	 modules[SYMSTATS_MODULES];
	size_t			 nmodules;
};

struct symstats {
	struct symstats_service	*v;
	size_t			 n;
};

static uint64_t	 symstats_refusals[SYMSTATS_REFUSED_MAX];
static const char *const symstats_refusal_names[SYMSTATS_REFUSED_MAX] = {
	"demangle", "go_lines"
};

void
symstats_refuse(int what)
{
	if (what >= 0 && what < SYMSTATS_REFUSED_MAX)
		symstats_refusals[what]++;
}

uint64_t
symstats_refused(int what)
{
	if (what < 0 || what >= SYMSTATS_REFUSED_MAX)
		return 0;
	return symstats_refusals[what];
}

void
symstats_log_state(void)
{
	log_info("symbols: over the bounds of work: %llu names kept "
	    "mangled, %llu Go line tables refused",
	    (unsigned long long)symstats_refusals[SYMSTATS_REFUSED_DEMANGLE],
	    (unsigned long long)symstats_refusals[SYMSTATS_REFUSED_GO_LINES]);
}

struct symstats *
symstats_create(void)
{
	struct symstats	*s;

	s = xcalloc(1, sizeof(*s));
	s->v = xcalloc(SYMSTATS_SERVICES, sizeof(*s->v));
	return s;
}

void
symstats_free(struct symstats *s)
{
	if (s == NULL)
		return;
	free(s->v);
	free(s);
}

static struct symstats_service *
symstats_service(struct symstats *s, const char *name)
{
	size_t	 i;

	if (strlen(name) >= SYMSTATS_NAME_MAX)
		name = "_other";
	for (i = 0; i < s->n; i++) {
		if (strcmp(s->v[i].name, name) == 0) {
			s->v[i].touched = 1;
			return &s->v[i];
		}
	}
	if (s->n >= SYMSTATS_SERVICES - 1 && strcmp(name, "_other") != 0)
		return symstats_service(s, "_other");
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	snprintf(s->v[s->n].name, sizeof(s->v[s->n].name), "%s", name);
	s->v[s->n].touched = 1;
	return &s->v[s->n++];
}

/*
 * The end of a round, at now (seconds, any steady clock): services with
 * frames since the last call are seen now; those not seen for ttl
 * seconds or more go (0: none ever goes).  The others keep their order.
 * The number dropped.
 */
size_t
symstats_expire(struct symstats *s, int64_t now, int64_t ttl)
{
	struct symstats_service	*sv;
	size_t			 i, j, dropped = 0;

	for (i = 0, j = 0; i < s->n; i++) {
		sv = &s->v[i];
		if (sv->touched) {
			sv->touched = 0;
			sv->last = now;
		} else if (ttl > 0 && now - sv->last >= ttl) {
			dropped++;
			continue;
		}
		if (j != i)
			s->v[j] = *sv;
		j++;
	}
	s->n = j;
	return dropped;
}

size_t
symstats_count(const struct symstats *s)
{
	return s->n;
}

static void
symstats_module(struct symstats_service *sv, const char *name, size_t len)
{
	size_t	 i;

	if (len >= SYMSTATS_NAME_MAX) {
		name = "_other";
		len = 6;
	}
	for (i = 0; i < sv->nmodules; i++) {
		if (strlen(sv->modules[i].name) == len &&
		    memcmp(sv->modules[i].name, name, len) == 0) {
			sv->modules[i].frames++;
			return;
		}
	}
	if (sv->nmodules >= SYMSTATS_MODULES - 1 &&
	    !(len == 6 && memcmp(name, "_other", 6) == 0)) {
		symstats_module(sv, "_other", 6);
		return;
	}
	memcpy(sv->modules[sv->nmodules].name, name, len);
	sv->modules[sv->nmodules].name[len] = '\0';
	sv->modules[sv->nmodules++].frames = 1;
}

static int
symstats_is_hex(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (!isxdigit((unsigned char)*s))
			return 0;
	}
	return 1;
}

void
symstats_frame(struct symstats *s, const char *service, const char *name)
{
	struct symstats_service	*sv = symstats_service(s, service);
	const char		*plus;

	if (strcmp(name, "[unknown]") == 0 ||
	    (strncmp(name, "0x", 2) == 0 && symstats_is_hex(name + 2))) {
		sv->unknown++;
		symstats_module(sv, "[unknown]", 9);
	} else if ((plus = strstr(name, "+0x")) != NULL &&
	    symstats_is_hex(plus + 3)) {
		sv->unknown++;
		symstats_module(sv, name, plus - name);
	} else
		sv->known++;
}

/* Is name one of the unknown forms symstats_frame() tells apart? */
int
symstats_is_unknown(const char *name)
{
	const char	*plus;

	return strcmp(name, "[unknown]") == 0 ||
	    (strncmp(name, "0x", 2) == 0 && symstats_is_hex(name + 2)) ||
	    ((plus = strstr(name, "+0x")) != NULL && symstats_is_hex(plus + 3));
}

/* n frames of service named: what n symstats_frame() of names do. */
void
symstats_known(struct symstats *s, const char *service, uint64_t n)
{
	if (n > 0)
		symstats_service(s, service)->known += n;
}

/* A label value in the text format: \, " and newline escaped. */
static void
symstats_label(FILE *f, const char *v)
{
	for (; *v != '\0'; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

void
symstats_prom(const struct symstats *s, FILE *f)
{
	const struct symstats_service	*sv;
	size_t				 i, j;

	fputs("# HELP ebpfspy_service_frames_total User frames named, by service "
	    "and result.\n# TYPE ebpfspy_service_frames_total counter\n", f);
	for (i = 0; i < s->n; i++) {
		sv = &s->v[i];
		fputs("ebpfspy_service_frames_total{service_name=\"", f);
		symstats_label(f, sv->name);
		fprintf(f, "\",result=\"known\"} %llu\n",
		    (unsigned long long)sv->known);
		fputs("ebpfspy_service_frames_total{service_name=\"", f);
		symstats_label(f, sv->name);
		fprintf(f, "\",result=\"unknown\"} %llu\n",
		    (unsigned long long)sv->unknown);
	}
	fputs("# HELP ebpfspy_service_unknown_frames_total User frames without a "
	    "symbol, by service and module.\n"
	    "# TYPE ebpfspy_service_unknown_frames_total counter\n", f);
	for (i = 0; i < s->n; i++) {
		sv = &s->v[i];
		for (j = 0; j < sv->nmodules; j++) {
			fputs("ebpfspy_service_unknown_frames_total{service_name=\"",
			    f);
			symstats_label(f, sv->name);
			fputs("\",module=\"", f);
			symstats_label(f, sv->modules[j].name);
			fprintf(f, "\"} %llu\n",
			    (unsigned long long)sv->modules[j].frames);
		}
	}
	fputs("# HELP ebpfspy_symbol_work_refused_total Names and tables "
	    "not used: over a bound of the work they cost, by what.\n"
	    "# TYPE ebpfspy_symbol_work_refused_total counter\n", f);
	for (i = 0; i < SYMSTATS_REFUSED_MAX; i++)
		fprintf(f, "ebpfspy_symbol_work_refused_total{what=\"%s\"} "
		    "%llu\n", symstats_refusal_names[i],
		    (unsigned long long)symstats_refusals[i]);
}
