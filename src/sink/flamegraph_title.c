/*
 * The title over a flame graph: what it holds, so that a graph of one
 * sample cannot pass for one of a run.  "gzip: cpu, 2,851 samples,
 * 2026-12-05 13:37:24-13:37:54 UTC": the service, the type, the total
 * (samples on-CPU, seconds off-CPU), thousands separated, and the span
 * in UTC, the date always, on both ends when the span crosses midnight.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "flamegraph.h"
#include "profile/profile.h"

/* n with a ',' every three digits. */
static void
flamegraph_title_digits(char *buf, size_t len, uint64_t n)
{
	char	 d[32], *s;
	size_t	 nd, i, o = 0;

	snprintf(d, sizeof(d), "%" PRIu64, n);
	nd = strlen(d);
	for (i = 0, s = d; *s != '\0' && o + 2 < len; i++, s++) {
		if (i > 0 && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = *s;
	}
	buf[o] = '\0';
}

/* "2,851 samples", "1 sample", "1.25 s", "1,234.50 s". */
void
flamegraph_title_total(char *buf, size_t len, enum profile_type type,
    uint64_t total)
{
	char		 d[40];
	uint64_t	 cs;

	if (type == PROFILE_TYPE_CPU) {
		flamegraph_title_digits(d, sizeof(d), total);
		snprintf(buf, len, "%s sample%s", d, total == 1 ? "" : "s");
		return;
	}
	/* Nanoseconds to hundredths of a second, rounded. */
	cs = total / 10000000 + (total % 10000000 >= 5000000);
	flamegraph_title_digits(d, sizeof(d), cs / 100);
	snprintf(buf, len, "%s.%02u s", d, (unsigned int)(cs % 100));
}

/*
 * The whole title; what, when not NULL, says which graph ("last hour").
 * Returns 0, or -1 when a time is out of range.
 */
int
flamegraph_title(char *buf, size_t len, const char *service,
    enum profile_type type, const char *what, uint64_t total, time_t from,
    time_t to)
{
	struct tm	 tm;
	char		 t1[32], t2[32], tot[48];

	if (to < from)
		to = from;
	if (gmtime_r(&from, &tm) == NULL ||
	    strftime(t1, sizeof(t1), "%Y-%m-%d %H:%M:%S", &tm) == 0 ||
	    gmtime_r(&to, &tm) == NULL ||
	    strftime(t2, sizeof(t2), "%Y-%m-%d %H:%M:%S", &tm) == 0)
		return -1;
	flamegraph_title_total(tot, sizeof(tot), type, total);
	/* The day once, unless the span crosses midnight. */
	snprintf(buf, len, "%s: %s, %s%s%s, %s-%s UTC", service,
	    profile_type_name(type), what != NULL ? what : "",
	    what != NULL ? ", " : "", tot, t1,
	    strncmp(t1, t2, 11) == 0 ? t2 + 11 : t2);
	return 0;
}
