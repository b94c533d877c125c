/*
 * The symbol tables of files, shared by every process that maps the same
 * file.
 *
 * A table is found by inode: (device, inode) as /proc/PID/maps gives
 * it, checked against the file's size and mtime so that a reused inode
 * or a file rewritten in place is read again.  Two files share a table only
 * when they are the same file: a build id is claimed by the file, and a
 * container can claim any, so it is no key.  A stripped file's table
 * depends on the debug file found for it, which depends on the root of
 * the process that maps it (symcache_lookup).
 * Paths are never keys: a container can put anything at any path.
 *
 * Files are opened by their path resolved inside the process's root
 * (proc_root.c: never outside it, whatever links a container plants),
 * so that processes in other mount namespaces work; when the mapping is
 * deleted, or the file at that path is not the mapped one (replaced, or
 * a container planted another), through /proc/PID/map_files/START-END,
 * which is the mapped file itself.  Only regular files are opened at
 * all, so a FIFO or a device at the path is never opened.  What a
 * file's table holds (its symbols, its debug files', its MiniDebugInfo's,
 * Go's) is symfile.c's business.
 *
 * The vDSO of a process is read from its memory; when it is the same
 * image as ours (the usual case) our own table serves, and another one
 * (a process of another ABI) is cached by its bytes.
 *
 * Bounds: at most symbol_cache_files tables and about symbol_cache_bytes
 * of memory are cached (least recently used first out; within a round,
 * the tables that round used are kept over the bounds), and a table
 * unused for symbol_cache_rounds rounds is dropped.  A dropped table's
 * memory is freed even when a process still refers to it: the reference
 * is then "evicted" and the caller gets the table again (usually from
 * the cache) the next time it needs it.
 *
 * A file that is not ELF or does not parse is cached as a table without
 * symbols, so it is not read again for every frame.  A file that cannot
 * be opened at all is not cached (the process may just have exited; the
 * next process mapping it may do better), but the caller keeps the empty
 * table for as long as it holds the mapping.
 *
 * C++ and Rust names are demangled when asked for, each table keeping
 * those it demangled (demangle.c); a new demangle mode drops them, new
 * debug_dirs drop every table.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "demangle.h"
#include "elf/elf.h"
#include "gopclntab.h"
#include "util/log.h"
#include "proc/proc_root.h"
#include "proc/procmaps.h"
#include "symcache.h"
#include "symcache_int.h"
#include "symfile.h"
#include "elf/symtab.h"
#include "util/xmalloc.h"

#define SYMCACHE_BUCKETS_MIN	256

/* LRU. */

static void
symcache_lru_unlink(struct symcache *c, struct symcache_file *f)
{
	if (f->prev != NULL)
		f->prev->next = f->next;
	else
		c->head = f->next;
	if (f->next != NULL)
		f->next->prev = f->prev;
	else
		c->tail = f->prev;
	f->prev = f->next = NULL;
}

static void
symcache_lru_push(struct symcache *c, struct symcache_file *f)
{
	f->prev = NULL;
	f->next = c->head;
	if (c->head != NULL)
		c->head->prev = f;
	else
		c->tail = f;
	c->head = f;
}

static void
symcache_touch(struct symcache *c, struct symcache_file *f)
{
	f->used_round = c->round;
	if (!f->cached || c->head == f)
		return;
	symcache_lru_unlink(c, f);
	symcache_lru_push(c, f);
}

/* Files. */

static void
symcache_file_release(struct symcache_file *f)
{
	symfile_release(&f->sf);
	demangle_cache_free(f->dm);
	f->dm = NULL;
	free(f->img);
	f->img = NULL;
	f->img_len = 0;
}

void
symcache_file_free(struct symcache_file *f)
{
	symcache_file_release(f);
	free(f);
}

struct symcache_file *
symcache_file_new(void)
{
	struct symcache_file	*f;

	f = xcalloc(1, sizeof(*f));
	f->refs = 1;
	return f;
}

/* Drop a table from the cache and free its memory. */
void
symcache_evict(struct symcache *c, struct symcache_file *f)
{
	struct symcache_alias	*a, *next;

	if (c->dw.f == f)
		c->dw.f = NULL;
	if (!f->cached)
		return;
	for (a = f->aliases; a != NULL; a = next) {
		next = a->file_next;
		symcache_index_alias_unhash(c, a);
		free(a);
	}
	f->aliases = NULL;
	symcache_lru_unlink(c, f);
	c->nfiles--;
	c->bytes -= f->bytes;
	f->cached = 0;
	f->evicted = 1;
	symcache_file_release(f);
	if (f->refs == 0)
		free(f);
}

/*
 * The most recently used table stays, however big it is, and so do the
 * tables used in this round: the round's samples, of processes that may
 * have exited since (their files cannot be read again), are named from
 * them at its end.  The bounds hold again once the round is over.
 */
static void
symcache_trim(struct symcache *c)
{
	while ((c->nfiles > c->max_files || c->bytes > c->max_bytes) &&
	    c->tail != NULL && c->tail != c->head &&
	    c->tail->used_round != c->round)
		symcache_evict(c, c->tail);
}

void
symcache_insert(struct symcache *c, struct symcache_file *f,
    const struct symcache_key *k)
{
	f->cached = 1;
	f->used_round = c->round;
	f->bytes = sizeof(*f) + symfile_bytes(&f->sf) + f->img_len;
	symcache_index_alias_add(c, f, k);
	symcache_lru_push(c, f);
	c->nfiles++;
	c->bytes += f->bytes;
	symcache_trim(c);
}

struct symcache_file *
symcache_ref(struct symcache *c, struct symcache_file *f)
{
	f->refs++;
	symcache_touch(c, f);
	return f;
}

/* The table of key k if cached and current, referenced; else NULL. */
static struct symcache_file *
symcache_find(struct symcache *c, const struct symcache_key *k)
{
	struct symcache_alias	*a;

	if ((a = symcache_index_alias_find(c, k)) == NULL)
		return NULL;
	if (!symcache_index_key_same(&a->key, k)) {
		symcache_index_alias_remove(c, a);
		return NULL;
	}
	return symcache_ref(c, a->file);
}

/* The table f, found by key k too from now on; f is returned. */
static struct symcache_file *
symcache_alias(struct symcache *c, struct symcache_file *f,
    const struct symcache_key *k)
{
	if (f->cached && symcache_index_alias_find(c, k) == NULL)
		symcache_index_alias_add(c, f, k);
	return f;
}

/*
 * The table for the open file fd (named name in logs), whose stat is sb
 * and whose key, of kind SYMCACHE_KEY_FILE, is k, as the process of ctx
 * sees it.  Takes fd.  Never NULL.
 *
 * A file with a .symtab names itself: one table, whoever maps it.  A
 * stripped file's names depend on the debug files its process's root
 * holds: its table is found by the root (kr), else after looking for a
 * debug file there, by that debug file (kd), else, none found, by the
 * file alone (its .dynsym and MiniDebugInfo).  So a container's debug
 * file names only what runs in roots that hold that very file.
 */
static struct symcache_file *
symcache_lookup(struct symcache *c, int fd, const struct stat *sb,
    const char *name, const struct symcache_key *k, struct symfile_ctx *ctx)
{
	struct symcache_file	*f, *g;
	struct symcache_key	 kr, kd;
	struct symfile_debug	 d;
	struct elf_file		*ef;
	int			 has_root, has_debug;

	if ((g = symcache_find(c, k)) != NULL && g->sf.has_symtab) {
		close(fd);
		c->hits++;
		return g;
	}
	kr = *k;
	if ((has_root = symcache_index_key_root(&kr, ctx->pid) == 0) &&
	    (f = symcache_find(c, &kr)) != NULL) {
		symcache_put(c, g);
		close(fd);
		c->hits++;
		return f;
	}

	f = symcache_file_new();
	if ((ef = elf_file_open(fd)) == NULL) {
		log_debug("%s: not an ELF file we can read", name);
		close(fd);
		if (g != NULL) {
			symcache_file_free(f);
			c->hits++;
			return g;
		}
		c->misses++;
		symcache_insert(c, f, k);
		return f;
	}
	symfile_identify(&f->sf, ef);
	ctx->debug_dirs = c->debug_dirs;
	ctx->dev = sb->st_dev;
	ctx->ino = sb->st_ino;
	memset(&d, 0, sizeof(d));
	if (!f->sf.has_symtab)
		symfile_debug_find(&d, &f->sf, ef, ctx);
	if (!f->sf.has_symtab && d.ef == NULL)
		symcache_want_add(c, &f->sf);
	if ((has_debug = d.ef != NULL)) {
		kd = *k;
		kd.kind = SYMCACHE_KEY_DEBUG;
		kd.ctx[0] = d.sb.st_dev;
		kd.ctx[1] = d.sb.st_ino;
		kd.ctx[2] = d.sb.st_size;
		kd.ctx[3] = (uint64_t)d.sb.st_mtim.tv_sec * 1000000000 +
		    d.sb.st_mtim.tv_nsec;
		symcache_put(c, g);
		g = symcache_find(c, &kd);
	}
	if (g != NULL) {
		symfile_debug_close(&d);
		elf_file_close(ef);
		close(fd);
		symcache_file_free(f);
		c->hits++;
		return has_root && !g->sf.has_symtab ?
		    symcache_alias(c, g, &kr) : g;
	}
	c->misses++;
	symfile_load(&f->sf, ef, &d, &c->lim, name);
	symfile_dwarf(&f->sf, fd, ef, &d, ctx, &c->lim, name);
	symfile_debug_close(&d);
	elf_file_close(ef);
	close(fd);
	log_debug("%s: %zu symbols (sources 0x%x)", name,
	    symfile_count(&f->sf), f->sf.sources);
	symcache_insert(c, f, has_debug ? &kd : k);
	if (has_root && !f->sf.has_symtab)
		symcache_alias(c, f, &kr);
	return f;
}

/*
 * The file is opened inside the process's root (proc_root.c), never by
 * a path of ours that the process could redirect; when that is not the
 * mapped inode (deleted, replaced, or planted), by map_files.
 */
struct symcache_file *
symcache_get(struct symcache *c, pid_t pid, const struct procmaps_entry *me)
{
	struct symcache_alias	*a;
	struct symcache_key	 k;
	struct symfile_ctx	 ctx;
	struct stat		 sb;
	int			 fd = -1;

	if (me->kind == PROCMAPS_SPECIAL && strcmp(me->path, "[vdso]") == 0)
		return symcache_vdso_get(c, pid, me);
	if (me->kind != PROCMAPS_FILE)
		return NULL;

	memset(&k, 0, sizeof(k));
	k.major = me->dev_major;
	k.minor = me->dev_minor;
	k.ino = me->inode;
	if (!me->deleted &&
	    (fd = proc_root_open(pid, me->path, &sb)) != -1 &&
	    !symcache_index_stat_is_inode(&sb, &k)) {
		close(fd);
		fd = -1;
	}
	if (fd == -1 && ((fd = proc_root_open_map(pid, me->start, me->end,
	    &sb)) == -1 || !symcache_index_stat_is_inode(&sb, &k))) {
		if (fd != -1)
			close(fd);
		/*
		 * We cannot see the file (the process exited, or no
		 * CAP_SYS_ADMIN for map_files): a table of the inode
		 * already cached is still the right one.
		 */
		if ((a = symcache_index_alias_find(c, &k)) != NULL) {
			c->hits++;
			return symcache_ref(c, a->file);
		}
		log_debug("pid %d: cannot open %s", (int)pid, me->path);
		c->misses++;
		return symcache_file_new();
	}
	symcache_index_key_stat(&k, &sb);
	memset(&ctx, 0, sizeof(ctx));
	ctx.pid = pid;
	ctx.path = me->path;
	return symcache_lookup(c, fd, &sb, me->path, &k, &ctx);
}

/* A file of the host by path (the kernel's modules, tests). */
struct symcache_file *
symcache_get_path(struct symcache *c, const char *path)
{
	struct symcache_key	 k;
	struct symfile_ctx	 ctx;
	struct stat		 sb;
	int			 fd;

	if ((fd = proc_root_open(0, path, &sb)) == -1) {
		log_debug("open %s: %s", path, errno == EINVAL ?
		    "not a regular file" : strerror(errno));
		c->misses++;
		return symcache_file_new();
	}
	symcache_index_key_stat(&k, &sb);
	memset(&ctx, 0, sizeof(ctx));
	ctx.path = path;
	return symcache_lookup(c, fd, &sb, path, &k, &ctx);
}

struct symcache_file *
symcache_hold(struct symcache *c, struct symcache_file *f)
{
	return symcache_ref(c, f);
}

/* Give back a reference.  Does not touch the cache, which may be gone. */
void
symcache_put(struct symcache *c, struct symcache_file *f)
{
	if (f == NULL)
		return;
	if (f->refs > 0)
		f->refs--;
	if (f->refs == 0 && !f->cached)
		symcache_file_free(f);
}

int
symcache_file_is_evicted(const struct symcache_file *f)
{
	return f->evicted;
}

size_t
symcache_file_count(const struct symcache_file *f)
{
	return symfile_count(&f->sf);
}

const uint8_t *
symcache_file_build_id(const struct symcache_file *f, size_t *len)
{
	*len = f->sf.build_id_len;
	return f->sf.build_id_len > 0 ? f->sf.build_id : NULL;
}

/* Where the table's names came from: SYMFILE_* bits. */
unsigned int
symcache_file_sources(const struct symcache_file *f)
{
	return f->sf.sources;
}

/*
 * The name at an ELF virtual address: Go's (innermost inlined function)
 * first, then the ELF symbol's, demangled as configured.
 */
const char *
symcache_name(struct symcache *c, struct symcache_file *f, uint64_t vaddr)
{
	const struct symtab_sym	*s;
	const struct symtab	*st = f->sf.symtab;
	const char		*name;
	size_t			 before;

	if (f->used_round != c->round)
		symcache_touch(c, f);
	if (f->sf.go != NULL &&
	    (name = gopclntab_lookup(f->sf.go, vaddr)) != NULL)
		return name;
	if ((s = symtab_find(st, vaddr)) == NULL)
		return NULL;
	name = symtab_name(st, s);
	if (c->demangle == CONFIG_DEMANGLE_NONE || !demangle_is_mangled(name))
		return name;
	before = demangle_cache_bytes(f->dm);
	name = demangle_cache_name(&f->dm, st->n, s - st->v, name,
	    c->demangle);
	if (demangle_cache_bytes(f->dm) != before) {
		if (f->cached)
			c->bytes += demangle_cache_bytes(f->dm) - before;
		f->bytes += demangle_cache_bytes(f->dm) - before;
	}
	return name;
}

/* The symbol at a file offset of the mapped file, or NULL. */
const char *
symcache_symbol(struct symcache *c, struct symcache_file *f, uint64_t off)
{
	uint64_t	 vaddr;

	if (elf_file_offset_to_vaddr(f->sf.segs, f->sf.nsegs, off,
	    &vaddr) == -1) {
		if (f->used_round != c->round)
			symcache_touch(c, f);
		return NULL;
	}
	return symcache_name(c, f, vaddr);
}

/* The symbol at an ELF virtual address of the file, or NULL. */
const char *
symcache_symbol_vaddr(struct symcache *c, struct symcache_file *f,
    uint64_t vaddr)
{
	return symcache_name(c, f, vaddr);
}

/*
 * The symbol at an ELF virtual address as the file has it, not
 * demangled (pprof's system_name), or NULL.  Go's are never mangled.
 */
const char *
symcache_system_name(const struct symcache_file *f, uint64_t vaddr)
{
	const struct symtab_sym	*s;
	const char		*name;

	if (f->sf.go != NULL &&
	    (name = gopclntab_lookup(f->sf.go, vaddr)) != NULL)
		return name;
	if ((s = symtab_find(f->sf.symtab, vaddr)) == NULL)
		return NULL;
	return symtab_system_name(f->sf.symtab, s);
}

/*
 * The functions at an ELF virtual address, outermost first (Go's
 * inlined calls); how many went into names, 0 if none.
 */
size_t
symcache_frames(struct symcache *c, struct symcache_file *f, uint64_t vaddr,
    const char **names, size_t max)
{
	const char	*name;
	size_t		 n;

	if (max == 0)
		return 0;
	if (f->sf.go != NULL &&
	    (n = gopclntab_frames(f->sf.go, vaddr, names, max)) > 0) {
		if (f->used_round != c->round)
			symcache_touch(c, f);
		return n;
	}
	if (f->sf.dwarf != NULL &&
	    (n = symcache_dwarf_frames(c, f, vaddr, names, max)) > 0)
		return n;
	if ((name = symcache_name(c, f, vaddr)) == NULL)
		return 0;
	names[0] = name;
	return 1;
}

/*
 * The source files and lines of the functions symcache_frames gives at
 * an ELF virtual address, in its order: Go's, from the pclntab, or
 * DWARF's when symcache_frames just named that address from it; 0 if
 * the file has none there.
 */
size_t
symcache_lines(struct symcache *c, const struct symcache_file *f,
    uint64_t vaddr, const char **files, int32_t *lines, size_t max)
{
	size_t	 n;

	if ((n = gopclntab_lines(f->sf.go, vaddr, files, lines, max)) > 0)
		return n;
	return symcache_dwarf_lines(c, f, vaddr, files, lines, max);
}

/* The virtual address of a file offset; -1 if no segment maps it. */
int
symcache_file_vaddr(const struct symcache_file *f, uint64_t off,
    uint64_t *vaddr)
{
	return elf_file_offset_to_vaddr(f->sf.segs, f->sf.nsegs, off, vaddr);
}

int
symcache_file_offset(const struct symcache_file *f, uint64_t vaddr,
    uint64_t *off)
{
	return elf_file_vaddr_to_offset(f->sf.segs, f->sf.nsegs, vaddr, off);
}

/*
 * The file offset of the start of the function that holds file offset
 * off, by the file's FDE ranges (a stripped file), else off.
 */
uint64_t
symcache_function_start(const struct symcache_file *f, uint64_t off)
{
	const struct elf_fde_range	*r;
	uint64_t			 vaddr, start;

	if (f->sf.nfde == 0 || elf_file_offset_to_vaddr(f->sf.segs,
	    f->sf.nsegs, off, &vaddr) == -1 ||
	    (r = elf_fde_find(f->sf.fde, f->sf.nfde, vaddr)) == NULL ||
	    elf_file_vaddr_to_offset(f->sf.segs, f->sf.nsegs, r->start,
	    &start) == -1 || start > off)
		return off;
	return start;
}

struct symcache *
symcache_create(const struct config *conf)
{
	struct symcache	*c;

	c = xcalloc(1, sizeof(*c));
	c->ino_size = SYMCACHE_BUCKETS_MIN;
	c->ino = xcalloc(c->ino_size, sizeof(*c->ino));
	symcache_configure(c, conf);
	return c;
}

void
symcache_configure(struct symcache *c, const struct config *conf)
{
	struct symcache_file	*f;
	struct symfile_limits	 lim;
	char			*dirs;

	c->max_files = conf->symbol_cache_files > 0 ?
	    (size_t)conf->symbol_cache_files : 1;
	c->max_bytes = conf->symbol_cache_bytes > 0 ?
	    (size_t)conf->symbol_cache_bytes : SIZE_MAX;
	c->max_rounds = conf->symbol_cache_rounds > 0 ?
	    (uint64_t)conf->symbol_cache_rounds : 1;
	if (c->demangle != conf->demangle) {
		/* Names demangled the old way: forget them. */
		for (f = c->head; f != NULL; f = f->next) {
			c->bytes -= demangle_cache_bytes(f->dm);
			f->bytes -= demangle_cache_bytes(f->dm);
			demangle_cache_free(f->dm);
			f->dm = NULL;
		}
		c->demangle = conf->demangle;
	}
	memset(&lim, 0, sizeof(lim));
	lim.max_symbols = conf->symbol_max_symbols;
	lim.max_names = conf->symbol_max_bytes;
	lim.max_debugdata = conf->symbol_max_debugdata;
	lim.max_dwarf = conf->symbol_dwarf_bytes;
	c->inlines = conf->symbol_inlines;
	/* The debug files debuginfod fetched are looked for too. */
	free(c->fetch_dir);
	c->fetch_dir = symcache_fetch_dir(conf);
	if (c->fetch_dir != NULL)
		xasprintf(&dirs, "%s%s%s", conf->debug_dirs != NULL ?
		    conf->debug_dirs : "", conf->debug_dirs != NULL &&
		    *conf->debug_dirs != '\0' ? ":" : "", c->fetch_dir);
	else
		dirs = xstrdup(conf->debug_dirs != NULL ? conf->debug_dirs :
		    "");
	if (c->debug_dirs == NULL || strcmp(c->debug_dirs, dirs) != 0 ||
	    memcmp(&c->lim, &lim, sizeof(lim)) != 0) {
		/*
		 * Tables read without the new debug files, or refused by
		 * other bounds: read again.
		 */
		while (c->tail != NULL)
			symcache_evict(c, c->tail);
		free(c->debug_dirs);
		c->debug_dirs = dirs;
		c->lim = lim;
	} else
		free(dirs);
	symcache_trim(c);
}

/*
 * Tables still held by a caller survive, emptied: symcache_put frees
 * them without the cache.
 */
void
symcache_free(struct symcache *c)
{
	if (c == NULL)
		return;
	while (c->tail != NULL)
		symcache_evict(c, c->tail);
	symcache_put(c, c->vdso);
	free(c->debug_dirs);
	free(c->fetch_dir);
	free(c->want);
	free(c->ino);
	free(c);
}

/* Drop the tables no frame used in the last max_rounds rounds. */
void
symcache_round_end(struct symcache *c)
{
	while (c->tail != NULL && c->round - c->tail->used_round >=
	    c->max_rounds)
		symcache_evict(c, c->tail);
	c->round++;
	symcache_trim(c);
}

void
symcache_stats(struct symcache *c, struct symcache_stats *st)
{
	st->files = c->nfiles;
	st->bytes = c->bytes;
	st->hits = c->hits;
	st->misses = c->misses;
}
