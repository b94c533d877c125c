/*
 * Naming frames.
 *
 * A user frame is named after the function covering its address in the
 * file mapped there, without an offset: "main", not "main+0x12", since
 * profiles add samples up by function.  The file's symbols come from its
 * .symtab and .dynsym, its separate debug file or MiniDebugInfo, or Go's
 * pclntab (symfile.c); C++ and Rust names are demangled as configured.
 * In Go code inlined from another function, the frame is named after
 * the innermost function inlined there, as Go names it;
 * resolve_user_frames gives the whole chain.  Code in anonymous memory,
 * or in a file without a symbol for it, is named from the process's perf
 * map (/tmp/perf-PID.map, JIT compilers) when it has one.  A kernel
 * frame is named "sym" in the core kernel and "sym [module]" in a
 * module, from /proc/kallsyms.
 *
 * A frame without a symbol is named by the first of these that applies:
 *
 *   1. MODULE+0xOFFSET, when unknown_symbol_module_offset is on (the
 *      default) and the address lies in a named mapping of the process:
 *      MODULE is the base name of the mapped file ("libfoo.so+0x1a2b",
 *      also "[vdso]+0x9c0"), OFFSET the offset in that file, in lowercase
 *      hex: of the start of the function the address is in where the
 *      file's .eh_frame_hdr tells it (a stripped file: its samples add
 *      up under one name), else of the address.  Never for kernel
 *      frames.
 *   2. 0xADDRESS, the address itself in lowercase hex, when
 *      unknown_symbol_address is on.
 *   3. [unknown].
 *
 * The state of each process, its mappings, their tables and its perf
 * map, is resolve_proc.c's.
 */
#include <sys/types.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "dwarf/srcline.h"
#include "elf/debuginfo.h"
#include "kallsyms.h"
#include "util/log.h"
#include "perfmap.h"
#include "proc/procmaps.h"
#include "resolve.h"
#include "resolve_int.h"
#include "symcache.h"
#include "util/clock.h"
#include "util/xmalloc.h"

/* A kernel address kallsyms did not know reloads it, this rarely. */
#define RESOLVE_KSYMS_RELOAD_ROUNDS	10

struct resolve *
resolve_create(const struct config *conf)
{
	struct resolve	*r;

	r = xcalloc(1, sizeof(*r));
	r->cache = symcache_create(conf);
	resolve_configure(r, conf);
	return r;
}

void
resolve_free(struct resolve *r)
{
	if (r == NULL)
		return;
	kallsyms_free(r->ksyms);
	symcache_free(r->cache);
	free(r);
}

void
resolve_configure(struct resolve *r, const struct config *conf)
{
	/* Names may come out otherwise: every cache of them is stale. */
	r->epoch++;
	r->module_offset = conf->unknown_symbol_module_offset;
	r->address = conf->unknown_symbol_address;
	r->perf_maps = conf->perf_maps;
	symcache_configure(r->cache, conf);
}

static const struct config_enum demangle_enum[] = {
	{ "none", CONFIG_DEMANGLE_NONE },
	{ "simplified", CONFIG_DEMANGLE_SIMPLIFIED },
	{ "full", CONFIG_DEMANGLE_FULL },
	{ NULL, 0 }
};

/* [symbols]: how frames are named. */
const struct config_key resolve_keys[] = {
	{ "symbols", "unknown_symbol_module_offset", CONFIG_BOOL,
	    CONFIG_OFF(unknown_symbol_module_offset), 0, 0, NULL, "yes",
	    CONFIG_LIVE, "name unknown frames module+0xoffset", NULL },
	{ "symbols", "unknown_symbol_address", CONFIG_BOOL,
	    CONFIG_OFF(unknown_symbol_address), 0, 0, NULL, "no", CONFIG_LIVE,
	    "name unknown frames by their address", NULL },
	{ "symbols", "cache_files", CONFIG_INT, CONFIG_OFF(symbol_cache_files),
	    1, 1000000, NULL, "1024", CONFIG_LIVE, "symbol tables kept loaded",
	    NULL },
	{ "symbols", "cache_rounds", CONFIG_INT,
	    CONFIG_OFF(symbol_cache_rounds), 1, 100000, NULL, "20", CONFIG_LIVE,
	    "rounds an unused symbol table is kept", NULL },
	{ "symbols", "cache_bytes", CONFIG_INT, CONFIG_OFF(symbol_cache_bytes),
	    1048576, 1LL << 40, NULL, "8388608", CONFIG_LIVE,
	    "memory of the symbol tables kept loaded, bytes", NULL },
	{ "symbols", "max_symbols_per_file", CONFIG_INT,
	    CONFIG_OFF(symbol_max_symbols), 1000, 16777216, NULL, "500000",
	    CONFIG_LIVE, "entries of one symbol table, or Go functions, "
	    "a file may have; more: refused", NULL },
	{ "symbols", "max_symbol_bytes_per_file", CONFIG_INT,
	    CONFIG_OFF(symbol_max_bytes), 65536, 4294967294LL, NULL,
	    "67108864", CONFIG_LIVE, "bytes of symbol names a file may have; "
	    "more: refused", NULL },
	{ "symbols", "max_debugdata_bytes", CONFIG_INT,
	    CONFIG_OFF(symbol_max_debugdata), 65536, 134217728, NULL,
	    "16777216", CONFIG_LIVE, "MiniDebugInfo a file may have, "
	    "decompressed, bytes; more: refused", NULL },
	{ "symbols", "demangle", CONFIG_ENUM, CONFIG_OFF(demangle), 0, 0,
	    demangle_enum, "simplified", CONFIG_LIVE,
	    "C++/Rust names: none, simplified or full", NULL },
	{ "symbols", "debug_dirs", CONFIG_STRING, CONFIG_OFF(debug_dirs), 0, 0,
	    NULL, "/usr/lib/debug", CONFIG_LIVE,
	    "directories of separate debug files, colon-separated",
	    debuginfo_dirs_check },
	{ "symbols", "perf_maps", CONFIG_BOOL, CONFIG_OFF(perf_maps), 0, 0,
	    NULL, "yes", CONFIG_LIVE, "name JIT code from /tmp/perf-PID.map",
	    NULL },
	{ "symbols", "inlines", CONFIG_BOOL, CONFIG_OFF(symbol_inlines), 0, 0,
	    NULL, "yes", CONFIG_LIVE, "native functions inlined, from DWARF, "
	    "as frames of their own", NULL },
	{ "symbols", "dwarf_bytes", CONFIG_INT,
	    CONFIG_OFF(symbol_dwarf_bytes), 0, 1LL << 40, NULL, "67108864",
	    CONFIG_LIVE, "memory the DWARF of one file may take, bytes; "
	    "more: refused; 0: no DWARF read", NULL },
	{ "symbols", "debuginfod_urls", CONFIG_STRING,
	    CONFIG_OFF(debuginfod_urls), 0, 0, NULL, "", CONFIG_LIVE,
	    "debuginfod servers to fetch missing debug files from, "
	    "blank-separated (\"\": $DEBUGINFOD_URLS, else none)", NULL },
	{ "symbols", "debuginfod_cache", CONFIG_STRING,
	    CONFIG_OFF(debuginfod_cache), 0, 0, NULL, "", CONFIG_LIVE,
	    "directory of the debug files fetched (\"\": .debuginfod in "
	    "the output directory)", config_check_abspath },
	{ "symbols", "debuginfod_max_bytes", CONFIG_INT,
	    CONFIG_OFF(debuginfod_max_bytes), 4096, 1LL << 34, NULL,
	    "268435456", CONFIG_LIVE,
	    "largest debug file fetched, bytes", NULL },
	{ "symbols", "debuginfod_cache_bytes", CONFIG_INT,
	    CONFIG_OFF(debuginfod_cache_bytes), 65536, 1LL << 40, NULL,
	    "1073741824", CONFIG_LIVE,
	    "size of the debug files fetched kept on disk, bytes", NULL },
	{ "symbols", "debuginfod_timeout", CONFIG_INT,
	    CONFIG_OFF(debuginfod_timeout), 1, 3600, NULL, "60", CONFIG_LIVE,
	    "seconds one fetch may take", NULL },
	{ NULL }
};


static const char *
resolve_unknown(struct resolve *r, const char *module, uint64_t off,
    uint64_t addr)
{
	r->unknown++;
	if (module != NULL && *module != '\0' && r->module_offset) {
		snprintf(r->buf, sizeof(r->buf), "%s+0x%llx", module,
		    (unsigned long long)off);
		return r->buf;
	}
	if (r->address) {
		snprintf(r->buf, sizeof(r->buf), "0x%llx",
		    (unsigned long long)addr);
		return r->buf;
	}
	return "[unknown]";
}

/* Where the frame at file offset off of mapping e is, f its table. */
static void
resolve_where_fill(struct resolve_where *w, const struct procmaps_entry *e,
    struct symcache_file *f, uint64_t off)
{
	uint64_t	 vaddr;

	if (e->kind == PROCMAPS_ANON)
		return;
	w->path = e->path;
	w->start = e->offset;
	w->limit = e->offset + (e->end - e->start);
	w->offset = e->offset;
	w->addr = off;
	if (f == NULL)
		return;
	w->build_id = symcache_file_build_id(f, &w->build_id_len);
	if (symcache_file_vaddr(f, off, &vaddr) == 0 &&
	    vaddr >= off - e->offset) {
		/* A mapping is linear: its start is as far before. */
		w->start = vaddr - (off - e->offset);
		w->limit = w->start + (e->end - e->start);
		w->addr = vaddr;
	}
	w->system = symcache_system_name(f, w->addr);
}

/*
 * Name the frame at addr into names (max of them; chain: Go's inlined
 * calls too, else only the innermost name).  How many, at least 1.
 * Where it is into w, if not NULL.
 */
static size_t
resolve_user_names(struct resolve *r, struct resolve_proc *rp,
    uint64_t addr, const char **names, size_t max, int chain,
    struct resolve_where *w)
{
	const struct procmaps_entry	*e;
	struct symcache_file		*f;
	const char			*name;
	uint64_t			 off, vaddr, later;
	size_t				 i, n = 0;

	r->frames++;
	if (rp == NULL) {
		r->unstable++;
		names[0] = resolve_unknown(r, NULL, 0, addr);
		return 1;
	}
	if ((e = resolve_proc_find(rp, addr)) == NULL &&
	    resolve_proc_reread(r, rp, addr) &&
	    (e = resolve_proc_find(rp, addr)) == NULL)
		resolve_proc_add_bad(r, rp, addr);
	if (e == NULL) {
		/* A library mapped later, a perf map written later. */
		r->unstable++;
		if ((name = resolve_proc_perfmap(r, rp, addr)) != NULL) {
			r->named++;
			names[0] = name;
			return 1;
		}
		names[0] = resolve_unknown(r, NULL, 0, addr);
		return 1;
	}
	i = e - rp->maps->v;
	off = addr - e->start + e->offset;
	if ((f = rp->files[i]) != NULL && symcache_file_is_evicted(f)) {
		/* Unused for a while, dropped: get it back. */
		rp->files[i] = symcache_get(r->cache, rp->pid, e);
		symcache_put(r->cache, f);
		f = rp->files[i];
	}
	if (w != NULL)
		resolve_where_fill(w, e, f, off);
	if (f != NULL) {
		if (!chain) {
			if ((names[0] = symcache_symbol(r->cache, f, off)) !=
			    NULL)
				n = 1;
		} else if (symcache_file_vaddr(f, off, &vaddr) == 0) {
			later = symcache_dwarf_later(r->cache);
			n = symcache_frames(r->cache, f, vaddr, names, max);
			/* DWARF's time was up: named again next round. */
			if (symcache_dwarf_later(r->cache) != later)
				r->unstable++;
			if (w != NULL && n > 0 &&
			    n <= RESOLVE_WHERE_LINES_MAX &&
			    symcache_lines(r->cache, f, vaddr, w->files,
			    w->lines, n) ==
			    n)
				w->nlines = n;
		}
		if (n > 0) {
			r->named++;
			return n;
		}
	}
	if ((name = resolve_proc_perfmap(r, rp, addr)) != NULL) {
		/* JIT code: the map may give the address another name. */
		r->unstable++;
		r->named++;
		names[0] = name;
		return 1;
	}
	if (e->kind == PROCMAPS_ANON && r->perf_maps)
		r->unstable++;
	/* A stripped file: one name for the function's addresses. */
	names[0] = resolve_unknown(r, e->kind == PROCMAPS_ANON ? NULL :
	    procmaps_basename(e), f != NULL ? symcache_function_start(f, off) :
	    off, addr);
	return 1;
}

const char *
resolve_user(struct resolve *r, struct resolve_proc *rp, uint64_t addr)
{
	const char	*name;

	resolve_user_names(r, rp, addr, &name, 1, 0, NULL);
	return name;
}

size_t
resolve_user_frames(struct resolve *r, struct resolve_proc *rp,
    uint64_t addr, const char **names, size_t max)
{
	if (max == 0)
		return 0;
	return resolve_user_names(r, rp, addr, names, max, 1, NULL);
}

size_t
resolve_user_frames_where(struct resolve *r, struct resolve_proc *rp,
    uint64_t addr, const char **names, size_t max, struct resolve_where *w)
{
	memset(w, 0, sizeof(*w));
	if (max == 0)
		return 0;
	return resolve_user_names(r, rp, addr, names, max, 1, w);
}

static void
resolve_ksyms_load(struct resolve *r)
{
	struct kallsyms	*ks;
	int64_t		 t0;

	r->ksyms_loaded = 1;
	r->ksyms_round = r->round;
	r->kgen++;
	t0 = clock_ns(CLOCK_MONOTONIC);
	if ((ks = kallsyms_read(NULL)) == NULL)
		return;
	log_debug("kallsyms: %zu symbols read in %.1f ms", kallsyms_count(ks),
	    (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	kallsyms_free(r->ksyms);
	r->ksyms = ks;
}

/*
 * Read kallsyms now, before the first round that names kernel frames:
 * formatting it costs the kernel a tenth of a second.
 */
void
resolve_kernel_load(struct resolve *r)
{
	if (!r->ksyms_loaded)
		resolve_ksyms_load(r);
}

const char *
resolve_kernel(struct resolve *r, uint64_t addr)
{
	const char	*name;

	r->frames++;
	if (!r->ksyms_loaded)
		resolve_ksyms_load(r);
	if ((name = kallsyms_lookup(r->ksyms, addr)) == NULL &&
	    r->round >= r->ksyms_round + RESOLVE_KSYMS_RELOAD_ROUNDS) {
		/* A module or BPF program loaded since. */
		resolve_ksyms_load(r);
		name = kallsyms_lookup(r->ksyms, addr);
	}
	if (name != NULL) {
		r->named++;
		return name;
	}
	/* kallsyms is read again, some rounds later. */
	r->unstable++;
	return resolve_unknown(r, NULL, 0, addr);
}

/*
 * Generations: each time a process's mappings are read (it opens,
 * execs, maps a library; resolve_proc_gen()), and each time kallsyms is
 * read, the names of its addresses may change, and so does the
 * generation.
 */
uint64_t
resolve_kernel_gen(const struct resolve *r)
{
	return r->kgen;
}

/*
 * How many names given so far could change within a generation (JIT
 * code of perf maps, addresses in no mapping, unknown kernel
 * addresses): the caller compares it before and after naming a stack.
 * Every name may change when the epoch does (a new configuration).
 */
uint64_t
resolve_epoch(const struct resolve *r)
{
	return r->epoch;
}

uint64_t
resolve_unstable(const struct resolve *r)
{
	return r->unstable;
}

static size_t
resolve_file_names(struct resolve *r, const char *path, uint64_t vaddr,
    const char **names, size_t max, int chain)
{
	struct symcache_file	*f;
	const char		*base;
	uint64_t		 off = 0;
	size_t			 n = 0;

	r->frames++;
	f = symcache_get_path(r->cache, path);
	/* A cached table outlives the reference; an uncached has no names. */
	if (!chain) {
		if ((names[0] = symcache_symbol_vaddr(r->cache, f, vaddr)) !=
		    NULL)
			n = 1;
	} else
		n = symcache_frames(r->cache, f, vaddr, names, max);
	if (n > 0) {
		symcache_put(r->cache, f);
		r->named++;
		return n;
	}
	if ((base = strrchr(path, '/')) != NULL && base[1] != '\0')
		base++;
	else
		base = path;
	if (symcache_file_offset(f, vaddr, &off) == -1)
		base = NULL;
	else
		off = symcache_function_start(f, off);
	symcache_put(r->cache, f);
	names[0] = resolve_unknown(r, base, off, vaddr);
	return 1;
}

const char *
resolve_file(struct resolve *r, const char *path, uint64_t vaddr)
{
	const char	*name;

	resolve_file_names(r, path, vaddr, &name, 1, 0);
	return name;
}

size_t
resolve_file_frames(struct resolve *r, const char *path, uint64_t vaddr,
    const char **names, size_t max)
{
	if (max == 0)
		return 0;
	return resolve_file_names(r, path, vaddr, names, max, 1);
}

void
resolve_round_end(struct resolve *r)
{
	symcache_round_end(r->cache);
	srcline_round_begin();
	r->round++;
}

void
resolve_stats(struct resolve *r, struct resolve_stats *st)
{
	struct symcache_stats	 cs;

	symcache_stats(r->cache, &cs);
	memset(st, 0, sizeof(*st));
	st->frames = r->frames;
	st->named = r->named;
	st->unknown = r->unknown;
	st->files = cs.files + r->nperfmaps;
	st->file_bytes = cs.bytes + r->perfmap_bytes;
	st->perf_maps = r->nperfmaps;
	st->perf_map_bytes = r->perfmap_bytes;
	st->ksyms = kallsyms_count(r->ksyms);
	st->ksym_bytes = kallsyms_bytes(r->ksyms);
	st->hits = cs.hits;
	st->misses = cs.misses;
	st->kept = r->kept;
	st->rereads = r->rereads;
	st->bad_skips = r->bad_skips;
}

size_t
resolve_debug_wants(struct resolve *r, struct symcache_build_id *ids,
    size_t max)
{
	return symcache_want_take(r->cache, ids, max);
}

/* The names of frames already made stand until their epoch changes. */
size_t
resolve_debug_fetched(struct resolve *r, const uint8_t *id, size_t len)
{
	size_t	 n;

	if ((n = symcache_want_fetched(r->cache, id, len)) > 0)
		r->epoch++;
	return n;
}
