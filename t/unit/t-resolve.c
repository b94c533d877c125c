/*
 * resolve: naming frames of running processes (PIE, non-PIE, a library
 * loaded later, a deleted executable, a process that exited), the
 * unknown forms, the vDSO, and the symbol cache's sharing and bounds.
 */
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc_root.h"
#include "proc/procmaps.h"
#include "sym/resolve.h"
#include "config.h"
#include "sym/symcache.h"
#include "sym/symfile.h"
#include "elf/symtab.h"

#include "tap.h"
#include "symfix.h"

static char	dir[FX_DIR_MAX];

static const char *
fpath(const char *name)
{
	static char	 buf[4][FX_DIR_MAX + 64];
	static int	 i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static struct resolve *
mkresolve(int module_offset, int address, long long files, long long rounds)
{
	struct config	*conf;
	struct resolve	*r;

	conf = config_defaults();
	conf->unknown_symbol_module_offset = module_offset;
	conf->unknown_symbol_address = address;
	if (files > 0)
		conf->symbol_cache_files = files;
	if (rounds > 0)
		conf->symbol_cache_rounds = rounds;
	r = resolve_create(conf);
	config_free(conf);
	return r;
}

/* The functions of a running fixture, at runtime addresses. */
static void
test_exe(const char *file)
{
	static const char *const names[] = { "fx_alpha", "fx_beta",
	    "fx_static", "main", NULL };
	const char *const	*n;
	struct fx_syms		 syms;
	const struct fx_sym	*s;
	struct fx_proc		 p;
	struct resolve		*r;
	struct resolve_proc	*rp;
	uint64_t		 a;

	if (fx_nm(fpath(file), 0, &syms) == -1 ||
	    fx_proc_start(&p, fpath(file)) == -1) {
		ok(0, "%s: started", file);
		return;
	}
	r = mkresolve(0, 0, 0, 0);
	rp = resolve_proc_open(r, p.pid);
	ok(rp != NULL, "%s: opened", file);
	for (n = names; *n != NULL; n++) {
		if (strcmp(*n, "main") == 0)
			continue;	/* main's address is not printed */
		a = fx_proc_addr(&p, *n);
		s = fx_find(&syms, *n);
		if (a == 0 || s == NULL || s->size == 0) {
			ok(0, "%s: %s known", file, *n);
			continue;
		}
		is_str(resolve_user(r, rp, a), *n, "%s: %s first byte", file,
		    *n);
		is_str(resolve_user(r, rp, a + s->size / 2), *n,
		    "%s: %s middle", file, *n);
		is_str(resolve_user(r, rp, a + s->size - 1), *n,
		    "%s: %s last byte", file, *n);
	}
	a = fx_proc_addr(&p, "fx_asm0");
	is_str(resolve_user(r, rp, a + 3), "fx_asm0",
	    "%s: size-0 function", file);

	/* The process exits: its names stay. */
	fx_proc_stop(&p);
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fx_alpha")),
	    "fx_alpha", "%s: named after the process exited", file);
	is_str(resolve_user(r, rp, 0x10), "[unknown]",
	    "%s: exited, an address in no mapping", file);
	resolve_proc_close(r, rp);
	resolve_free(r);
}

/* A library dlopen()ed after we read the maps: read them again, once. */
static void
test_dlopen(void)
{
	struct fx_proc		 p;
	struct resolve		*r;
	struct resolve_proc	*rp;
	struct resolve_stats	 st;
	uint64_t		 w, w2, kept;

	if (fx_sh("cp '%s' '%s'", fpath("libfx.so"),
	    fpath("libfx.copy.so")) == -1 ||
	    fx_proc_start(&p, fpath("pie")) == -1) {
		ok(0, "dlopen: started");
		return;
	}
	r = mkresolve(0, 0, 0, 0);
	rp = resolve_proc_open(r, p.pid);
	if (fx_proc_dlopen(&p, fpath("libfx.so")) == -1 ||
	    (w = fx_proc_addr(&p, "fxlib_work")) == 0) {
		ok(0, "dlopen libfx.so");
		goto out;
	}
	is_str(resolve_user(r, rp, w), "fxlib_work",
	    "library loaded later: maps read again");
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fxlib_static")),
	    "fxlib_static", "library loaded later: static function");
	/* Read again for the same program: the old mappings keep theirs. */
	resolve_stats(r, &st);
	ok(st.kept >= 2, "read again: %llu tables kept, not looked up",
	    (unsigned long long)st.kept);
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fx_alpha")), "fx_alpha",
	    "read again: a kept table still names");
	kept = st.kept;
	resolve_proc_reload_maps(r, rp, procmaps_read(p.pid));
	resolve_stats(r, &st);
	ok(st.kept > kept, "reload_maps: tables kept (%llu more)",
	    (unsigned long long)(st.kept - kept));
	is_str(resolve_user(r, rp, w), "fxlib_work", "reload_maps: names");
	/* After an exec nothing is kept, even where the maps look alike. */
	kept = st.kept;
	resolve_proc_refresh(r, rp);
	resolve_stats(r, &st);
	is_int(st.kept, kept, "refresh (exec): no table kept");
	is_str(resolve_user(r, rp, w), "fxlib_work", "refresh (exec): names");

	p.addrs.n = 0;
	if (fx_proc_dlopen(&p, fpath("libfx.copy.so")) == -1 ||
	    (w2 = fx_proc_addr(&p, "fxlib_work")) == 0 || w2 == w) {
		ok(0, "dlopen libfx.copy.so");
		goto out;
	}
	is_str(resolve_user(r, rp, w2), "[unknown]",
	    "a second new library in the same round: not read again");
	resolve_round_end(r);
	is_str(resolve_user(r, rp, w2), "fxlib_work",
	    "next round: read again");
	resolve_stats(r, &st);
	is_int(st.frames, st.named + st.unknown, "frames = named + unknown");
	is_int(st.unknown, 1, "one unknown frame");
out:
	fx_proc_stop(&p);
	resolve_proc_close(r, rp);
	resolve_free(r);
}

/*
 * An address that cannot be code (in a data mapping, in the first page,
 * above user space) makes no re-read; one where nothing was mapped
 * does, and if that finds nothing it is remembered; maps 8 rounds old
 * (RESOLVE_DATA_ROUNDS), and what was remembered 8 rounds ago, are
 * read again for any.
 */
static void
test_bad(void)
{
	struct resolve		*r;
	struct resolve_proc	*rp;
	struct resolve_stats	 st;
	static int		 datum;
	void			*code, *hole;
	uint64_t		 gen;
	int			 i;

	r = mkresolve(0, 1, 0, 0);
	rp = resolve_proc_open(r, getpid());
	ok(rp != NULL, "bad: opened ourselves");
	if (rp == NULL)
		goto out;
	gen = resolve_proc_gen(rp);
	resolve_user(r, rp, (uintptr_t)&datum);
	resolve_user(r, rp, 0x10);
	resolve_user(r, rp, 0xeddbae3e21f45ce5ULL);
	resolve_stats(r, &st);
	is_int(st.rereads, 0, "bad: data, first page, kernel half: "
	    "not read again");
	is_int(st.bad_skips, 3, "bad: three re-reads spared");
	resolve_round_end(r);
	code = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		ok(0, "bad: mmap");
		goto out;
	}
	resolve_user(r, rp, (uintptr_t)code + 8);
	resolve_stats(r, &st);
	is_int(st.rereads, 1, "bad: code mapped since: read again");
	ok(resolve_proc_gen(rp) > gen, "bad: code mapped since: new maps");
	/* Mapped and gone since: a re-read for it finds nothing. */
	resolve_round_end(r);
	hole = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED) {
		ok(0, "bad: mmap");
		goto out;
	}
	munmap(hole, 4096);
	resolve_user(r, rp, (uintptr_t)hole + 8);
	resolve_stats(r, &st);
	is_int(st.rereads, 2, "bad: a hole: read again");
	resolve_round_end(r);
	resolve_user(r, rp, (uintptr_t)hole + 8);
	resolve_stats(r, &st);
	is_int(st.rereads, 2, "bad: the hole, next round: remembered");
	for (i = 0; i < 8; i++)
		resolve_round_end(r);
	resolve_user(r, rp, (uintptr_t)&datum);
	resolve_stats(r, &st);
	is_int(st.rereads, 3, "bad: maps 8 rounds old: read again");
	resolve_round_end(r);
	resolve_user(r, rp, (uintptr_t)hole + 8);
	resolve_stats(r, &st);
	is_int(st.rereads, 4, "bad: remembered 8 rounds ago: read again");
	munmap(code, 4096);
out:
	resolve_proc_close(r, rp);
	resolve_free(r);
}

/* The unknown forms, on a stripped executable. */
static void
test_unknown(void)
{
	struct fx_syms		 syms;
	struct fx_segs		 segs;
	const struct fx_sym	*s;
	struct fx_proc		 p;
	struct resolve		*rm, *ra, *rn, *rb;
	struct resolve_proc	*rpm, *rpa, *rpn, *rpb;
	char			 want[256];
	uint64_t		 a, off;
	void			*anon;

	if (fx_nm(fpath("pie"), 0, &syms) == -1 ||
	    (s = fx_find(&syms, "fx_alpha")) == NULL ||
	    fx_segments(fpath("pie"), &segs) == -1 ||
	    fx_proc_start(&p, fpath("pie.stripped")) == -1) {
		ok(0, "pie.stripped started");
		return;
	}
	/* Inside fx_alpha: named by the function's start (.eh_frame_hdr). */
	a = fx_proc_addr(&p, "fx_alpha") + 1;
	off = fx_vaddr_to_offset(&segs, s->addr);
	rm = mkresolve(1, 0, 0, 0);
	ra = mkresolve(0, 1, 0, 0);
	rn = mkresolve(0, 0, 0, 0);
	rb = mkresolve(1, 1, 0, 0);
	rpm = resolve_proc_open(rm, p.pid);
	rpa = resolve_proc_open(ra, p.pid);
	rpn = resolve_proc_open(rn, p.pid);
	rpb = resolve_proc_open(rb, p.pid);
	snprintf(want, sizeof(want), "pie.stripped+0x%llx",
	    (unsigned long long)off);
	is_str(resolve_user(rm, rpm, a), want,
	    "unknown_symbol_module_offset: basename+its function's offset");
	is_str(resolve_user(rb, rpb, a), want,
	    "both on: module offset first");
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)a);
	is_str(resolve_user(ra, rpa, a), want,
	    "unknown_symbol_address: the address");
	is_str(resolve_user(rn, rpn, a), "[unknown]", "neither: [unknown]");
	is_str(resolve_user(rb, rpb, 0x10), "0x10",
	    "both on, in no mapping: the address");
	is_str(resolve_user(rm, rpm, 0x10), "[unknown]",
	    "module offset only, in no mapping: [unknown]");
	is_str(resolve_user(rm, NULL, a), "[unknown]", "no process");
	fx_proc_stop(&p);
	resolve_proc_close(rm, rpm);
	resolve_proc_close(ra, rpa);
	resolve_proc_close(rn, rpn);
	resolve_proc_close(rb, rpb);

	/* Anonymous executable memory (JIT code) is no module. */
	anon = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon != MAP_FAILED) {
		rpm = resolve_proc_open(rm, getpid());
		rpb = resolve_proc_open(rb, getpid());
		is_str(resolve_user(rm, rpm, (uintptr_t)anon + 8),
		    "[unknown]", "anonymous: no module offset");
		snprintf(want, sizeof(want), "0x%llx",
		    (unsigned long long)(uintptr_t)anon + 8);
		is_str(resolve_user(rb, rpb, (uintptr_t)anon + 8), want,
		    "anonymous: the address");
		resolve_proc_close(rm, rpm);
		resolve_proc_close(rb, rpb);
		munmap(anon, 4096);
	}
	resolve_free(rm);
	resolve_free(ra);
	resolve_free(rn);
	resolve_free(rb);
}

/* Deleted executables, and a path that now holds another file. */
static void
test_deleted(void)
{
	const struct procmaps_entry	*e;
	struct procmaps			*m;
	struct fx_proc			 p;
	struct resolve			*r;
	struct resolve_proc		*rp;
	struct symcache			*c;
	struct symcache_file		*f;
	struct procmaps_entry		 fake;
	struct config			*conf;
	struct fx_syms			 syms;
	const struct fx_sym		*s;
	uint64_t			 a;

	if (fx_sh("cp '%s' '%s'", fpath("pie"), fpath("pie.del")) == -1 ||
	    fx_proc_start(&p, fpath("pie.del")) == -1) {
		ok(0, "pie.del started");
		return;
	}
	unlink(fpath("pie.del"));
	a = fx_proc_addr(&p, "fx_beta");
	m = procmaps_read(p.pid);
	e = procmaps_lookup(m, a);
	ok(e != NULL && e->deleted, "maps: the executable is (deleted)");
	r = mkresolve(1, 0, 0, 0);
	rp = resolve_proc_open(r, p.pid);
	is_str(resolve_user(r, rp, a), "fx_beta",
	    "deleted executable: read through map_files");
	resolve_proc_close(r, rp);
	resolve_free(r);

	/*
	 * The maps path names another file (nopie), as a container could
	 * arrange: its inode differs, map_files gives the mapped file.
	 */
	if (e != NULL && fx_nm(fpath("nopie"), 0, &syms) == 0 &&
	    (s = fx_find(&syms, "fx_beta")) != NULL) {
		fake = *e;
		fake.deleted = 0;
		fake.path = fpath("nopie");
		conf = config_defaults();
		c = symcache_create(conf);
		f = symcache_get(c, p.pid, &fake);
		ok(f != NULL && symcache_file_count(f) > 0,
		    "planted file: a table");
		if (f != NULL)
			is_str(symcache_symbol(c, f, a - e->start + e->offset),
			    "fx_beta", "planted file: the mapped file's "
			    "symbols");
		if (f != NULL)
			ok(symcache_symbol_vaddr(c, f, s->addr) == NULL ||
			    strcmp(symcache_symbol_vaddr(c, f, s->addr),
			    "fx_beta") != 0, "planted file: not the planted "
			    "file's symbols");
		symcache_put(c, f);
		symcache_free(c);
		config_free(conf);
	}
	procmaps_free(m);
	fx_proc_stop(&p);
}

static void
test_cache(void)
{
	struct config		*conf;
	struct fx_proc		 p, q;
	struct resolve		*r;
	struct resolve_proc	*rp, *rq;
	struct resolve_stats	 st, st2;
	uint64_t		 addr;

	if (fx_proc_start(&p, fpath("pie")) == -1 ||
	    fx_proc_start(&q, fpath("pie")) == -1) {
		ok(0, "two pie started");
		return;
	}
	r = mkresolve(0, 0, 0, 3);
	rp = resolve_proc_open(r, p.pid);
	resolve_stats(r, &st);
	ok(st.files >= 2, "first process: %zu tables", st.files);
	rq = resolve_proc_open(r, q.pid);
	resolve_stats(r, &st2);
	is_int(st2.files, st.files, "second process: no new table");
	is_int(st2.misses, st.misses, "second process: no miss");
	ok(st2.hits > st.hits, "second process: hits");
	ok(st2.file_bytes > 0 && st2.file_bytes == st.file_bytes,
	    "bytes counted (%zu)", st2.file_bytes);

	/*
	 * Used in round 0, then unused for rounds 1, 2 and 3: dropped at
	 * the end of round 3.
	 */
	resolve_round_end(r);
	resolve_round_end(r);
	resolve_round_end(r);
	resolve_stats(r, &st);
	is_int(st.files, st2.files, "two idle rounds: kept");
	resolve_round_end(r);
	resolve_stats(r, &st);
	is_int(st.files, 0, "three idle rounds: dropped");
	is_int(st.file_bytes, 0, "three idle rounds: no bytes");
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fx_alpha")), "fx_alpha",
	    "dropped table: loaded again when needed");
	resolve_stats(r, &st);
	is_int(st.files, 1, "one table back");
	is_str(resolve_user(r, rq, fx_proc_addr(&q, "fx_beta")), "fx_beta",
	    "the other process: shares it");
	resolve_stats(r, &st2);
	is_int(st2.files, 1, "still one table");
	resolve_proc_close(r, rp);
	resolve_proc_close(r, rq);
	resolve_free(r);

	/*
	 * At most a byte: the tables the round used stay until it ends
	 * (its samples are named from them then, even if their process
	 * is gone), then only the one used last.
	 */
	conf = config_defaults();
	conf->symbol_cache_bytes = 1;
	r = resolve_create(conf);
	config_free(conf);
	rp = resolve_proc_open(r, p.pid);
	resolve_stats(r, &st);
	ok(st.files > 1, "symbol_cache_bytes 1: the round's tables stay");
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fx_alpha")), "fx_alpha",
	    "symbol_cache_bytes 1: named");
	resolve_round_end(r);
	resolve_stats(r, &st);
	is_int(st.files, 1, "symbol_cache_bytes 1: one table after the round");
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fx_alpha")), "fx_alpha",
	    "symbol_cache_bytes 1: still named");
	resolve_proc_close(r, rp);
	resolve_free(r);

	/* At most one table, once the round is over. */
	r = mkresolve(0, 0, 1, 0);
	rp = resolve_proc_open(r, p.pid);
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fx_alpha")), "fx_alpha",
	    "symbol_cache_files 1: named");
	resolve_round_end(r);
	resolve_stats(r, &st);
	is_int(st.files, 1, "symbol_cache_files 1: one table after the round");
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fx_alpha")), "fx_alpha",
	    "symbol_cache_files 1: still named");
	resolve_proc_close(r, rp);
	resolve_free(r);

	/*
	 * A process that exits after its tables were read, in a round
	 * that then reads more tables than the bounds allow: its frames
	 * are still named at the round's end.
	 */
	fx_proc_stop(&q);
	if (fx_proc_start(&q, fpath("nopie")) == -1) {
		ok(0, "nopie started");
		fx_proc_stop(&p);
		return;
	}
	r = mkresolve(0, 0, 1, 0);
	rq = resolve_proc_open(r, q.pid);
	addr = fx_proc_addr(&q, "fx_beta");
	fx_proc_stop(&q);
	rp = resolve_proc_open(r, p.pid);
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fx_alpha")), "fx_alpha",
	    "symbol_cache_files 1: a live process named");
	is_str(resolve_user(r, rq, addr), "fx_beta",
	    "symbol_cache_files 1: an exited one too, in the same round");
	resolve_proc_close(r, rp);
	resolve_proc_close(r, rq);
	resolve_free(r);
	fx_proc_stop(&p);
}

/*
 * Another process's vDSO, named through resolve_user, and read from its
 * memory the way a vDSO unlike ours is.
 */
static void
test_vdso_child(uint64_t off)
{
	const struct procmaps_entry	*e = NULL;
	struct procmaps			*m;
	struct fx_proc			 p;
	struct resolve			*r;
	struct resolve_proc		*rp;
	struct symfile			 sf;
	struct symtab_sym		*s;
	void				*buf;
	size_t				 i;

	if (fx_proc_start(&p, fpath("pie")) == -1 ||
	    (m = procmaps_read(p.pid)) == NULL) {
		ok(0, "vDSO: child started");
		return;
	}
	for (i = 0; i < m->n; i++)
		if (strcmp(m->v[i].path, "[vdso]") == 0)
			e = &m->v[i];
	if (e == NULL) {
		ok(0, "vDSO: the child has one");
		goto out;
	}
	r = mkresolve(1, 0, 0, 0);
	rp = resolve_proc_open(r, p.pid);
	is_str(resolve_user(r, rp, e->start + off + 1), "__vdso_clock_gettime",
	    "vDSO: another process's");
	resolve_proc_close(r, rp);
	resolve_free(r);

	buf = malloc(e->end - e->start);
	memset(&sf, 0, sizeof(sf));
	ok(proc_root_read_mem(p.pid, e->start, buf, e->end - e->start) == 0,
	    "vDSO: read from the process's memory");
	ok(symfile_load_mem(&sf, buf, e->end - e->start) == 0 &&
	    sf.build_id_len > 0, "vDSO: an ELF image with a build id");
	s = (struct symtab_sym *)symtab_find(sf.symtab, off + 1);
	is_str(s != NULL ? symtab_name(sf.symtab, s) : NULL,
	    "__vdso_clock_gettime", "vDSO: named from the process's memory");
	symfile_release(&sf);
	free(buf);
	ok(proc_root_read_mem(p.pid, 0, &off, sizeof(off)) == -1,
	    "unmapped memory: an error");
out:
	procmaps_free(m);
	fx_proc_stop(&p);
}

/* The vDSO, named from our own copy of it. */
static void
test_vdso(void)
{
	const struct procmaps_entry	*e;
	struct procmaps			*m;
	struct fx_syms			 syms;
	struct fx_segs			 segs;
	struct resolve			*r;
	struct resolve_proc		*rp;
	const char			*got;
	unsigned long			 base;
	uint64_t			 off, vdso_off = 0;
	size_t				 i;
	int				 found = 0;

	if ((base = getauxval(AT_SYSINFO_EHDR)) == 0 ||
	    (m = procmaps_read(getpid())) == NULL) {
		printf("ok %d # SKIP no vDSO\n", ++tap_n);
		return;
	}
	e = procmaps_lookup(m, base);
	if (e == NULL || fx_write(fpath("vdso.so"), (void *)base,
	    e->end - e->start) == -1 || fx_nm(fpath("vdso.so"), 1,
	    &syms) == -1 || fx_segments(fpath("vdso.so"), &segs) == -1) {
		ok(0, "vDSO dumped");
		procmaps_free(m);
		return;
	}
	r = mkresolve(1, 0, 0, 0);
	rp = resolve_proc_open(r, getpid());
	for (i = 0; i < syms.n; i++) {
		/* nm -D adds the version: __vdso_clock_gettime@@LINUX_2.6 */
		syms.v[i].name[strcspn(syms.v[i].name, "@")] = '\0';
		if (strcmp(syms.v[i].name, "__vdso_clock_gettime") != 0)
			continue;
		off = fx_vaddr_to_offset(&segs, syms.v[i].addr);
		/* The global name, not its weak alias clock_gettime. */
		got = resolve_user(r, rp, base + off + 1);
		is_str(got, "__vdso_clock_gettime", "vDSO: our own");
		vdso_off = off;
		found = 1;
	}
	if (!found)
		printf("ok %d # SKIP no __vdso_clock_gettime\n", ++tap_n);
	resolve_proc_close(r, rp);
	resolve_free(r);
	procmaps_free(m);
	if (found)
		test_vdso_child(vdso_off);
}

/* t/helper/resolve prints what the daemon would. */
static void
test_helper(void)
{
	struct fx_proc	 p;
	struct fx_syms	 syms;
	const struct fx_sym *s;
	const char	*build;
	char		 cmd[1024], out[1024], want[512];
	FILE		*f;
	size_t		 n;

	if ((build = getenv("EBPFSPY_BUILD_DIR")) == NULL) {
		printf("ok %d # SKIP EBPFSPY_BUILD_DIR not set\n", ++tap_n);
		return;
	}
	if (fx_proc_start(&p, fpath("pie")) == -1 ||
	    fx_nm(fpath("pie"), 0, &syms) == -1 ||
	    (s = fx_find(&syms, "fx_beta")) == NULL) {
		ok(0, "helper: fixture");
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s/t/helper/resolve -p %d %llx 0x%llx 10;"
	    "%s/t/helper/resolve -A -p %d 10;"
	    "%s/t/helper/resolve -f %s %llx;"
	    "%s/t/helper/resolve -M -f %s/pie.stripped %llx", build,
	    (int)p.pid, (unsigned long long)fx_proc_addr(&p, "fx_alpha"),
	    (unsigned long long)fx_proc_addr(&p, "fx_static"), build,
	    (int)p.pid, build, fpath("pie"), (unsigned long long)s->addr,
	    build, dir, (unsigned long long)s->addr);
	snprintf(want, sizeof(want),
	    "fx_alpha\nfx_static\n[unknown]\n0x10\nfx_beta\n[unknown]\n");
	out[0] = '\0';
	if ((f = popen(cmd, "r")) != NULL) {
		n = fread(out, 1, sizeof(out) - 1, f);
		out[n] = '\0';
		pclose(f);
	}
	is_str(out, want, "t/helper/resolve -p, -A, -f, -M");
	fx_proc_stop(&p);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	if (fx_build(dir) == -1) {
		printf("# SKIP no C compiler or binutils to build fixtures\n");
		return done_testing();
	}
	test_exe("pie");
	test_exe("nopie");
	test_dlopen();
	test_bad();
	test_unknown();
	test_deleted();
	test_cache();
	test_vdso();
	test_helper();
	fx_clean(dir);
	return done_testing();
}
