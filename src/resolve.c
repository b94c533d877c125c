/*
 * Naming frames.
 *
 * A user frame is named after the function symbol covering its address
 * in the file mapped there (.symtab, else .dynsym), without an offset:
 * "main", not "main+0x12", since profiles add samples up by function.
 * A kernel frame is named "sym" in the core kernel and "sym [module]" in
 * a module, from /proc/kallsyms.
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
 * time has not changed).
 */
#include <sys/types.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "kallsyms.h"
#include "log.h"
#include "proc.h"
#include "procmaps.h"
#include "resolve.h"
#include "symcache.h"
#include "xmalloc.h"

/* A kernel address kallsyms did not know reloads it, this rarely. */
#define RESOLVE_KSYMS_RELOAD_ROUNDS	10

struct resolve {
	int			 module_offset;
	int			 address;
	struct symcache		*cache;
	struct kallsyms		*ksyms;
	int			 ksyms_loaded;
	uint64_t		 ksyms_round;
	uint64_t		 round;
	uint64_t		 frames, named, unknown;
	char			 buf[PATH_MAX + 32];
};

struct resolve_proc {
	pid_t			 pid;
	unsigned long long	 start_time;
	struct procmaps		*maps;
	struct symcache_file	**files;	/* one per mapping */
	uint64_t		 reread;	/* 1 + round of last re-read */
	size_t			 last;		/* mapping of the last frame */
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
	r->module_offset = conf->unknown_symbol_module_offset;
	r->address = conf->unknown_symbol_address;
	symcache_configure(r->cache, conf);
}

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

/* Take maps for rp, with the symbol tables of its files. */
static void
resolve_proc_load(struct resolve *r, struct resolve_proc *rp,
    struct procmaps *maps)
{
	struct symcache_file	**files = NULL;
	size_t			  i;

	if (maps->n > 0) {
		files = xcalloc(maps->n, sizeof(*files));
		for (i = 0; i < maps->n; i++)
			files[i] = symcache_get(r->cache, rp->pid,
			    &maps->v[i]);
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
}

/* NULL if the process is gone. */
struct resolve_proc *
resolve_proc_open(struct resolve *r, pid_t pid)
{
	struct resolve_proc	*rp;
	struct procmaps		*maps;

	if ((maps = procmaps_read(pid)) == NULL) {
		log_debug("pid %d: cannot read maps", (int)pid);
		return NULL;
	}
	rp = xcalloc(1, sizeof(*rp));
	rp->pid = pid;
	if (resolve_start_time(pid, &rp->start_time) == -1)
		rp->start_time = 0;
	resolve_proc_load(r, rp, maps);
	return rp;
}

/* After an exec: the process has new mappings. */
void
resolve_proc_refresh(struct resolve *r, struct resolve_proc *rp)
{
	struct procmaps	*maps;

	if (rp == NULL || (maps = procmaps_read(rp->pid)) == NULL)
		return;
	if (resolve_start_time(rp->pid, &rp->start_time) == -1)
		rp->start_time = 0;
	resolve_proc_load(r, rp, maps);
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
	free(rp);
}

/* An address in no mapping: maybe a library loaded since we read them. */
static int
resolve_proc_reread(struct resolve *r, struct resolve_proc *rp)
{
	struct procmaps		*maps;
	unsigned long long	 t;

	if (rp->reread == r->round + 1)
		return 0;
	rp->reread = r->round + 1;
	if (rp->start_time == 0 || resolve_start_time(rp->pid, &t) == -1 ||
	    t != rp->start_time)
		return 0;
	if ((maps = procmaps_read(rp->pid)) == NULL)
		return 0;
	log_debug("pid %d: maps read again", (int)rp->pid);
	resolve_proc_load(r, rp, maps);
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

const char *
resolve_user(struct resolve *r, struct resolve_proc *rp, uint64_t addr)
{
	const struct procmaps_entry	*e;
	struct symcache_file		*f;
	const char			*name;
	uint64_t			 off;
	size_t				 i;

	r->frames++;
	if (rp == NULL)
		return resolve_unknown(r, NULL, 0, addr);
	if ((e = resolve_proc_find(rp, addr)) == NULL &&
	    resolve_proc_reread(r, rp))
		e = resolve_proc_find(rp, addr);
	if (e == NULL)
		return resolve_unknown(r, NULL, 0, addr);
	i = e - rp->maps->v;
	off = addr - e->start + e->offset;
	if ((f = rp->files[i]) != NULL && symcache_file_is_evicted(f)) {
		/* Unused for a while, dropped: get it back. */
		rp->files[i] = symcache_get(r->cache, rp->pid, e);
		symcache_put(r->cache, f);
		f = rp->files[i];
	}
	if (f != NULL && (name = symcache_symbol(r->cache, f, off)) != NULL) {
		r->named++;
		return name;
	}
	return resolve_unknown(r, e->kind == PROCMAPS_ANON ? NULL :
	    procmaps_basename(e), off, addr);
}

static void
resolve_ksyms_load(struct resolve *r)
{
	struct kallsyms	*ks;

	r->ksyms_loaded = 1;
	r->ksyms_round = r->round;
	if ((ks = kallsyms_read(NULL)) == NULL)
		return;
	kallsyms_free(r->ksyms);
	r->ksyms = ks;
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
	return resolve_unknown(r, NULL, 0, addr);
}

const char *
resolve_file(struct resolve *r, const char *path, uint64_t vaddr)
{
	struct symcache_file	*f;
	const char		*name, *base;
	uint64_t		 off = 0;

	r->frames++;
	f = symcache_get_path(r->cache, path);
	/* A cached table outlives the reference; an uncached has no names. */
	name = symcache_symbol_vaddr(r->cache, f, vaddr);
	if (name != NULL) {
		symcache_put(r->cache, f);
		r->named++;
		return name;
	}
	if ((base = strrchr(path, '/')) != NULL && base[1] != '\0')
		base++;
	else
		base = path;
	if (symcache_file_offset(f, vaddr, &off) == -1)
		base = NULL;
	symcache_put(r->cache, f);
	return resolve_unknown(r, base, off, vaddr);
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
	st->files = cs.files;
	st->file_bytes = cs.bytes;
	st->ksyms = kallsyms_count(r->ksyms);
	st->hits = cs.hits;
	st->misses = cs.misses;
}
