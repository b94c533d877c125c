/*
 * Unwind tables against readelf: for Debian's libc, ld.so, python3.11
 * and libcrypto, every row of the table (CFA rule and rbp rule over each
 * address range) is the row readelf --debug-dump=frames-interp gives,
 * as t/helper/unwind_readelf.py turns it into the same form; the same
 * for the vDSO built from memory, for .eh_frame without its header and
 * for a .debug_frame in a compressed debug file.  The page index finds
 * the row a linear search finds.  Then hostile input: absurd lengths,
 * truncated CFI, CIE pointers out of bounds or to an FDE, remember_state
 * without end, an .eh_frame_hdr lying about its count, budgets, and
 * random damage: counted, never a crash or a hang.
 */
#include <sys/auxv.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf.h"
#include "unwind/unwind_table.h"

#include "tap.h"
#include "symfix.h"
#include "unwindfix.h"

#define LIBC	"/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO	"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
#define PYTHON	"/usr/bin/python3.11"
#define CRYPTO	"/usr/lib/x86_64-linux-gnu/libcrypto.so.3"

static char	 dir[FX_DIR_MAX];

/* A row in unwind_readelf.py's words. */
static void
row_rule(const struct unwind_row *r, char *buf, size_t len)
{
	int	 n;

	switch (r->kind) {
	case UNWIND_CFA_RSP:
		n = snprintf(buf, len, "rsp+%u", r->cfa_off);
		break;
	case UNWIND_CFA_RBP:
		n = snprintf(buf, len, "rbp+%u", r->cfa_off);
		break;
	case UNWIND_PLT:
		n = snprintf(buf, len, "plt");
		break;
	case UNWIND_DEREF:
		n = snprintf(buf, len, "deref+%d", (int16_t)r->cfa_off);
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
	if (r->rbp_off != 0)
		snprintf(buf + n, len - n, " c%+d", r->rbp_off * 8);
}

static void
test_file(const char *path, const char *name)
{
	struct unwind_table_stats	 st;
	struct unwind_table		*t;
	struct ranges			 got, want;
	const struct unwind_page	*pages;
	struct timespec			 t0, t1;
	size_t				 np, i, max;
	char				 what[128];

	if (access(path, R_OK) != 0) {
		ok(1, "# SKIP %s: not installed", path);
		return;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	t = unwind_table_load_path(path, NULL, NULL, &st);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	if (!ok(t != NULL, "%s: table built from %s", name,
	    st.source ? st.source : "nothing"))
		return;
	printf("# %s: %zu FDEs, %zu rows, %zu pages (at most %zu rows), "
	    "%zu bytes, %.2f ms\n", name, st.fdes, st.rows, st.pages,
	    st.page_rows_max, st.bytes,
	    (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	is_int(st.error_total, 0, "%s: no errors", name);
	ok(strcmp(st.source, ".eh_frame_hdr") == 0, "%s: through "
	    ".eh_frame_hdr", name);
	ok(table_check(t, 1) == 0, "%s: rows sorted, pages and lookup right",
	    name);
	pages = unwind_table_pages(t, &np);
	for (i = 0, max = 0; i < np; i++)
		max = pages[i].n > max ? pages[i].n : max;
	ok(max == st.page_rows_max && max > 0, "%s: at most %zu rows a page, "
	    "as the stats say", name, max);
	table_ranges(t, &got, row_rule);
	if (readelf_ranges(path, NULL, &want) == 0) {
		snprintf(what, sizeof(what), "%s against readelf", name);
		compare(what, &got, &want);
	} else
		ok(0, "%s: readelf and unwind_readelf.py ran", name);
	if (strcmp(name, "libc") == 0) {
		ok(st.kinds[UNWIND_PLT] >= 1 && st.kinds[UNWIND_SIGNAL] >= 1 &&
		    st.kinds[UNWIND_STOP] >= 1 && st.kinds[UNWIND_CFA_RBP] >= 1,
		    "libc: PLT %zu, signal %zu, stop %zu, rbp-based %zu rows",
		    st.kinds[UNWIND_PLT], st.kinds[UNWIND_SIGNAL],
		    st.kinds[UNWIND_STOP], st.kinds[UNWIND_CFA_RBP]);
		ok(st.kinds[UNWIND_GAP] >= 1, "libc: %zu gap rows",
		    st.kinds[UNWIND_GAP]);
	}
	if (strcmp(name, "libcrypto") == 0)
		ok(st.kinds[UNWIND_DEREF] >= 1 && st.expr_unknown > 0,
		    "libcrypto: %zu deref rows, %zu expressions not followed",
		    st.kinds[UNWIND_DEREF], st.expr_unknown);
	free(got.v);
	free(want.v);
	unwind_table_free(t);
}

static int
tables_equal(const struct unwind_table *a, const struct unwind_table *b)
{
	const struct unwind_row		*ra, *rb;
	const struct unwind_page	*pa, *pb;
	size_t				 na, nb, npa, npb;

	ra = unwind_table_rows(a, &na);
	rb = unwind_table_rows(b, &nb);
	pa = unwind_table_pages(a, &npa);
	pb = unwind_table_pages(b, &npb);
	return na == nb && npa == npb && na > 0 &&
	    unwind_table_pc_base(a) == unwind_table_pc_base(b) &&
	    unwind_table_pc_end(a) == unwind_table_pc_end(b) &&
	    memcmp(ra, rb, na * sizeof(*ra)) == 0 &&
	    memcmp(pa, pb, npa * sizeof(*pa)) == 0;
}

/* In slices of 64 FDEs: the same table as in one go. */
static void
test_slices(void)
{
	struct unwind_table_builder	*b;
	struct unwind_table		*whole, *t;
	struct unwind_table_stats	 st;
	struct elf_file			*ef;
	size_t				 steps = 0;
	int				 fd;

	whole = unwind_table_load_path(LIBC, NULL, NULL, NULL);
	if ((fd = open(LIBC, O_RDONLY)) == -1 ||
	    (ef = elf_file_open(fd)) == NULL) {
		ok(0, "open libc");
		return;
	}
	b = unwind_table_builder_create(ef, NULL, NULL);
	elf_file_close(ef);
	close(fd);
	while (unwind_table_builder_step(b, 64) == 1)
		steps++;
	t = unwind_table_builder_finish(b, &st);
	ok(steps >= st.fdes / 64 && t != NULL && whole != NULL &&
	    tables_equal(t, whole), "libc in %zu steps of 64 FDEs: the same "
	    "table", steps);
	unwind_table_free(t);
	unwind_table_free(whole);
}

/* A copy of a file in memory, and where a section of it is. */
static uint8_t *
image(const char *path, size_t *len)
{
	return (uint8_t *)fx_read(path, len);
}

static int
section(const uint8_t *img, size_t len, const char *name,
    struct elf_file_scn *sc)
{
	struct elf_file	*ef;
	int		 r;

	if ((ef = elf_file_open_mem(img, len)) == NULL)
		return -1;
	r = elf_section_find(ef, name, sc);
	elf_file_close(ef);
	return r;
}

static struct unwind_table *
mem_table(const uint8_t *img, size_t len,
    const struct unwind_table_limits *lim, struct unwind_table_stats *st)
{
	struct unwind_table_builder	*b;

	memset(st, 0, sizeof(*st));
	if ((b = unwind_table_builder_create_mem(img, len, lim)) == NULL)
		return NULL;
	return unwind_table_builder_finish(b, st);
}

/* Rename a section, in the section name table, so it is not found. */
static void
hide_section(uint8_t *img, size_t len, const char *name)
{
	struct elf_file_scn	 sc;
	uint8_t			*p;
	size_t			 n = strlen(name) + 1;

	if (section(img, len, ".shstrtab", &sc) == -1)
		return;
	p = memmem(img + sc.offset, sc.size, name, n);
	if (p != NULL)
		p[n - 2] = 'X';
}

/* .eh_frame walked when .eh_frame_hdr is missing or lies. */
static void
test_no_hdr(void)
{
	struct unwind_table_builder	*b;
	struct unwind_table_stats	 st;
	struct unwind_table		*whole, *t;
	struct elf_file_scn		 sc;
	uint8_t				*img;
	size_t				 len, steps;
	uint32_t			 count = 0x7fffffff;

	whole = unwind_table_load_path(LIBC, NULL, NULL, NULL);
	img = image(LIBC, &len);
	hide_section(img, len, ".eh_frame_hdr");
	t = mem_table(img, len, NULL, &st);
	ok(t != NULL && whole != NULL && tables_equal(t, whole) &&
	    strcmp(st.source, ".eh_frame") == 0 && st.error_total == 0,
	    "libc without .eh_frame_hdr: .eh_frame walked, the same table");
	unwind_table_free(t);

	/*
	 * The walk goes in slices too, 16 * 4 entries a step: some 58
	 * steps of walking before the 233 of reading FDEs.
	 */
	b = unwind_table_builder_create_mem(img, len, NULL);
	for (steps = 1; unwind_table_builder_step(b, 16) == 1; steps++)
		;
	t = unwind_table_builder_finish(b, &st);
	ok(t != NULL && tables_equal(t, whole) &&
	    steps > st.fdes / 16 + st.fdes / 64 / 2,
	    "walked and read in %zu steps of 16 FDEs: the same table",
	    steps);
	unwind_table_free(t);
	free(img);

	img = image(LIBC, &len);
	if (section(img, len, ".eh_frame_hdr", &sc) == 0)
		memcpy(img + sc.offset + 8, &count, 4);
	t = mem_table(img, len, NULL, &st);
	ok(t != NULL && tables_equal(t, whole) &&
	    st.errors[UNWIND_TABLE_ERR_HDR] == 1,
	    "an .eh_frame_hdr counting 2^31 FDEs: counted, .eh_frame walked");
	unwind_table_free(t);
	free(img);
	unwind_table_free(whole);
}

/* The vDSO, from this process's memory. */
static void
test_vdso(void)
{
	struct unwind_table_stats	 st;
	struct unwind_table		*t;
	struct ranges			 got, want;
	unsigned long			 lo, hi, base;
	char				 line[256], path[FX_DIR_MAX + 16];
	FILE				*f;
	size_t				 len = 0;

	base = getauxval(AT_SYSINFO_EHDR);
	if ((f = fopen("/proc/self/maps", "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strstr(line, "[vdso]") != NULL &&
			    sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
			    lo == base)
				len = hi - lo;
		fclose(f);
	}
	if (base == 0 || len == 0) {
		ok(1, "# SKIP no vDSO");
		return;
	}
	t = mem_table((const void *)base, len, NULL, &st);
	ok(t != NULL && st.error_total == 0 && st.rows > 0 &&
	    table_check(t, 1) == 0, "vDSO from memory: %zu rows",
	    st.rows);
	snprintf(path, sizeof(path), "%s/vdso.so", dir);
	if (t != NULL && fx_write(path, (const void *)base, len) == 0 &&
	    readelf_ranges(path, NULL, &want) == 0) {
		table_ranges(t, &got, row_rule);
		compare("vDSO against readelf", &got, &want);
		free(got.v);
		free(want.v);
	} else
		ok(0, "vDSO written and read by readelf");
	unwind_table_free(t);
}

/* .debug_frame only, in a compressed debug file of a stripped program. */
static void
test_debug_frame(void)
{
	static const char	 src[] =
	    "#include <stdio.h>\n#include <stdlib.h>\n"
	    "static int __attribute__((noinline)) f(int *v, int n)\n"
	    "{ int s = 0; for (int i = 0; i < n; i++) s += v[i] * v[i];\n"
	    "  return s; }\n"
	    "int main(int argc, char **argv)\n"
	    "{ int *v = alloca(argc * 64 * sizeof(int));\n"
	    "  for (int i = 0; i < argc * 64; i++) v[i] = atoi(argv[0]) + i;\n"
	    "  printf(\"%d\\n\", f(v, argc * 64)); return 0; }\n";
	struct unwind_table_stats	 st;
	struct unwind_table		*t;
	struct ranges			 got, want;
	char				 p[FX_DIR_MAX + 32];
	char				 dbg[FX_DIR_MAX + 32];

	snprintf(p, sizeof(p), "%s/df.c", dir);
	snprintf(dbg, sizeof(dbg), "%s/df.debug", dir);
	if (fx_write(p, src, strlen(src)) == -1 ||
	    fx_sh("cd %s && cc -O2 -g -fno-asynchronous-unwind-tables "
	    "-fno-unwind-tables -fno-omit-frame-pointer -include alloca.h "
	    "-o df df.c && objcopy --only-keep-debug "
	    "--compress-debug-sections=zlib df df.debug && "
	    "strip --remove-section=.eh_frame --remove-section=.eh_frame_hdr "
	    "df", dir) == -1) {
		ok(0, "build a program with .debug_frame only");
		return;
	}
	snprintf(p, sizeof(p), "%s/df", dir);
	t = unwind_table_load_path(p, dbg, NULL, &st);
	ok(t != NULL && strcmp(st.source, ".debug_frame") == 0 &&
	    st.error_total == 0 && st.kinds[UNWIND_CFA_RBP] >= 1,
	    "stripped program: table from its compressed debug file's "
	    ".debug_frame (%zu rows)", st.rows);
	if (t != NULL && readelf_ranges(dbg, ".debug_frame", &want) == 0) {
		table_ranges(t, &got, row_rule);
		compare(".debug_frame against readelf", &got, &want);
		free(got.v);
		free(want.v);
	} else
		ok(0, "readelf read the debug file");
	unwind_table_free(t);
	ok(unwind_table_load_path(p, NULL, NULL, &st) == NULL,
	    "without its debug file: no table");
}

/*
 * t/helper/unwind_fx.S: hand-made CFI with the encodings, augmentations
 * and ops compilers seldom emit (udata4, sdata8, pcrel sdata8 and udata8
 * pointers, "zPLR" with a personality and an LSDA, version 3, set_loc,
 * advance_loc4, val_offset, register, expressions for rbp, the signal
 * CIE, an FDE starting inside another), against readelf; then entries
 * with 64-bit lengths, which readelf does not read as the LSB says, by
 * their rows.
 */
static void
test_fixture(void)
{
	const char			*src = getenv("EBPFSPY_SOURCE_DIR");
	const struct unwind_row		*r;
	struct unwind_table_stats	 st;
	struct unwind_table		*t;
	struct ranges			 got, want;
	struct fx_syms			 syms;
	const struct fx_sym		*f5;
	char				 p[FX_DIR_MAX + 16];
	char				 p64[FX_DIR_MAX + 16];

	snprintf(p, sizeof(p), "%s/fx", dir);
	snprintf(p64, sizeof(p64), "%s/fx64", dir);
	if (fx_sh("cc -nostdlib -static -no-pie -o %s '%s/t/helper/"
	    "unwind_fx.S' 2>/dev/null && cc -DFX64 -nostdlib -static "
	    "-no-pie -o %s '%s/t/helper/unwind_fx.S' 2>/dev/null", p,
	    src ? src : ".", p64, src ? src : ".") == -1) {
		ok(0, "assemble t/helper/unwind_fx.S");
		return;
	}
	t = unwind_table_load_path(p, NULL, NULL, &st);
	ok(t != NULL && strcmp(st.source, ".eh_frame") == 0 &&
	    st.error_total == 1 && st.errors[UNWIND_TABLE_ERR_OVERLAP] == 1 &&
	    st.fdes == 6 && st.expr_unknown == 1,
	    "hand-made CFI: 6 FDEs walked, 1 overlap, 1 expression not "
	    "followed");
	ok(t != NULL && st.kinds[UNWIND_PLT] == 1 &&
	    st.kinds[UNWIND_DEREF] == 1 && st.kinds[UNWIND_SIGNAL] == 1 &&
	    st.kinds[UNWIND_STOP] == 1 && st.kinds[UNWIND_CFA_RBP] >= 2,
	    "hand-made CFI: PLT, deref, signal, stop and rbp rows");
	if (t != NULL && readelf_ranges(p, NULL, &want) == 0) {
		table_ranges(t, &got, row_rule);
		compare("hand-made CFI against readelf", &got, &want);
		free(got.v);
		free(want.v);
	} else
		ok(0, "readelf read the hand-made CFI");
	unwind_table_free(t);

	t = unwind_table_load_path(p64, NULL, NULL, &st);
	if (t == NULL || fx_nm(p64, 0, &syms) == -1 ||
	    (f5 = fx_find(&syms, "f5")) == NULL) {
		ok(0, "64-bit lengths: a table and f5");
		unwind_table_free(t);
		return;
	}
	r = unwind_table_lookup(t, f5->addr + 1);
	ok(r != NULL && r->kind == UNWIND_CFA_RSP && r->cfa_off == 8 &&
	    r->rbp_off == 0, "64-bit lengths: f5+1 at rsp+8");
	r = unwind_table_lookup(t, f5->addr + 63);
	ok(r != NULL && r->kind == UNWIND_CFA_RSP && r->cfa_off == 32 &&
	    r->rbp_off == -4, "64-bit lengths: f5+63 at rsp+32, rbp at "
	    "cfa-32");
	ok(st.error_total == 0 && st.fdes == 1 &&
	    unwind_table_lookup(t, f5->addr + 64) == NULL,
	    "64-bit lengths: no errors, nothing past f5");
	unwind_table_free(t);
}

/* The first FDE of an .eh_frame with a program of some length. */
static size_t
long_fde(const uint8_t *img, const struct elf_file_scn *sc)
{
	size_t		 off = 0;
	uint32_t	 len, id;

	while (off + 8 <= sc->size) {
		memcpy(&len, img + sc->offset + off, 4);
		memcpy(&id, img + sc->offset + off + 4, 4);
		if (len == 0)
			break;
		if (id != 0 && len >= 64)
			return sc->offset + off;
		off += 4 + len;
	}
	return 0;
}

typedef void	(*damage_fn)(uint8_t *, size_t);

static void
damage_length(uint8_t *p, size_t len)
{
	uint32_t	 v = 0x7ffffff0;

	memcpy(p, &v, 4);
}

static void
damage_cie_out(uint8_t *p, size_t len)
{
	uint32_t	 v = 0x7ffffff0;

	memcpy(p + 4, &v, 4);
}

static void
damage_cie_self(uint8_t *p, size_t len)
{
	uint32_t	 v = 4;		/* back to its own start: an FDE */

	memcpy(p + 4, &v, 4);
}

/* The program: an unfinished LEB runs to the end of the entry. */
static void
damage_truncated(uint8_t *p, size_t len)
{
	uint32_t	 n;

	memcpy(&n, p, 4);
	p[4 + 4 + 4 + 4 + 1] = 0x0e;
	memset(p + 4 + 4 + 4 + 4 + 2, 0x80, n - 4 - 4 - 4 - 1 - 1);
}

/* remember_state and nothing else: nesting without end. */
static void
damage_remember(uint8_t *p, size_t len)
{
	uint32_t	 n;

	memcpy(&n, p, 4);
	memset(p + 4 + 4 + 4 + 4 + 1, 0x0a, n - 4 - 4 - 4 - 1);
}

static void
test_damage(const char *what, damage_fn fn, int err, int walk)
{
	struct unwind_table_stats	 st;
	struct unwind_table		*t;
	struct elf_file_scn		 sc;
	uint8_t				*img;
	size_t				 len, off;

	img = image(LDSO, &len);
	if (img == NULL || section(img, len, ".eh_frame", &sc) == -1 ||
	    (off = long_fde(img, &sc)) == 0) {
		ok(0, "%s: ld.so read", what);
		free(img);
		return;
	}
	if (walk)
		hide_section(img, len, ".eh_frame_hdr");
	fn(img + off, len - off);
	t = mem_table(img, len, NULL, &st);
	ok(t != NULL && st.errors[err] >= 1 && table_check(t, 1) == 0 &&
	    (walk || st.fdes_used >= st.fdes - 1),
	    "%s%s: %zu %s error(s), %zu of %zu FDEs used", what,
	    walk ? " (walking .eh_frame)" : "", st.errors[err],
	    unwind_table_err_name(err), st.fdes_used, st.fdes);
	unwind_table_free(t);
	free(img);
}

/*
 * Every .eh_frame_hdr entry of libcrypto names the same FDE, grown to
 * the end of .eh_frame and filled with DW_CFA_nop: 10,000 entries times
 * 450 KB, seconds of parsing.  The work budget stops it instead.
 */
static void
test_amplify(void)
{
	struct unwind_table_stats	 st;
	struct unwind_table		*t;
	struct elf_file_scn		 eh, hdr;
	struct timespec			 t0, t1;
	uint8_t				*img;
	size_t				 len, off, i;
	uint32_t			 n, count;
	int32_t				 rel, v[2];
	uint64_t			 pc, fde;
	double				 ms;

	if (access(CRYPTO, R_OK) != 0) {
		ok(1, "# SKIP %s: not installed", CRYPTO);
		return;
	}
	img = image(CRYPTO, &len);
	if (img == NULL || section(img, len, ".eh_frame", &eh) == -1 ||
	    section(img, len, ".eh_frame_hdr", &hdr) == -1 ||
	    (off = long_fde(img, &eh)) == 0) {
		ok(0, "libcrypto read");
		free(img);
		return;
	}
	/* length, CIE pointer, pc, range, augmentation length: the program */
	n = eh.offset + eh.size - off - 4;
	memcpy(img + off, &n, 4);
	memset(img + off + 17, 0, n - 13);
	memcpy(&rel, img + off + 8, 4);
	fde = eh.addr + (off - eh.offset);
	pc = fde + 8 + (int64_t)rel;
	memcpy(&count, img + hdr.offset + 8, 4);
	v[0] = (int32_t)(pc - hdr.addr);
	v[1] = (int32_t)(fde - hdr.addr);
	for (i = 0; i < count; i++)
		memcpy(img + hdr.offset + 12 + 8 * i, v, 8);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t = mem_table(img, len, NULL, &st);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	ok(t == NULL && st.errors[UNWIND_TABLE_ERR_WORK] == 1 && ms < 1000,
	    "one %u-byte FDE listed %u times by .eh_frame_hdr: stopped by "
	    "%zu work error in %.1f ms", n, count,
	    st.errors[UNWIND_TABLE_ERR_WORK], ms);
	unwind_table_free(t);
	free(img);
}

static void
test_budget(void)
{
	struct unwind_table_limits	 lim;
	struct unwind_table_stats	 st;
	struct unwind_table		*t;

	memset(&lim, 0, sizeof(lim));
	lim.max_rows = 1000;
	t = unwind_table_load_path(LIBC, NULL, &lim, &st);
	ok(t == NULL && st.too_big && st.rows == 0,
	    "libc over 1000 rows: no table, too big");
	memset(&lim, 0, sizeof(lim));
	lim.max_bytes = 64 * 1024;
	t = unwind_table_load_path(LIBC, NULL, &lim, &st);
	ok(t == NULL && st.too_big, "libc over 64 KiB: no table, too big");
	memset(&lim, 0, sizeof(lim));
	lim.max_input = 4096;
	t = unwind_table_load_path(LIBC, NULL, &lim, &st);
	ok(t == NULL && st.too_big, "libc's .eh_frame over 4 KiB of input: "
	    "no table, too big");
	memset(&lim, 0, sizeof(lim));
	lim.max_rows = 30000;
	lim.max_bytes = 30000 * 8;
	t = unwind_table_load_path(LIBC, NULL, &lim, &st);
	ok(t != NULL && !st.too_big, "libc within 30000 rows: a table");
	unwind_table_free(t);
}

/* Random damage to ld.so's CFI: whatever it gives must be a table. */
static void
test_random(void)
{
	struct unwind_table_stats	 st;
	struct unwind_table		*t;
	struct elf_file_scn		 eh, hdr;
	uint8_t				*orig, *img;
	size_t				 len, i, k, errs = 0;
	size_t				 nbad = 0, ntab = 0;
	uint64_t			 off;

	orig = image(LDSO, &len);
	if (orig == NULL || section(orig, len, ".eh_frame", &eh) == -1 ||
	    section(orig, len, ".eh_frame_hdr", &hdr) == -1) {
		ok(0, "ld.so read");
		return;
	}
	img = malloc(len);
	srandom(17);
	for (i = 0; i < 1500; i++) {
		memcpy(img, orig, len);
		if (i % 4 == 3)
			hide_section(img, len, ".eh_frame_hdr");
		for (k = 0; k < 1 + (size_t)random() % 8; k++) {
			if (random() % 4 == 0)
				off = hdr.offset + random() % hdr.size;
			else
				off = eh.offset + random() % eh.size;
			img[off] = random() % 4 == 0 ? 0xff : random();
		}
		t = mem_table(img, len, NULL, &st);
		if (t != NULL) {
			ntab++;
			if (table_check(t, 0) == -1)
				nbad++;
		}
		errs += st.error_total;
		unwind_table_free(t);
	}
	ok(nbad == 0 && ntab > 0, "1500 damaged copies of ld.so: %zu tables, "
	    "all well formed, %zu errors counted", ntab, errs);
	free(img);
	free(orig);
}

static void
test_key(void)
{
	struct unwind_table_key	 a, b, c;
	struct stat		 sb;
	struct elf_file		*ef;
	char			 id[128];
	size_t			 i;
	int			 fd;

	fd = open(LIBC, O_RDONLY);
	ef = fd == -1 ? NULL : elf_file_open(fd);
	fstat(fd, &sb);
	ok(ef != NULL && unwind_table_key(ef, &sb, &a) == 0 &&
	    a.type == UNWIND_TABLE_KEY_BUILD_ID && a.len == 20,
	    "libc keyed by its build id");
	if (fx_build_id(LIBC, id, sizeof(id)) == 0) {
		for (i = 0; i < a.len; i++)
			snprintf(id + 64 + 2 * i, 3, "%02x", a.id[i]);
		is_str(id + 64, id, "the build id readelf shows");
	}
	ok(unwind_table_key(NULL, &sb, &b) == 0 &&
	    b.type == UNWIND_TABLE_KEY_INODE && b.ino == sb.st_ino &&
	    !unwind_table_key_equal(&a, &b), "no build id: by inode");
	sb.st_mtim.tv_nsec++;
	unwind_table_key(NULL, &sb, &c);
	ok(!unwind_table_key_equal(&b, &c) &&
	    unwind_table_key_hash(&b) != unwind_table_key_hash(&c),
	    "another mtime, another key");
	elf_file_close(ef);
	if (fd != -1)
		close(fd);
}

int
main(void)
{
	if (fx_sh("command -v readelf python3 cc objcopy >/dev/null") == -1) {
		ok(1, "# SKIP readelf, python3 or cc missing");
		return done_testing();
	}
	snprintf(dir, sizeof(dir), "/tmp/ebpfspy-uwt.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;

	test_file(LIBC, "libc");
	test_file(LDSO, "ld.so");
	test_file(PYTHON, "python3.11");
	test_file(CRYPTO, "libcrypto");
	test_slices();
	test_no_hdr();
	test_vdso();
	test_debug_frame();
	test_key();
	test_fixture();

	test_damage("FDE length past the section", damage_length,
	    UNWIND_TABLE_ERR_TRUNCATED, 0);
	test_damage("FDE length past the section", damage_length,
	    UNWIND_TABLE_ERR_TRUNCATED, 1);
	test_damage("CIE pointer out of bounds", damage_cie_out,
	    UNWIND_TABLE_ERR_CIE, 0);
	test_damage("CIE pointer out of bounds", damage_cie_out,
	    UNWIND_TABLE_ERR_CIE, 1);
	test_damage("CIE pointer to the FDE itself", damage_cie_self,
	    UNWIND_TABLE_ERR_CIE, 0);
	test_damage("CFI truncated in a number", damage_truncated,
	    UNWIND_TABLE_ERR_TRUNCATED, 0);
	test_damage("remember_state without end", damage_remember,
	    UNWIND_TABLE_ERR_STATE, 0);
	test_amplify();
	test_budget();
	test_random();

	fx_clean(dir);
	return done_testing();
}
