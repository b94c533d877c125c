/*
 * ELF symbol tables: symbol boundaries in PIE, non-PIE and shared
 * objects, stripped files, address translation, build ids, sharing by
 * build id, and corrupt files.  Fixtures are compiled at run time;
 * expected addresses come from nm and readelf.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf.h"
#include "sym/resolve.h"
#include "config.h"
#include "sym/symcache.h"
#include "elf/symtab.h"

#include "tap.h"
#include "symfix.h"

static char	dir[FX_DIR_MAX];

static struct resolve *
mkresolve(int module_offset, int address)
{
	struct config	*conf;
	struct resolve	*r;

	conf = config_defaults();
	conf->unknown_symbol_module_offset = module_offset;
	conf->unknown_symbol_address = address;
	r = resolve_create(conf);
	config_free(conf);
	return r;
}

static const char *
fpath(const char *name)
{
	static char	 buf[4][FX_DIR_MAX + 64];
	static int	 i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void
test_symtab(void)
{
	struct symtab_builder	*b;
	struct symtab		*st;

	b = symtab_builder_create();
	symtab_builder_add(b, 0x2000, 0x10, 0x2000, "sized", 5, 0);
	symtab_builder_add(b, 0x1000, 0, 0x1800, "__libc_x", 8, 2);
	symtab_builder_add(b, 0x1000, 0, 0x1800, "x", 1, 2);
	symtab_builder_add(b, 0x1000, 0, 0x1800, "local_x", 7, 0);
	symtab_builder_add(b, 0x3000, 0, 0x3000, "nolimit", 7, 0);
	symtab_builder_add(b, 0x4000, 0, 0x4100, "ext", 3, 0);
	symtab_builder_add(b, 0x4000, 0x20, 0x4000, "ext_sized", 9, 0);
	symtab_builder_add(b, 0x5000, 0, 0x6000, "before_next", 11, 0);
	symtab_builder_add(b, 0x5010, 4, 0x5010, "next", 4, 0);
	is_int(symtab_builder_count(b), 9, "builder: nine candidates");
	st = symtab_builder_finish(b);
	is_int(symtab_count(st), 6, "one symbol per address");
	is_str(symtab_lookup(st, 0x1000), "x",
	    "global, fewest underscores wins");
	is_str(symtab_lookup(st, 0x17ff), "x", "size 0: up to its limit");
	ok(symtab_lookup(st, 0x1800) == NULL, "and not past it");
	ok(symtab_lookup(st, 0xfff) == NULL, "below the first symbol");
	is_str(symtab_lookup(st, 0x200f), "sized", "last byte");
	ok(symtab_lookup(st, 0x2010) == NULL, "one past the end");
	ok(symtab_lookup(st, 0x3000) == NULL,
	    "size 0, limit at itself: never matches");
	is_str(symtab_lookup(st, 0x4000), "ext_sized",
	    "a sized symbol beats an unsized one at its address");
	ok(symtab_lookup(st, 0x4020) == NULL, "and keeps its size");
	is_str(symtab_lookup(st, 0x500f), "before_next",
	    "size 0: up to the next symbol");
	is_str(symtab_lookup(st, 0x5010), "next", "next symbol");
	ok(symtab_lookup(st, 0x5014) == NULL, "next symbol's end");
	ok(symtab_bytes(st) < 6 * 16 + 64 + sizeof(*st),
	    "names copied once, exactly (%zu bytes)", symtab_bytes(st));
	symtab_free(st);

	st = symtab_builder_finish(symtab_builder_create());
	ok(st != NULL && symtab_count(st) == 0 &&
	    symtab_lookup(st, 0) == NULL, "empty table");
	symtab_free(st);
	symtab_free(NULL);
}

/* First byte, middle, last byte, one past the end of each function. */
static void
test_boundaries(const char *file, const char *const *names)
{
	struct fx_syms		 syms;
	const struct fx_sym	*s, *next;
	struct resolve		*r;
	const char		*path = fpath(file);
	char			 want[256];

	if (fx_nm(path, 0, &syms) == -1) {
		ok(0, "%s: nm", file);
		return;
	}
	r = mkresolve(0, 0);
	for (; *names != NULL; names++) {
		if ((s = fx_find(&syms, *names)) == NULL || s->size == 0) {
			ok(0, "%s: nm has %s with a size", file, *names);
			continue;
		}
		is_str(resolve_file(r, path, s->addr), *names,
		    "%s: %s, first byte", file, *names);
		is_str(resolve_file(r, path, s->addr + s->size / 2), *names,
		    "%s: %s, middle", file, *names);
		is_str(resolve_file(r, path, s->addr + s->size - 1), *names,
		    "%s: %s, last byte", file, *names);
		next = fx_func_at(&syms, s->addr + s->size);
		snprintf(want, sizeof(want), "%s",
		    next != NULL ? next->name : "[unknown]");
		is_str(resolve_file(r, path, s->addr + s->size), want,
		    "%s: %s, one past the end", file, *names);
	}
	resolve_free(r);
}

/* fx_asm0 has no size: it extends to the next symbol. */
static void
test_size0(const char *file)
{
	struct fx_syms		 syms;
	const struct fx_sym	*s, *next = NULL;
	struct resolve		*r;
	const char		*path = fpath(file);
	size_t			 i;

	if (fx_nm(path, 0, &syms) == -1 ||
	    (s = fx_find(&syms, "fx_asm0")) == NULL) {
		ok(0, "%s: nm has fx_asm0", file);
		return;
	}
	is_int(s->size, 0, "%s: fx_asm0 has size 0", file);
	for (i = 0; i < syms.n; i++)
		if (strchr("tT", syms.v[i].type) != NULL &&
		    syms.v[i].addr > s->addr &&
		    (next == NULL || syms.v[i].addr < next->addr))
			next = &syms.v[i];
	r = mkresolve(0, 0);
	is_str(resolve_file(r, path, s->addr), "fx_asm0",
	    "%s: size 0, first byte", file);
	is_str(resolve_file(r, path, s->addr + 3), "fx_asm0",
	    "%s: size 0, its ret", file);
	if (next != NULL && fx_func_at(&syms, next->addr) == next) {
		is_str(resolve_file(r, path, next->addr - 1), "fx_asm0",
		    "%s: size 0, byte before the next symbol", file);
		is_str(resolve_file(r, path, next->addr), next->name,
		    "%s: size 0, next symbol", file);
	}
	resolve_free(r);
}

/* Stripped files, and the unknown forms with their file offsets. */
/*
 * The function ranges .eh_frame_hdr and .eh_frame give are the
 * functions nm knows, start and size, for a file of each kind.
 */
static void
test_fde_ranges(const char *file, const char *nmfile)
{
	struct fx_syms			 syms;
	struct elf_file			*ef;
	struct elf_fde_range		*v;
	const struct elf_fde_range	*r;
	size_t				 i, n, funcs = 0, same = 0;
	FILE				*f;

	if (fx_nm(fpath(nmfile), 0, &syms) != 0 ||
	    (f = fopen(fpath(file), "r")) == NULL) {
		ok(0, "%s: nm", file);
		return;
	}
	ef = elf_file_open(fileno(f));
	n = ef != NULL ? elf_fde_ranges(ef, &v, 1 << 20) : 0;
	ok(n > 0, "%s: %zu function ranges", file, n);
	for (i = 0; n > 0 && i < syms.n; i++) {
		if ((syms.v[i].type != 't' && syms.v[i].type != 'T') ||
		    syms.v[i].size == 0)
			continue;
		funcs++;
		if ((r = elf_fde_find(v, n, syms.v[i].addr +
		    syms.v[i].size / 2)) != NULL &&
		    r->start == syms.v[i].addr &&
		    r->end == syms.v[i].addr + syms.v[i].size)
			same++;
		else
			printf("# %s: %s %#llx+%llu not a range\n", file,
			    syms.v[i].name, (unsigned long long)syms.v[i].addr,
			    (unsigned long long)syms.v[i].size);
	}
	ok(funcs > 0 && same == funcs, "%s: %zu of %zu functions are a range",
	    file, same, funcs);
	ok(n == 0 || elf_fde_find(v, n, v[0].start - 1) == NULL,
	    "%s: nothing before the first", file);
	if (n > 0)
		free(v);
	elf_file_close(ef);
	fclose(f);
}

/*
 * With debuginfod on, a stripped file read without a debug file is
 * wanted by its build id; once a debug file is in the fetch directory
 * (push/debuginfod.c puts it there), its table is read again, named.
 */
static void
test_debug_wanted(void)
{
	struct symcache_build_id	 ids[4];
	struct fx_syms			 syms;
	const struct fx_sym		*s;
	struct config			*conf;
	struct resolve			*r;
	char				 hex[2 * SYMCACHE_BUILD_ID_MAX + 1];
	char				 cache[PATH_MAX];
	size_t				 n, i;

	if (fx_nm(fpath("pie"), 0, &syms) != 0 ||
	    (s = fx_find(&syms, "fx_beta")) == NULL) {
		ok(0, "pie: nm");
		return;
	}
	snprintf(cache, sizeof(cache), "%s/fetched", dir);
	conf = config_defaults();
	free(conf->debuginfod_urls);
	conf->debuginfod_urls = strdup("http://127.0.0.1:9");
	free(conf->debuginfod_cache);
	conf->debuginfod_cache = strdup(cache);
	r = resolve_create(conf);
	ok(strcmp(resolve_file(r, fpath("pie.stripped"), s->addr),
	    "fx_beta") != 0, "stripped, no debug file yet: not named");
	n = resolve_debug_wants(r, ids, 4);
	is_int((int)n, 1, "its build id is wanted");
	ok(resolve_debug_wants(r, ids + 1, 3) == 0, "taken off the list");
	for (i = 0; n == 1 && i < ids[0].len; i++)
		snprintf(hex + 2 * i, 3, "%02x", ids[0].id[i]);
	ok(n == 1 && fx_sh("mkdir -p %s/.build-id/%.2s && cp %s "
	    "%s/.build-id/%.2s/%s.debug", cache, hex, fpath("pie"), cache, hex,
	    hex + 2) == 0, "a debug file fetched");
	ok(n == 1 && resolve_debug_fetched(r, ids[0].id, ids[0].len) == 1,
	    "the table read without it goes");
	is_str(resolve_file(r, fpath("pie.stripped"), s->addr), "fx_beta",
	    "read again: named from the fetched file");
	resolve_free(r);
	config_free(conf);
}

static void
test_stripped(void)
{
	struct fx_syms		 syms, lsyms;
	struct fx_segs		 segs;
	const struct fx_sym	*s, *w, *st;
	struct resolve		*r, *rm, *ra;
	char			 want[PATH_MAX];
	uint64_t		 off;

	r = mkresolve(0, 0);
	rm = mkresolve(1, 0);
	ra = mkresolve(0, 1);
	if (fx_nm(fpath("nopie"), 0, &syms) == 0 &&
	    (s = fx_find(&syms, "fx_alpha")) != NULL &&
	    fx_segments(fpath("nopie"), &segs) == 0) {
		off = fx_vaddr_to_offset(&segs, s->addr);
		ok(off != s->addr && off != UINT64_MAX,
		    "nopie: file offset %#llx differs from vaddr %#llx",
		    (unsigned long long)off, (unsigned long long)s->addr);
		is_str(resolve_file(r, fpath("nopie.stripped"), s->addr),
		    "[unknown]", "stripped non-PIE: no name");
		snprintf(want, sizeof(want), "nopie.stripped+0x%llx",
		    (unsigned long long)off);
		is_str(resolve_file(rm, fpath("nopie.stripped"), s->addr),
		    want, "stripped non-PIE: module+offset");
		snprintf(want, sizeof(want), "0x%llx",
		    (unsigned long long)s->addr);
		is_str(resolve_file(ra, fpath("nopie.stripped"), s->addr),
		    want, "stripped non-PIE: address");
		/* Grouped by .eh_frame_hdr: the start's offset, not its own. */
		snprintf(want, sizeof(want), "nopie.stripped+0x%llx",
		    (unsigned long long)off);
		is_str(resolve_file(rm, fpath("nopie.stripped"),
		    s->addr + s->size / 2), want,
		    "stripped non-PIE: the middle of a function, its start");
		is_str(resolve_file(rm, fpath("nopie.stripped"),
		    s->addr + s->size - 1), want,
		    "stripped non-PIE: its last byte, its start");
	} else
		ok(0, "nopie: nm and readelf");

	if (fx_nm(fpath("pie"), 0, &syms) == 0 &&
	    (s = fx_find(&syms, "fx_beta")) != NULL &&
	    fx_segments(fpath("pie"), &segs) == 0) {
		is_str(resolve_file(r, fpath("pie.stripped"), s->addr),
		    "[unknown]", "stripped PIE: no name");
		snprintf(want, sizeof(want), "pie.stripped+0x%llx",
		    (unsigned long long)fx_vaddr_to_offset(&segs, s->addr));
		is_str(resolve_file(rm, fpath("pie.stripped"), s->addr),
		    want, "stripped PIE: module+offset");
	} else
		ok(0, "pie: nm and readelf");

	if (fx_nm(fpath("libfx.so"), 0, &lsyms) == 0 &&
	    (w = fx_find(&lsyms, "fxlib_work")) != NULL &&
	    (st = fx_find(&lsyms, "fxlib_static")) != NULL) {
		is_str(resolve_file(r, fpath("libfx.stripped.so"), w->addr),
		    "fxlib_work", "stripped library: exported name from "
		    ".dynsym");
		is_str(resolve_file(r, fpath("libfx.stripped.so"),
		    w->addr + w->size - 1), "fxlib_work",
		    "stripped library: exported, last byte");
		is_str(resolve_file(r, fpath("libfx.stripped.so"), st->addr),
		    "[unknown]", "stripped library: static function unknown");
		is_str(resolve_file(r, fpath("libfx.so"), st->addr),
		    "fxlib_static", "library: static function from .symtab");
	} else
		ok(0, "libfx.so: nm");
	ok(fx_nm(fpath("libfx.stripped.so"), 0, &lsyms) != 0 ||
	    lsyms.n == 0, "the stripped library has no .symtab");

	is_str(resolve_file(rm, fpath("pie"), 0x7fffffff0000ULL),
	    "[unknown]", "an address in no segment: no module offset");
	resolve_free(r);
	resolve_free(rm);
	resolve_free(ra);
}

/* Unique function addresses in .symtab and .dynsym, from readelf. */
static long
count_funcs(const char *path)
{
	char		 cmd[PATH_MAX + 64], line[512], type[32], bind[32];
	char		 vis[32], ndx[32];
	unsigned long long v, seen[FX_MAX_SYMS];
	size_t		 nseen = 0, i;
	long		 sz;
	FILE		*f;

	snprintf(cmd, sizeof(cmd), "readelf -sW '%s'", path);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, " %*[0-9]: %llx %ld %31s %31s %31s %31s", &v,
		    &sz, type, bind, vis, ndx) != 6)
			continue;
		if ((strcmp(type, "FUNC") != 0 && strcmp(type, "IFUNC") != 0)
		    || strcmp(ndx, "UND") == 0 || v == 0)
			continue;
		for (i = 0; i < nseen; i++)
			if (seen[i] == v)
				break;
		if (i == nseen && nseen < FX_MAX_SYMS)
			seen[nseen++] = v;
	}
	pclose(f);
	return nseen;
}

static void
test_table(void)
{
	struct config		*conf;
	struct symcache		*c;
	struct symcache_file	*f;
	struct symcache_stats	 st;
	const uint8_t		*id;
	char			 hex[256], want[256];
	size_t			 len, i;

	conf = config_defaults();
	c = symcache_create(conf);
	f = symcache_get_path(c, fpath("libfx.so"));
	is_int(symcache_file_count(f), count_funcs(fpath("libfx.so")),
	    "library: one symbol per function address (.symtab and .dynsym "
	    "merged)");
	ok(symcache_file_count(f) >= 4, "library: %zu functions",
	    symcache_file_count(f));
	id = symcache_file_build_id(f, &len);
	hex[0] = '\0';
	for (i = 0; id != NULL && i < len && i * 2 + 3 < sizeof(hex); i++)
		snprintf(hex + i * 2, 3, "%02x", id[i]);
	if (fx_build_id(fpath("libfx.so"), want, sizeof(want)) == 0)
		is_str(hex, want, "build id matches readelf -n");
	else
		ok(0, "readelf -n gives a build id");
	symcache_put(c, f);

	f = symcache_get_path(c, fpath("pie"));
	is_int(symcache_file_count(f), count_funcs(fpath("pie")),
	    "PIE: one symbol per function address");
	symcache_put(c, f);
	symcache_stats(c, &st);
	is_int(st.files, 2, "two tables cached");
	is_int(st.misses, 2, "two misses");
	ok(st.bytes > 0, "bytes counted (%zu)", st.bytes);
	symcache_free(c);
	config_free(conf);
}

static void
test_sharing(void)
{
	struct resolve		*r;
	struct resolve_stats	 st, st2;
	struct fx_syms		 syms;
	const struct fx_sym	*w;

	if (fx_sh("cp '%s' '%s' && cp '%s' '%s'", fpath("libfx.so"),
	    fpath("libfx.copy.so"), fpath("nopie"), fpath("swap")) == -1 ||
	    fx_nm(fpath("libfx.so"), 0, &syms) == -1 ||
	    (w = fx_find(&syms, "fxlib_work")) == NULL) {
		ok(0, "copies made");
		return;
	}
	r = mkresolve(0, 0);
	is_str(resolve_file(r, fpath("libfx.so"), w->addr), "fxlib_work",
	    "library");
	resolve_stats(r, &st);
	is_str(resolve_file(r, fpath("libfx.copy.so"), w->addr),
	    "fxlib_work", "its copy");
	resolve_stats(r, &st2);
	is_int(st2.files, st.files + 1, "a copy, the same build id: "
	    "another file, its own table");
	is_int(st2.misses, st.misses + 1, "a build id is no key: a miss");
	is_str(resolve_file(r, fpath("libfx.copy.so"), w->addr),
	    "fxlib_work", "its copy again");
	resolve_stats(r, &st);
	is_int(st.hits, st2.hits + 1, "then by inode: a hit");
	is_str(resolve_file(r, fpath("libfx.stripped.so"), w->addr),
	    "fxlib_work", "stripped copy");
	resolve_stats(r, &st2);
	is_int(st2.files, st.files + 1, "a stripped copy (same build id) "
	    "gets its own table");

	/* Rewritten in place: same inode, new contents. */
	if (fx_nm(fpath("pie"), 0, &syms) == -1 ||
	    (w = fx_find(&syms, "fx_alpha")) == NULL) {
		ok(0, "pie: nm");
		resolve_free(r);
		return;
	}
	is_str(resolve_file(r, fpath("swap"), w->addr), "[unknown]",
	    "non-PIE copy: nothing at the PIE's address");
	sleep(1);	/* a new mtime even on coarse clocks */
	if (fx_sh("cat '%s' > '%s'", fpath("pie"), fpath("swap")) == -1)
		ok(0, "rewrite");
	is_str(resolve_file(r, fpath("swap"), w->addr), "fx_alpha",
	    "rewritten in place: read again");
	resolve_free(r);
}

static void
test_not_elf(void)
{
	struct resolve		*r;
	struct resolve_stats	 st, st2;

	r = mkresolve(1, 0);
	fx_write(fpath("text"), "hello\n", 6);
	is_str(resolve_file(r, fpath("text"), 0x10), "[unknown]",
	    "not ELF: unknown");
	resolve_stats(r, &st);
	is_str(resolve_file(r, fpath("text"), 0x10), "[unknown]",
	    "not ELF, again");
	resolve_stats(r, &st2);
	is_int(st2.hits, st.hits + 1, "not ELF: cached as no symbols");
	is_int(st2.misses, st.misses, "not ELF: not read again");
	if (mkfifo(fpath("fifo"), 0600) == 0)
		is_str(resolve_file(r, fpath("fifo"), 0x10), "[unknown]",
		    "a FIFO is not opened (no hang)");
	is_str(resolve_file(r, dir, 0x10), "[unknown]", "a directory");
	is_str(resolve_file(r, fpath("missing"), 0x10), "[unknown]",
	    "a missing file");
	resolve_free(r);
}

/* Corrupt copies of the PIE. */
static void
corrupt(const char *name, const char *img, size_t len,
    void (*patch)(char *, size_t), uint64_t addr)
{
	struct resolve	*r;
	char		*buf;

	buf = malloc(len);
	memcpy(buf, img, len);
	if (patch != NULL)
		patch(buf, len);
	fx_write(fpath(name), buf, len);
	free(buf);
	r = mkresolve(0, 0);
	is_str(resolve_file(r, fpath(name), addr), "[unknown]",
	    "corrupt (%s): no name", name);
	resolve_free(r);
}

static Elf64_Shdr *
find_shdr(char *buf, size_t len, uint32_t type)
{
	Elf64_Ehdr	*eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr	*sh;
	size_t		 i;

	if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > len)
		return NULL;
	sh = (Elf64_Shdr *)(buf + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == type)
			return &sh[i];
	return NULL;
}

static void
p_shoff(char *buf, size_t len)
{
	((Elf64_Ehdr *)buf)->e_shoff = 0xfffffffffffff000ULL;
}

static void
p_shnum_ext(char *buf, size_t len)
{
	Elf64_Ehdr	*eh = (Elf64_Ehdr *)buf;

	((Elf64_Shdr *)(buf + eh->e_shoff))->sh_size = 0xffffffffULL;
	eh->e_shnum = 0;
}

static void
p_phnum(char *buf, size_t len)
{
	((Elf64_Ehdr *)buf)->e_phnum = 0xfffe;
}

static void
p_shentsize(char *buf, size_t len)
{
	((Elf64_Ehdr *)buf)->e_shentsize = 0x1000;
}

static void
p_symtab_size(char *buf, size_t len)
{
	find_shdr(buf, len, SHT_SYMTAB)->sh_size = 0x7ffffffffff0ULL;
}

static void
p_symtab_offset(char *buf, size_t len)
{
	find_shdr(buf, len, SHT_SYMTAB)->sh_offset = len + 0x1000;
}

static void
p_symtab_entsize(char *buf, size_t len)
{
	find_shdr(buf, len, SHT_SYMTAB)->sh_entsize = 7;
}

static void
p_symtab_nobits(char *buf, size_t len)
{
	find_shdr(buf, len, SHT_SYMTAB)->sh_type = SHT_NOBITS;
}

static void
p_symtab_link(char *buf, size_t len)
{
	find_shdr(buf, len, SHT_SYMTAB)->sh_link = 0xffff;
}

/* Every name offset out of the string table. */
static void
p_st_name(char *buf, size_t len)
{
	Elf64_Shdr	*sh = find_shdr(buf, len, SHT_SYMTAB);
	Elf64_Sym	*sym = (Elf64_Sym *)(buf + sh->sh_offset);
	size_t		 i;

	for (i = 0; i < sh->sh_size / sizeof(*sym); i++)
		sym[i].st_name = 0xfffffff0U - i;
}

/* The string table cut short: no name is terminated inside it. */
static void
p_strtab_size(char *buf, size_t len)
{
	Elf64_Ehdr	*eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr	*sh = find_shdr(buf, len, SHT_SYMTAB);
	Elf64_Shdr	*str = (Elf64_Shdr *)(buf + eh->e_shoff) + sh->sh_link;
	char		*s = buf + str->sh_offset;
	size_t		 i;

	for (i = 0; i < str->sh_size; i++)
		if (s[i] == '\0')
			s[i] = 'x';
}

static void
test_corrupt(void)
{
	struct fx_syms		 syms;
	const struct fx_sym	*s;
	struct resolve		*r;
	char			*img, *buf, name[64];
	size_t			 len, i, j, pos, nbad = 0;
	unsigned int		 seed = 7;
	uint64_t		 addr;
	Elf64_Ehdr		*eh;

	if (fx_nm(fpath("pie"), 0, &syms) == -1 ||
	    (s = fx_find(&syms, "fx_alpha")) == NULL ||
	    (img = fx_read(fpath("pie"), &len)) == NULL ||
	    find_shdr(img, len, SHT_SYMTAB) == NULL) {
		ok(0, "pie readable");
		return;
	}
	addr = s->addr + 1;
	corrupt("c-header", img, 20, NULL, addr);
	corrupt("c-half", img, len / 2, NULL, addr);
	corrupt("c-shoff", img, len, p_shoff, addr);
	corrupt("c-shnum-ext", img, len, p_shnum_ext, addr);
	corrupt("c-phnum", img, len, p_phnum, addr);
	corrupt("c-shentsize", img, len, p_shentsize, addr);
	corrupt("c-symtab-size", img, len, p_symtab_size, addr);
	corrupt("c-symtab-offset", img, len, p_symtab_offset, addr);
	corrupt("c-symtab-entsize", img, len, p_symtab_entsize, addr);
	corrupt("c-symtab-nobits", img, len, p_symtab_nobits, addr);
	corrupt("c-symtab-link", img, len, p_symtab_link, addr);
	corrupt("c-st-name", img, len, p_st_name, addr);
	corrupt("c-strtab", img, len, p_strtab_size, addr);

	/*
	 * Random damage to the headers, the header tables and the symbol
	 * table: every lookup must return, with a string.
	 */
	eh = (Elf64_Ehdr *)img;
	r = mkresolve(1, 1);
	buf = malloc(len);
	for (i = 0; i < 300; i++) {
		memcpy(buf, img, len);
		for (j = 0; j < 1 + i % 16; j++) {
			switch (rand_r(&seed) % 3) {
			case 0:
				pos = rand_r(&seed) % sizeof(Elf64_Ehdr);
				break;
			case 1:
				pos = eh->e_shoff + rand_r(&seed) %
				    (eh->e_shnum * sizeof(Elf64_Shdr));
				break;
			default:
				pos = rand_r(&seed) % len;
				break;
			}
			if (pos < len)
				buf[pos] = rand_r(&seed);
		}
		snprintf(name, sizeof(name), "fuzz-%zu", i);
		fx_write(fpath(name), buf, len);
		if (resolve_file(r, fpath(name), addr) == NULL)
			nbad++;
		unlink(fpath(name));
	}
	is_int(nbad, 0, "300 randomly damaged files: every lookup answers");
	free(buf);
	resolve_free(r);
	free(img);
}

/*
 * Many symbols pointing at one long name: the names copied stay in
 * proportion to the string table, not to the symbol count.
 */
static void
test_name_budget(void)
{
	struct config		*conf;
	struct symcache		*c;
	struct symcache_file	*f;
	struct symcache_stats	 st;
	FILE			*out;
	char			*img, *strs, longname[10001];
	size_t			 len, i, nsym;
	Elf64_Ehdr		*eh;
	Elf64_Shdr		*sh, *str;
	Elf64_Sym		*sym;
	uint32_t		 off = 0;

	memset(longname, 'L', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	if ((out = fopen(fpath("many.s"), "w")) == NULL) {
		ok(0, "many.s");
		return;
	}
	fprintf(out, ".text\n");
	for (i = 0; i < 20000; i++)
		fprintf(out, ".hidden f%zu\n.globl f%zu\n.type f%zu, %%function\n"
		    "f%zu:\n\tret\n.size f%zu, 1\n", i, i, i, i, i);
	fprintf(out, ".type %s, %%function\n%s:\n\tret\n.size %s, 1\n",
	    longname, longname, longname);
	fclose(out);
	if (fx_sh("cd %s && cc -shared -nostdlib -o many.so many.s",
	    dir) == -1 || (img = fx_read(fpath("many.so"), &len)) == NULL ||
	    (sh = find_shdr(img, len, SHT_SYMTAB)) == NULL) {
		ok(0, "many.so built");
		return;
	}
	eh = (Elf64_Ehdr *)img;
	str = (Elf64_Shdr *)(img + eh->e_shoff) + sh->sh_link;
	strs = img + str->sh_offset;
	for (i = 0; i + sizeof(longname) <= str->sh_size; i++)
		if (strcmp(strs + i, longname) == 0) {
			off = i;
			break;
		}
	sym = (Elf64_Sym *)(img + sh->sh_offset);
	nsym = sh->sh_size / sizeof(*sym);
	for (i = 1; i < nsym; i++)
		if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC)
			sym[i].st_name = off;
	fx_write(fpath("many.so"), img, len);
	free(img);
	ok(off != 0 && nsym > 20000, "many.so: %zu symbols named by one "
	    "10000-byte name", nsym);

	conf = config_defaults();
	c = symcache_create(conf);
	f = symcache_get_path(c, fpath("many.so"));
	symcache_stats(c, &st);
	ok(symcache_file_count(f) > 0 && symcache_file_count(f) < 100,
	    "names over budget are dropped (%zu kept)",
	    symcache_file_count(f));
	ok(st.bytes < 2 * 1024 * 1024, "table memory bounded (%zu bytes)",
	    st.bytes);
	symcache_put(c, f);
	symcache_free(c);
	config_free(conf);
}

int
main(void)
{
	static const char *const exe_names[] = { "fx_alpha", "fx_beta",
	    "fx_static", "main", NULL };
	static const char *const lib_names[] = { "fxlib_work",
	    "fxlib_static", "fxlib_print", NULL };

	signal(SIGPIPE, SIG_IGN);
	test_symtab();
	if (fx_build(dir) == -1) {
		printf("# SKIP no C compiler or binutils to build fixtures\n");
		return done_testing();
	}
	test_boundaries("pie", exe_names);
	test_boundaries("nopie", exe_names);
	test_boundaries("libfx.so", lib_names);
	test_size0("pie");
	test_size0("nopie");
	test_stripped();
	test_debug_wanted();
	test_fde_ranges("nopie", "nopie");
	test_fde_ranges("pie.stripped", "pie");
	test_fde_ranges("libfx.stripped.so", "libfx.so");
	test_table();
	test_sharing();
	test_not_elf();
	test_corrupt();
	test_name_budget();
	fx_clean(dir);
	return done_testing();
}
