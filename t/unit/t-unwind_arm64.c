/*
 * Unwind tables of aarch64 files, built on this x86_64 host (issue 32):
 * the builder takes arm64's registers (x29 = 29, x30 = 30, sp = 31)
 * from the file's e_machine.  Every row, CFA rule (sp+N, x29+N), x29's
 * save and where the return address is (at CFA-8, in x30, beside x29,
 * alone), is the row readelf --debug-dump=frames-interp gives for the
 * same file, as t/helper/unwind_readelf.py turns it into the same
 * words.  The files: the OpenTelemetry profiler's aarch64 test
 * executables (gcc -O2 -g), and Debian's arm64 libc, libc6:arm64's and
 * libc6-arm64-cross's, whichever are installed.  Then a few rows by
 * hand, from the fixture's own readelf output, so that the oracle is
 * not the only judge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/unwind_table.h"

#include "tap.h"
#include "unwindfix.h"

#define PEERS	"/work/shared/fixtures/peers/otel-ebpf-profiler/" \
		"rust-crates/symblib/testdata/"
#define INLINE	PEERS "inline"
#define INLINE_Z PEERS "inline-compressed-dwarf"
#define LIBC	"/usr/lib/aarch64-linux-gnu/libc.so.6"
#define LIBC_X	"/usr/aarch64-linux-gnu/lib/libc.so.6"

/* A row in unwind_readelf.py's words for an aarch64 file. */
static void
row_rule_arm64(const struct unwind_row *r, char *buf, size_t len)
{
	int	 n;

	switch (r->kind & UNWIND_KIND_MASK) {
	case UNWIND_CFA_RSP:
		n = snprintf(buf, len, "sp+%u", r->cfa_off);
		break;
	case UNWIND_CFA_RBP:
		n = snprintf(buf, len, "x29+%u", r->cfa_off);
		break;
	case UNWIND_SIGNAL:
		snprintf(buf, len, "sig");
		return;
	case UNWIND_STOP:
		snprintf(buf, len, "stop");
		return;
	default:
		snprintf(buf, len, "inv");
		return;
	}
	if ((r->kind & UNWIND_RA_MASK) == UNWIND_RA_SLOT) {
		snprintf(buf + n, len - n, " ra=c%+d", r->rbp_off * 8);
		return;
	}
	if (r->rbp_off != 0)
		n += snprintf(buf + n, len - n, " c%+d", r->rbp_off * 8);
	if ((r->kind & UNWIND_RA_MASK) == UNWIND_RA_LR)
		snprintf(buf + n, len - n, " ra=lr");
	else if ((r->kind & UNWIND_RA_MASK) == UNWIND_RA_FP)
		snprintf(buf + n, len - n, " ra=fp");
}

static void
test_file(const char *path, const char *name)
{
	struct unwind_table_stats	 st;
	struct unwind_table		*t;
	struct ranges			 got, want;
	char				 what[128];

	if (access(path, R_OK) != 0) {
		ok(1, "# SKIP %s: not installed", path);
		return;
	}
	t = unwind_table_load_path(path, NULL, NULL, &st);
	if (!ok(t != NULL, "%s: table built from %s", name,
	    st.source ? st.source : "nothing"))
		return;
	printf("# %s: %zu FDEs, %zu rows, %zu invalid, %zu stop, "
	    "%zu bytes\n", name, st.fdes, st.rows, st.kinds[UNWIND_INVALID],
	    st.kinds[UNWIND_STOP], st.bytes);
	is_int(st.error_total, 0, "%s: no errors", name);
	ok(table_check(t, 1) == 0, "%s: rows sorted, pages and lookup right",
	    name);
	table_ranges(t, &got, row_rule_arm64);
	if (readelf_ranges(path, NULL, &want) == 0) {
		snprintf(what, sizeof(what), "%s against readelf", name);
		compare(what, &got, &want);
	} else
		ok(0, "%s: readelf and unwind_readelf.py ran", name);
	if (strncmp(name, "libc", 4) == 0)
		ok(st.kinds[UNWIND_CFA_RSP] > 1000 &&
		    st.kinds[UNWIND_CFA_RBP] >= 1 && st.kinds[UNWIND_STOP] >= 1,
		    "%s: sp and x29 rows, and the outermost frame's", name);
	free(got.v);
	free(want.v);
	unwind_table_free(t);
}

/*
 * The fixture's rows, from its readelf output: main's prologue
 * (stp x29, x30, [sp, #-32]!) at 0x740, a leaf, _start.
 */
static void
test_rows(void)
{
	struct unwind_table	*t;
	const struct unwind_row	*r;

	if (access(INLINE, R_OK) != 0) {
		ok(1, "# SKIP %s: not there", INLINE);
		return;
	}
	if ((t = unwind_table_load_path(INLINE, NULL, NULL, NULL)) == NULL) {
		ok(0, "inline: table");
		return;
	}
	r = unwind_table_lookup(t, 0x740);
	ok(r != NULL && r->kind == (UNWIND_CFA_RSP | UNWIND_RA_LR) &&
	    r->cfa_off == 0 && r->rbp_off == 0,
	    "0x740, before the prologue: CFA = sp, return address in x30");
	r = unwind_table_lookup(t, 0x760);
	ok(r != NULL && r->kind == (UNWIND_CFA_RSP | UNWIND_RA_FP) &&
	    r->cfa_off == 32 && r->rbp_off == -4,
	    "0x760: CFA = sp+32, x29 at CFA-32, x30 beside it at CFA-24");
	r = unwind_table_lookup(t, 0x650);
	ok(r != NULL && r->kind == (UNWIND_CFA_RSP | UNWIND_RA_CFA8) &&
	    r->cfa_off == 16 && r->rbp_off == -2,
	    "0x650: CFA = sp+16, x29 at CFA-16, x30 at CFA-8");
	r = unwind_table_lookup(t, 0x684);
	ok(r != NULL && r->kind == UNWIND_STOP,
	    "0x684, _start after its undefined x30: the outermost frame");
	unwind_table_free(t);
}

int
main(void)
{
	test_rows();
	test_file(INLINE, "inline");
	test_file(INLINE_Z, "inline-compressed-dwarf");
	test_file(LIBC, "libc6:arm64");
	test_file(LIBC_X, "libc6-arm64-cross");
	return done_testing();
}
