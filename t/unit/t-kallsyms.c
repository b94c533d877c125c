/*
 * kallsyms: parsing /proc/kallsyms text (core and module symbols, order,
 * boundaries, hidden addresses) and naming kernel frames.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/kallsyms.h"
#include "sym/resolve.h"
#include "config.h"

#include "tap.h"

static const char fixture[] =
    "ffffffff81000100 t core_b\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000200 D some_data\n"
    "ffffffff81000280 r some_rodata\n"
    "ffffffff81000300 W weak_fn\n"
    "ffffffff81000340 w weak_local\n"
    "ffffffff81000380 T core_sized\n"
    "ffffffffc0001000 t mod_fn\t[mymod]\n"
    "ffffffffc0000f00 T mod_first\t[mymod]\n"
    "ffffffffc0001800 t other_fn\t[other_mod]\n"
    "ffffffffc0002000 t bpf_prog_0123456789abcdef_handler\t[bpf]\n"
    "0000000000000000 A fixed_percpu_data\n"
    "garbage line\n"
    "ffffffff81000400 T\n"
    "fffffffff81000500000 T addr_too_long\n"
    "ffffffff81000600 t unterminated_module\t[mod\n"
    "\n";

static struct kallsyms *
parse(const char *text, size_t len)
{
	struct kallsyms	*ks;
	FILE		*f;

	if ((f = fmemopen((void *)text, len, "r")) == NULL)
		return NULL;
	ks = kallsyms_parse(f);
	fclose(f);
	return ks;
}

static void
test_fixture(void)
{
	struct kallsyms	*ks;
	const char	*n;

	ks = parse(fixture, strlen(fixture));
	ok(ks != NULL, "fixture parses");
	if (ks == NULL)
		return;
	ok(!kallsyms_is_restricted(ks), "not restricted");
	/*
	 * startup_64/_stext share an address, core_b, weak_fn, weak_local,
	 * core_sized, the unterminated module line (a core symbol), four
	 * module symbols.
	 */
	is_int(kallsyms_count(ks), 10, "text symbols, one per address");
	is_str(kallsyms_lookup(ks, 0xffffffff81000000), "startup_64",
	    "two names at one address: the one without underscores");
	is_str(kallsyms_lookup(ks, 0xffffffff810000ff), "startup_64",
	    "up to the byte before the next symbol");
	is_str(kallsyms_lookup(ks, 0xffffffff81000100), "core_b",
	    "next symbol's first byte");
	is_str(kallsyms_lookup(ks, 0xffffffff81000200), "core_b",
	    "data symbols are not boundaries");
	is_str(kallsyms_lookup(ks, 0xffffffff81000300), "weak_fn", "W");
	is_str(kallsyms_lookup(ks, 0xffffffff81000341), "weak_local", "w");
	is_str(kallsyms_lookup(ks, 0xffffffff81000600),
	    "unterminated_module", "a module name without ] is dropped");
	is_str(kallsyms_lookup(ks, 0xffffffffc0000f00), "mod_first [mymod]",
	    "module symbol, input out of order");
	is_str(kallsyms_lookup(ks, 0xffffffffc0000fff), "mod_first [mymod]",
	    "module symbol, last byte");
	is_str(kallsyms_lookup(ks, 0xffffffffc0001000), "mod_fn [mymod]",
	    "module symbol");
	is_str(kallsyms_lookup(ks, 0xffffffffc0001900),
	    "other_fn [other_mod]", "another module");
	is_str(kallsyms_lookup(ks, 0xffffffffc0002010),
	    "bpf_prog_0123456789abcdef_handler [bpf]", "BPF program");
	n = kallsyms_lookup(ks, 0xffffffff80ffffff);
	ok(n == NULL, "below the first symbol: nothing");
	is_str(kallsyms_lookup(ks, 0xffffffffc0002000 + 1024 * 1024 - 1),
	    "bpf_prog_0123456789abcdef_handler [bpf]",
	    "the last symbol extends 1 MiB");
	ok(kallsyms_lookup(ks, 0xffffffffc0002000 + 1024 * 1024) == NULL,
	    "and no further");
	ok(kallsyms_lookup(ks, 0xffffffff81000500) != NULL &&
	    strcmp(kallsyms_lookup(ks, 0xffffffff81000500),
	    "addr_too_long") != 0, "a 20-digit address is not parsed");
	kallsyms_free(ks);
	kallsyms_free(NULL);
	ok(kallsyms_lookup(NULL, 1) == NULL, "lookup in NULL");
}

static void
test_restricted(void)
{
	static const char	 text[] =
	    "0000000000000000 T _stext\n"
	    "0000000000000000 t core_b\n"
	    "0000000000000000 t mod_fn\t[mymod]\n";
	struct kallsyms		*ks;

	ks = parse(text, strlen(text));
	ok(ks != NULL && kallsyms_is_restricted(ks),
	    "all addresses zero: restricted");
	is_int(kallsyms_count(ks), 0, "restricted: no symbols");
	ok(kallsyms_lookup(ks, 0) == NULL, "restricted: nothing at 0");
	kallsyms_free(ks);

	ks = parse("", 0);
	ok(ks == NULL || (!kallsyms_is_restricted(ks) &&
	    kallsyms_count(ks) == 0), "empty: no symbols, not restricted");
	kallsyms_free(ks);
}

static void
test_long_lines(void)
{
	struct kallsyms	*ks;
	char		*buf, *p;

	buf = malloc(20000);
	p = buf;
	p += sprintf(p, "ffffffff81000000 T ");
	memset(p, 'x', 5000);
	p += 5000;
	p += sprintf(p, "\nffffffff81000100 T after_long\n");
	ks = parse(buf, p - buf);
	ok(ks != NULL && kallsyms_count(ks) == 1, "an over-long line is "
	    "skipped");
	is_str(kallsyms_lookup(ks, 0xffffffff81000100), "after_long",
	    "the line after it is read");
	kallsyms_free(ks);
	free(buf);
}

/* resolve_kernel on the real kallsyms: unknown forms. */
static void
test_resolve(void)
{
	struct config	*conf;
	struct resolve	*r;

	conf = config_defaults();
	r = resolve_create(conf);
	is_str(resolve_kernel(r, 0x10), "[unknown]",
	    "unknown kernel frame: [unknown] (no module offset)");
	resolve_free(r);
	conf->unknown_symbol_address = 1;
	r = resolve_create(conf);
	is_str(resolve_kernel(r, 0x10), "0x10",
	    "unknown kernel frame with unknown_symbol_address");
	resolve_free(r);
	config_free(conf);
}

static void
test_proc(void)
{
	struct kallsyms	*ks;
	FILE		*f;
	char		 line[1024], name[512], type;
	unsigned long long a;
	const char	*got;

	ks = kallsyms_read(NULL);
	if (ks == NULL || kallsyms_is_restricted(ks)) {
		printf("ok %d # SKIP /proc/kallsyms hidden\n", ++tap_n);
		kallsyms_free(ks);
		return;
	}
	ok(kallsyms_count(ks) > 1000, "/proc/kallsyms: %zu symbols",
	    kallsyms_count(ks));
	/* The kernel's own symbol for one of its functions. */
	got = NULL;
	if ((f = fopen("/proc/kallsyms", "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "%llx %c %511s", &a, &type,
			    name) == 3 && strcmp(name, "schedule") == 0) {
				got = kallsyms_lookup(ks, a + 1);
				break;
			}
		fclose(f);
	}
	is_str(got, "schedule", "schedule+1 is schedule");
	kallsyms_free(ks);
}

int
main(void)
{
	test_fixture();
	test_restricted();
	test_long_lines();
	test_resolve();
	test_proc();
	return done_testing();
}
