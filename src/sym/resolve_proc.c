/*
 * The state resolve keeps of each process.
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

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "perfmap.h"
#include "proc/proc.h"
#include "proc/procmaps.h"
#include "resolve.h"
#include "resolve_int.h"
#include "symcache.h"
#include "util/xmalloc.h"

/* Maps this old are read again even for an address that is no code. */
#define RESOLVE_DATA_ROUNDS		8
/* No user mapping below or above these (x86-64 and arm64 alike). */
#define RESOLVE_USER_MIN		0x1000ULL
#define RESOLVE_USER_MAX		0x00ffffffffffffffULL

/* Field 22 of /proc/PID/stat: tells a process from a later one. */
static int
resolve_proc_start_time(pid_t pid, unsigned long long *t)
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
resolve_proc_entry_same(const struct procmaps_entry *a,
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
	    !resolve_proc_entry_same(&old->v[*j], e))
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
resolve_proc_perfmap_drop(struct resolve *r, struct resolve_proc *rp)
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

	return rp->start_time != 0 &&
	    resolve_proc_start_time(rp->pid, &t) == 0 && t == rp->start_time;
}

/*
 * Read the process's perf map if it changed: through its root while it
 * runs; once it is gone, where it left it if it shared our /tmp.
 * resolve_proc_perfmap_read does it at most once per round.
 */
static void
resolve_proc_perfmap_update(struct resolve *r, struct resolve_proc *rp,
    int alive)
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
resolve_proc_perfmap_read(struct resolve *r, struct resolve_proc *rp)
{
	if (!r->perf_maps || rp->pm_tried == r->round + 1)
		return;
	rp->pm_tried = r->round + 1;
	resolve_proc_perfmap_update(r, rp, resolve_proc_is_same(rp));
}

/* The name of JIT code at addr from the process's perf map. */
const char *
resolve_proc_perfmap(struct resolve *r, struct resolve_proc *rp, uint64_t addr)
{
	const char	*name;

	if (!r->perf_maps)
		return NULL;
	if ((name = perfmap_lookup(rp->pm, addr)) != NULL)
		return name;
	resolve_proc_perfmap_read(r, rp);
	return perfmap_lookup(rp->pm, addr);
}

/*
 * Note whose perf map the process would have, and read it if it is
 * there already: a process may be gone before its frames are named.
 */
static void
resolve_proc_perfmap_open(struct resolve *r, struct resolve_proc *rp)
{
	memset(&rp->pmp, 0, sizeof(rp->pmp));
	if (r->perf_maps)
		resolve_proc_perfmap_update(r, rp, 1);
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
	if (resolve_proc_start_time(pid, &rp->start_time) == -1)
		rp->start_time = 0;
	resolve_proc_load(r, rp, maps, 0);
	resolve_proc_perfmap_open(r, rp);
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
	if (resolve_proc_start_time(rp->pid, &rp->start_time) == -1)
		rp->start_time = 0;
	resolve_proc_load(r, rp, maps, 0);
	/* Another program: its JIT code, if any, is new. */
	resolve_proc_perfmap_drop(r, rp);
	resolve_proc_perfmap_open(r, rp);
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
	resolve_proc_perfmap_drop(r, rp);
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

void
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
int
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

const struct procmaps_entry *
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

/*
 * The generation of rp's names: new each time its mappings are read
 * (it opens, execs, maps a library).  0 for NULL.
 */
uint64_t
resolve_proc_gen(const struct resolve_proc *rp)
{
	return rp != NULL ? rp->gen : 0;
}
