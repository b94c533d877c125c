/* symstats: frames named or not, per service and module, bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/symstats.h"
#include "tap.h"

static char *
prom(struct symstats *s)
{
	static char	 buf[1 << 20];
	FILE		*f;
	size_t		 n;

	f = fmemopen(buf, sizeof(buf) - 1, "w");
	symstats_prom(s, f);
	n = ftell(f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

int
main(void)
{
	struct symstats	*s;
	char		 name[64], *out;
	int		 i;

	s = symstats_create();
	symstats_frame(s, "web", "main");
	symstats_frame(s, "web", "burn_a");
	symstats_frame(s, "web", "[unknown]");
	symstats_frame(s, "web", "libfoo.so+0x1a2b");
	symstats_frame(s, "web", "libfoo.so+0x1a2c");
	symstats_frame(s, "web", "0x7f0011223344");
	symstats_frame(s, "web", "operator+0xzz");	/* not an offset */
	symstats_frame(s, "db \"x\"", "main");
	out = prom(s);
	ok(strstr(out, "ebpfspy_service_frames_total{service_name=\"web\","
	    "result=\"known\"} 3\n") != NULL, "known frames counted");
	ok(strstr(out, "ebpfspy_service_frames_total{service_name=\"web\","
	    "result=\"unknown\"} 4\n") != NULL, "unknown forms counted");
	ok(strstr(out, "ebpfspy_service_unknown_frames_total{service_name=\"web\","
	    "module=\"libfoo.so\"} 2\n") != NULL, "by module");
	ok(strstr(out, "ebpfspy_service_unknown_frames_total{service_name=\"web\","
	    "module=\"[unknown]\"} 2\n") != NULL,
	    "[unknown] and raw addresses have no module");
	ok(strstr(out, "service_name=\"db \\\"x\\\"\"") != NULL,
	    "label values escaped");
	ok(strstr(out, "# TYPE ebpfspy_service_frames_total counter\n") != NULL,
	    "typed as a counter");

	/* Bounds: 1000 services, 100 modules. */
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "svc%d", i);
		symstats_frame(s, name, "main");
	}
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "lib%d.so+0x10", i);
		symstats_frame(s, "web", name);
	}
	out = prom(s);
	ok(strstr(out, "service_name=\"_other\",result=\"known\"}") != NULL,
	    "services over the bound go to _other");
	ok(strstr(out, "service_name=\"svc999\"") == NULL,
	    "the last service is not listed on its own");
	ok(strstr(out, "ebpfspy_service_unknown_frames_total{service_name=\"web\","
	    "module=\"_other\"}") != NULL, "modules over the bound: _other");
	symstats_free(s);

	/* Expiry: a service without frames for ttl seconds goes. */
	s = symstats_create();
	symstats_frame(s, "web", "main");
	symstats_frame(s, "rm", "main");
	is_int(symstats_expire(s, 100, 600), 0, "expire: both seen now");
	symstats_frame(s, "web", "main");
	is_int(symstats_expire(s, 400, 600), 0, "expire: rm idle 300 s stays");
	symstats_frame(s, "web", "main");
	is_int(symstats_expire(s, 699, 600), 0, "expire: 599 s is not 600");
	symstats_frame(s, "web", "main");
	is_int(symstats_expire(s, 700, 600), 1, "expire: 600 s without frames");
	is_int(symstats_count(s), 1, "one service left");
	out = prom(s);
	ok(strstr(out, "service_name=\"rm\"") == NULL, "its series are gone");
	ok(strstr(out, "{service_name=\"web\",result=\"known\"} 4\n") !=
	    NULL, "the other keeps its count");
	symstats_frame(s, "rm", "[unknown]");
	out = prom(s);
	ok(strstr(out, "{service_name=\"rm\",result=\"known\"} 0\n") !=
	    NULL && strstr(out, "{service_name=\"rm\",result=\"unknown\"} "
	    "1\n") != NULL, "back: from zero, modules too");
	ok(strstr(out, "{service_name=\"rm\",module=\"[unknown]\"} 1\n") !=
	    NULL, "its module counted anew");
	is_int(symstats_expire(s, 5000, 0), 0, "ttl 0: nothing ever goes");
	is_int(symstats_expire(s, 9000, 0), 0, "ttl 0: not even later");
	symstats_free(s);
	return done_testing();
}
