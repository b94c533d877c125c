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
 *      hex.  Never for kernel frames.
 *   2. 0xADDRESS, the address itself in lowercase hex, when
 *      unknown_symbol_address is on.
 *   3. [unknown].
 *
 * The mappings of a process and the symbol tables of its files are read
 * when the process is opened, so that a process that exits before the
 * end of the round still gets names.  An address in no mapping makes us
 * read the maps again (a library loaded since), at most once per round
 * per process, and only while the process is the same one (its start
 * time has not changed).  Not for an address that cannot be code: one in
 * a non-executable mapping (heap, stack, data), or where no mapping can
 * be (the first page, above user space).  A stack walked by frame
 * pointers through code built without them (bash) is full of those, a
 * different few each round; a library loaded since lies where nothing
 * was mapped.  Nor for an address where a re-read made for it found
 * nothing either: sampled before that read, it was no code then (bash's
 * stacks also hold the same few such values round after round); up to
 * RESOLVE_BAD_MAX of them are remembered per process.  In case a mapping
 * was replaced since, these two kinds still make us read the maps again
 * once what we know is RESOLVE_DATA_ROUNDS rounds old.  A perf map is
 * read when a frame first needs it, and again when it changed, at most
 * once per round per process.
 */
#include <sys/types.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "debuginfo.h"
#include "kallsyms.h"
#include "log.h"
#include "perfmap.h"
#include "proc.h"
#include "procmaps.h"
#include "resolve.h"
#include "symcache.h"
#include "xmalloc.h"

/* A kernel address kallsyms did not know reloads it, this rarely. */
#define RESOLVE_KSYMS_RELOAD_ROUNDS	10
/* Maps this old are read again even for an address that is no code. */
#define RESOLVE_DATA_ROUNDS		8
/* Addresses a re-read did not find, remembered per process. */
#define RESOLVE_BAD_MAX			16
/* No user mapping below or above these (x86-64 and arm64 alike). */
#define RESOLVE_USER_MIN		0x1000ULL
#define RESOLVE_USER_MAX		0x00ffffffffffffffULL

struct resolve {
	int			 module_offset;
	int			 address;
	int			 perf_maps;
	size_t			 nperfmaps, perfmap_bytes;
	struct symcache		*cache;
	struct kallsyms		*ksyms;
	int			 ksyms_loaded;
	uint64_t		 ksyms_round;
	uint64_t		 round;
	uint64_t		 gen;		/* of the last maps loaded */
	uint64_t		 kgen;		/* kallsyms loads */
	uint64_t		 epoch;		/* configurations */
	uint64_t		 unstable;	/* names that may change */
	uint64_t		 frames, named, unknown;
	uint64_t		 kept;		/* tables kept on a re-read */
	uint64_t		 rereads;	/* maps read again */
	uint64_t		 bad_skips;	/* re-reads spared: no code */
	char			 buf[PATH_MAX + 32];
};

struct resolve_proc {
	pid_t			 pid;
	unsigned long long	 start_time;
	struct procmaps		*maps;
	uint64_t		 gen;		/* of these maps */
	struct symcache_file	**files;	/* one per mapping */
	uint64_t		 reread;	/* 1 + round of last re-read */
	uint64_t		 loaded;	/* 1 + round of these maps */
	uint64_t		 bad[RESOLVE_BAD_MAX];	/* in no mapping */
	size_t			 nbad;
	uint64_t		 bad_since;	/* 1 + round of the first */
	size_t			 last;		/* mapping of the last frame */
	struct perfmap		*pm;
	struct perfmap_proc	 pmp;		/* whose map */
	uint64_t		 pm_tried;	/* 1 + round of last read */
};

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
	{ NULL }
};

/* Field 22 of /proc/PID/stat: tells a process from a later one. */
static int
resolve_start_time(pid_t pid, unsigned long long *t)
{
	char		 buf[1024], *p, *end;
	int		 field;

	if (proc_read_file(pid, "stat", buf, sizeof(buf)) <= 0)
		return -1;
	/* comm is in parentheses and may hold anything: skip past it. */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	p++;
	for (field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			return -1;
		if (field == 22)
			break;
		while (*p != ' ' && *p != '\0')
			p++;
	}
	if (*p < '0' || *p > '9')
		return -1;
	*t = strtoull(p, &end, 10);
	return 0;
}

static int
resolve_entry_same(const struct procmaps_entry *a,
    const struct procmaps_entry *b)
{
	return a->start == b->start && a->end == b->end &&
	    a->offset == b->offset && a->inode == b->inode &&
	    a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	    a->kind == b->kind && a->deleted == b->deleted &&
	    strcmp(a->path, b->path) == 0;
}

/*
 * The table rp has for a mapping it had already, the same range of the
 * same file, or NULL.  Both lists are sorted by address: *j walks the
 * old one.
 */
static struct symcache_file *
resolve_proc_kept(struct resolve *r, struct resolve_proc *rp,
    const struct procmaps_entry *e, size_t *j)
{
	const struct procmaps	*old = rp->maps;

	while (*j < old->n && old->v[*j].start < e->start)
		(*j)++;
	if (*j == old->n || rp->files[*j] == NULL ||
	    !resolve_entry_same(&old->v[*j], e))
		return NULL;
	r->kept++;
	return symcache_hold(r->cache, rp->files[*j]);
}

/*
 * Take maps for rp, with the symbol tables of its files.  same: the
 * process still runs the program its old maps came from, so a mapping
 * it had already keeps its table without a look at the file (a stat
 * through /proc/PID/root, the costly part of a process's second read).
 */
static void
resolve_proc_load(struct resolve *r, struct resolve_proc *rp,
    struct procmaps *maps, int same)
{
	struct symcache_file	**files = NULL;
	size_t			  i, j = 0;

	if (maps->n > 0) {
		files = xcalloc(maps->n, sizeof(*files));
		for (i = 0; i < maps->n; i++) {
			if (same && rp->maps != NULL)
				files[i] = resolve_proc_kept(r, rp,
				    &maps->v[i], &j);
			if (files[i] == NULL)
				files[i] = symcache_get(r->cache, rp->pid,
				    &maps->v[i]);
		}
	}
	if (rp->maps != NULL) {
		for (i = 0; i < rp->maps->n; i++)
			symcache_put(r->cache, rp->files[i]);
		free(rp->files);
		procmaps_free(rp->maps);
	}
	rp->maps = maps;
	rp->files = files;
	rp->last = 0;
	rp->gen = ++r->gen;
	rp->loaded = r->round + 1;
}

static void
resolve_perfmap_drop(struct resolve *r, struct resolve_proc *rp)
{
	if (rp->pm == NULL)
		return;
	r->nperfmaps--;
	r->perfmap_bytes -= perfmap_bytes(rp->pm);
	perfmap_free(rp->pm);
	rp->pm = NULL;
	rp->pm_tried = 0;
}

/* Is rp still the process it was opened for? */
static int
resolve_proc_is_same(struct resolve_proc *rp)
{
	unsigned long long	 t;

	return rp->start_time != 0 && resolve_start_time(rp->pid, &t) == 0 &&
	    t == rp->start_time;
}

/*
 * Read the process's perf map if it changed: through its root while it
 * runs; once it is gone, where it left it if it shared our /tmp.
 * resolve_perfmap_read does it at most once per round.
 */
static void
resolve_perfmap_update(struct resolve *r, struct resolve_proc *rp, int alive)
{
	size_t	 before;
	int	 had;

	/* perf_maps was off when the process was opened. */
	if (rp->pmp.pid == 0 && (!alive || perfmap_proc_read(&rp->pmp,
	    rp->pid, rp->start_time) == -1))
		return;
	had = rp->pm != NULL;
	before = perfmap_bytes(rp->pm);
	if (perfmap_update(&rp->pm, &rp->pmp, alive) != 1)
		return;
	if (!had)
		r->nperfmaps++;
	r->perfmap_bytes += perfmap_bytes(rp->pm);
	r->perfmap_bytes -= before;
}

static void
resolve_perfmap_read(struct resolve *r, struct resolve_proc *rp)
{
	if (!r->perf_maps || rp->pm_tried == r->round + 1)
		return;
	rp->pm_tried = r->round + 1;
	resolve_perfmap_update(r, rp, resolve_proc_is_same(rp));
}

/* The name of JIT code at addr from the process's perf map. */
static const char *
resolve_perfmap(struct resolve *r, struct resolve_proc *rp, uint64_t addr)
{
	const char	*name;

	if (!r->perf_maps)
		return NULL;
	if ((name = perfmap_lookup(rp->pm, addr)) != NULL)
		return name;
	resolve_perfmap_read(r, rp);
	return perfmap_lookup(rp->pm, addr);
}

/*
 * Note whose perf map the process would have, and read it if it is
 * there already: a process may be gone before its frames are named.
 */
static void
resolve_perfmap_open(struct resolve *r, struct resolve_proc *rp)
{
	memset(&rp->pmp, 0, sizeof(rp->pmp));
	if (r->perf_maps)
		resolve_perfmap_update(r, rp, 1);
}

/* NULL if the process is gone. */
struct resolve_proc *
resolve_proc_open(struct resolve *r, pid_t pid)
{
	return resolve_proc_open_maps(r, pid, procmaps_read(pid));
}

/* With maps the caller read, which rp takes; NULL if there are none. */
struct resolve_proc *
resolve_proc_open_maps(struct resolve *r, pid_t pid, struct procmaps *maps)
{
	struct resolve_proc	*rp;

	if (maps == NULL) {
		log_debug("pid %d: cannot read maps", (int)pid);
		return NULL;
	}
	rp = xcalloc(1, sizeof(*rp));
	rp->pid = pid;
	if (resolve_start_time(pid, &rp->start_time) == -1)
		rp->start_time = 0;
	resolve_proc_load(r, rp, maps, 0);
	resolve_perfmap_open(r, rp);
	return rp;
}

/* After an exec: the process has new mappings. */
void
resolve_proc_refresh(struct resolve *r, struct resolve_proc *rp)
{
	if (rp != NULL)
		resolve_proc_refresh_maps(r, rp, procmaps_read(rp->pid));
}

/*
 * The same program's maps read again (it runs its own code now, or
 * mapped a library): the mappings it had keep their tables.
 */
void
resolve_proc_reload_maps(struct resolve *r, struct resolve_proc *rp,
    struct procmaps *maps)
{
	if (maps != NULL)
		resolve_proc_load(r, rp, maps, 1);
}

/* The same with maps the caller read, which rp takes. */
void
resolve_proc_refresh_maps(struct resolve *r, struct resolve_proc *rp,
    struct procmaps *maps)
{
	if (maps == NULL)
		return;
	if (resolve_start_time(rp->pid, &rp->start_time) == -1)
		rp->start_time = 0;
	resolve_proc_load(r, rp, maps, 0);
	/* Another program: its JIT code, if any, is new. */
	resolve_perfmap_drop(r, rp);
	resolve_perfmap_open(r, rp);
}

void
resolve_proc_close(struct resolve *r, struct resolve_proc *rp)
{
	size_t	 i;

	if (rp == NULL)
		return;
	for (i = 0; i < rp->maps->n; i++)
		symcache_put(r->cache, rp->files[i]);
	free(rp->files);
	procmaps_free(rp->maps);
	resolve_perfmap_drop(r, rp);
	free(rp);
}

/*
 * Can addr be no code, as of the maps we have?  Then a re-read is not
 * worth it unless they are old.
 */
static int
resolve_proc_is_bad(struct resolve *r, struct resolve_proc *rp,
    uint64_t addr)
{
	size_t	 i;

	if (addr < RESOLVE_USER_MIN || addr > RESOLVE_USER_MAX)
		return 1;
	if (rp->nbad > 0 && r->round + 1 >= rp->bad_since +
	    RESOLVE_DATA_ROUNDS)
		rp->nbad = 0;
	for (i = 0; i < rp->nbad; i++) {
		if (rp->bad[i] == addr)
			return 1;
	}
	if (r->round + 1 >= rp->loaded + RESOLVE_DATA_ROUNDS)
		return 0;
	return procmaps_is_data(rp->maps, addr);
}

static void
resolve_proc_add_bad(struct resolve *r, struct resolve_proc *rp,
    uint64_t addr)
{
	if (rp->nbad == RESOLVE_BAD_MAX)
		return;
	if (rp->nbad == 0)
		rp->bad_since = r->round + 1;
	rp->bad[rp->nbad++] = addr;
}

/*
 * An address in no mapping: maybe a library loaded since we read them.
 * 1 if the maps were read again.
 */
static int
resolve_proc_reread(struct resolve *r, struct resolve_proc *rp,
    uint64_t addr)
{
	struct procmaps		*maps;

	if (rp->reread == r->round + 1)
		return 0;
	if (resolve_proc_is_bad(r, rp, addr)) {
		r->bad_skips++;
		return 0;
	}
	rp->reread = r->round + 1;
	if (!resolve_proc_is_same(rp))
		return 0;
	if ((maps = procmaps_read(rp->pid)) == NULL)
		return 0;
	log_debug("pid %d: maps read again for 0x%llx", (int)rp->pid,
	    (unsigned long long)addr);
	r->rereads++;
	resolve_proc_load(r, rp, maps, 1);
	return 1;
}

static const struct procmaps_entry *
resolve_proc_find(struct resolve_proc *rp, uint64_t addr)
{
	const struct procmaps_entry	*e;
	const struct procmaps		*m = rp->maps;

	if (rp->last < m->n) {
		e = &m->v[rp->last];
		if (addr >= e->start && addr < e->end)
			return e;
	}
	if ((e = procmaps_lookup(m, addr)) != NULL)
		rp->last = e - m->v;
	return e;
}

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

/*
 * Name the frame at addr into names (max of them; chain: Go's inlined
 * calls too, else only the innermost name).  How many, at least 1.
 */
static size_t
resolve_user_names(struct resolve *r, struct resolve_proc *rp,
    uint64_t addr, const char **names, size_t max, int chain)
{
	const struct procmaps_entry	*e;
	struct symcache_file		*f;
	const char			*name;
	uint64_t			 off, vaddr;
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
		if ((name = resolve_perfmap(r, rp, addr)) != NULL) {
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
	if (f != NULL) {
		if (!chain) {
			if ((names[0] = symcache_symbol(r->cache, f, off)) !=
			    NULL)
				n = 1;
		} else if (symcache_file_vaddr(f, off, &vaddr) == 0)
			n = symcache_frames(r->cache, f, vaddr, names, max);
		if (n > 0) {
			r->named++;
			return n;
		}
	}
	if ((name = resolve_perfmap(r, rp, addr)) != NULL) {
		/* JIT code: the map may give the address another name. */
		r->unstable++;
		r->named++;
		names[0] = name;
		return 1;
	}
	if (e->kind == PROCMAPS_ANON && r->perf_maps)
		r->unstable++;
	names[0] = resolve_unknown(r, e->kind == PROCMAPS_ANON ? NULL :
	    procmaps_basename(e), off, addr);
	return 1;
}

const char *
resolve_user(struct resolve *r, struct resolve_proc *rp, uint64_t addr)
{
	const char	*name;

	resolve_user_names(r, rp, addr, &name, 1, 0);
	return name;
}

size_t
resolve_user_frames(struct resolve *r, struct resolve_proc *rp,
    uint64_t addr, const char **names, size_t max)
{
	if (max == 0)
		return 0;
	return resolve_user_names(r, rp, addr, names, max, 1);
}

static void
resolve_ksyms_load(struct resolve *r)
{
	struct kallsyms	*ks;
	struct timespec	 t0, t1;

	r->ksyms_loaded = 1;
	r->ksyms_round = r->round;
	r->kgen++;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((ks = kallsyms_read(NULL)) == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_debug("kallsyms: %zu symbols read in %.1f ms", kallsyms_count(ks),
	    (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
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
 * execs, maps a library), and each time kallsyms is read, the names of
 * its addresses may change, and so does the generation.  0 for NULL.
 */
uint64_t
resolve_proc_gen(const struct resolve_proc *rp)
{
	return rp != NULL ? rp->gen : 0;
}

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
