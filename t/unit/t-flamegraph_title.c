/*
 * The title over a flame graph: the total in samples or seconds with
 * thousands separated, the UTC span with the date once, or twice past
 * midnight, and which graph it is.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "sink/flamegraph.h"
#include "profile/profile.h"
#include "tap.h"

#define WHEN		1796206500	/* 2026-12-02T10:15:00Z */

static void
test_total(void)
{
	char	 buf[64];

	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_CPU, 0);
	is_str(buf, "0 samples", "no sample");
	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_CPU, 1);
	is_str(buf, "1 sample", "one sample, singular");
	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_CPU, 999);
	is_str(buf, "999 samples", "three digits: no separator");
	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_CPU, 2851);
	is_str(buf, "2,851 samples", "thousands separated");
	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_CPU,
	    1234567890ULL);
	is_str(buf, "1,234,567,890 samples", "every three digits");
	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_CPU,
	    UINT64_MAX);
	is_str(buf, "18,446,744,073,709,551,615 samples", "the largest");
	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_OFFCPU,
	    1250000000ULL);
	is_str(buf, "1.25 s", "off-CPU: seconds");
	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_OFFCPU,
	    1234504999999ULL);
	is_str(buf, "1,234.50 s", "off-CPU: thousands separated, rounded");
	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_OFFCPU,
	    9995000000ULL);
	is_str(buf, "10.00 s", "rounding carries into the seconds");
	flamegraph_title_total(buf, sizeof(buf), PROFILE_TYPE_OFFCPU, 0);
	is_str(buf, "0.00 s", "no time");
	flamegraph_title_total(buf, 6, PROFILE_TYPE_CPU, 2851);
	ok(strlen(buf) < 6, "a short buffer is not overrun");
}

static void
test_title(void)
{
	char	 buf[128];

	ok(flamegraph_title(buf, sizeof(buf), "gzip", PROFILE_TYPE_CPU, NULL,
	    2851, WHEN - 30, WHEN) == 0, "a round's title");
	is_str(buf, "gzip: cpu, 2,851 samples, 2026-12-02 10:14:30-10:15:00 "
	    "UTC", "service, type, total, span with the date once");
	flamegraph_title(buf, sizeof(buf), "db", PROFILE_TYPE_OFFCPU,
	    "last hour", 1250000000ULL, WHEN - 3600, WHEN);
	is_str(buf, "db: offcpu, last hour, 1.25 s, 2026-12-02 "
	    "09:15:00-10:15:00 UTC", "which graph, off-CPU time");
	/* 2026-12-02T23:59:50Z to 2026-12-03T00:00:05Z. */
	flamegraph_title(buf, sizeof(buf), "x", PROFILE_TYPE_CPU, NULL, 1,
	    WHEN + 49490, WHEN + 49505);
	is_str(buf, "x: cpu, 1 sample, 2026-12-02 23:59:50-2026-12-03 "
	    "00:00:05 UTC", "past midnight: the date on both ends");
	flamegraph_title(buf, sizeof(buf), "x", PROFILE_TYPE_CPU, NULL, 1,
	    WHEN, WHEN - 5);
	is_str(buf, "x: cpu, 1 sample, 2026-12-02 10:15:00-10:15:00 UTC",
	    "an end before the start is the start");
}

int
main(void)
{
	test_total();
	test_title();
	return done_testing();
}
