/*
 * The symbol tables of files, shared by every process that maps the same
 * file.
 *
 * A table is found by inode: (device, inode) as /proc/PID/maps gives it,
 * checked against the file's size and mtime so that a reused inode or a
 * file rewritten in place is read again.  Several inodes can share one
 * table when their files have the same build id (the same library in
 * several containers); the build id key also says whether the file has a
 * .symtab, so a stripped copy never stands in for an unstripped one.
 * Paths are never keys: a container can put anything at any path.
 *
 * Files are opened through /proc/PID/root/PATH, so that processes in
 * other mount namespaces work; when the mapping is deleted, or the file
 * at that path is not the mapped one (replaced, or a container planted
 * another), through /proc/PID/map_files/START-END, which is the mapped
 * file itself.  Opens are O_NONBLOCK and only regular files are read, so
 * a FIFO at the path cannot hang the daemon.
 *
 * Bounds: at most symbol_cache_files tables are cached (least recently
 * used first out), and a table unused for symbol_cache_rounds rounds is
 * dropped.  A dropped table's memory is freed even when a process still
 * refers to it: the reference is then "evicted" and the caller gets the
 * table again (usually from the cache) the next time it needs it.
 *
 * A file that is not ELF or does not parse is cached as a table without
 * symbols, so it is not read again for every frame.  A file that cannot
 * be opened at all is not cached (the process may just have exited; the
 * next process mapping it may do better), but the caller keeps the empty
 * table for as long as it holds the mapping.
 *
 * Later sources of symbols (debug files by build id or .gnu_debuglink,
 * MiniDebugInfo, Go's pclntab, perf maps) belong in symcache_load.
 */
#include <sys/types.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "elf.h"
#include "log.h"
#include "procmaps.h"
#include "symcache.h"
#include "symtab.h"
#include "xmalloc.h"

#define SYMCACHE_BUCKETS_MIN	256

/* What identifies a file's contents without reading it. */
struct symcache_key {
	uint32_t	major;
	uint32_t	minor;
	uint64_t	ino;
	int64_t		size;
	int64_t		mtime_sec;
	int64_t		mtime_nsec;
};

struct symcache_alias {
	struct symcache_key	 key;
	struct symcache_file	*file;
	struct symcache_alias	*next;		/* hash chain */
	struct symcache_alias	*file_next;	/* the file's other aliases */
};

struct symcache_file {
	struct symtab		*symtab;	/* NULL: no symbols */
	struct elf_file_segment	*segs;
	size_t			 nsegs;
	uint8_t			 build_id[ELF_FILE_BUILD_ID_MAX];
	size_t			 build_id_len;
	int			 has_symtab;
	size_t			 bytes;
	unsigned int		 refs;		/* holders, the cache aside */
	int			 cached;
	int			 evicted;
	int			 vdso;
	uint64_t		 used_round;
	struct symcache_file	*prev, *next;	/* LRU, most recent first */
	struct symcache_file	*bid_next;	/* hash chain */
	struct symcache_alias	*aliases;
};

struct symcache {
	size_t			 max_files;
	uint64_t		 max_rounds;
	uint64_t		 round;
	struct symcache_alias	**ino;
	size_t			 ino_size, ino_n;
	struct symcache_file	**bid;
	size_t			 bid_size, bid_n;
	struct symcache_file	*head, *tail;
	size_t			 nfiles, bytes;
	uint64_t		 hits, misses;
	struct symcache_file	*vdso;
	int			 vdso_tried;
	uint64_t		 vdso_size;
};

static void	symcache_evict(struct symcache *, struct symcache_file *);

static uint64_t
symcache_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t
symcache_ino_hash(const struct symcache_key *k)
{
	return symcache_mix(k->ino ^ symcache_mix((uint64_t)k->major << 32 |
	    k->minor));
}

static uint64_t
symcache_bid_hash(const uint8_t *id, size_t len, int has_symtab)
{
	uint64_t	 h = 0xcbf29ce484222325ULL;
	size_t		 i;

	for (i = 0; i < len; i++) {
		h ^= id[i];
		h *= 0x100000001b3ULL;
	}
	return symcache_mix(h ^ (uint64_t)has_symtab);
}

static int
symcache_key_same_inode(const struct symcache_key *a,
    const struct symcache_key *b)
{
	return a->major == b->major && a->minor == b->minor &&
	    a->ino == b->ino;
}

static int
symcache_key_same(const struct symcache_key *a, const struct symcache_key *b)
{
	return symcache_key_same_inode(a, b) && a->size == b->size &&
	    a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

static void
symcache_key_stat(struct symcache_key *k, const struct stat *sb)
{
	k->major = major(sb->st_dev);
	k->minor = minor(sb->st_dev);
	k->ino = sb->st_ino;
	k->size = sb->st_size;
	k->mtime_sec = sb->st_mtim.tv_sec;
	k->mtime_nsec = sb->st_mtim.tv_nsec;
}

/* The file at path is a regular file with the inode of the mapping. */
static int
symcache_stat_is_inode(const char *path, const struct symcache_key *k,
    struct stat *sb)
{
	if (stat(path, sb) == -1 || !S_ISREG(sb->st_mode))
		return 0;
	return major(sb->st_dev) == k->major &&
	    minor(sb->st_dev) == k->minor && sb->st_ino == k->ino;
}

/* Hash tables. */

static void
symcache_ino_grow(struct symcache *c)
{
	struct symcache_alias	**v, *a, *next;
	size_t			  size, i, h;

	size = c->ino_size * 2;
	v = xcalloc(size, sizeof(*v));
	for (i = 0; i < c->ino_size; i++)
		for (a = c->ino[i]; a != NULL; a = next) {
			next = a->next;
			h = symcache_ino_hash(&a->key) & (size - 1);
			a->next = v[h];
			v[h] = a;
		}
	free(c->ino);
	c->ino = v;
	c->ino_size = size;
}

static void
symcache_bid_grow(struct symcache *c)
{
	struct symcache_file	**v, *f, *next;
	size_t			  size, i, h;

	size = c->bid_size * 2;
	v = xcalloc(size, sizeof(*v));
	for (i = 0; i < c->bid_size; i++)
		for (f = c->bid[i]; f != NULL; f = next) {
			next = f->bid_next;
			h = symcache_bid_hash(f->build_id, f->build_id_len,
			    f->has_symtab) & (size - 1);
			f->bid_next = v[h];
			v[h] = f;
		}
	free(c->bid);
	c->bid = v;
	c->bid_size = size;
}

static struct symcache_alias *
symcache_alias_find(struct symcache *c, const struct symcache_key *k)
{
	struct symcache_alias	*a;

	a = c->ino[symcache_ino_hash(k) & (c->ino_size - 1)];
	for (; a != NULL; a = a->next)
		if (symcache_key_same_inode(&a->key, k))
			return a;
	return NULL;
}

static void
symcache_alias_add(struct symcache *c, struct symcache_file *f,
    const struct symcache_key *k)
{
	struct symcache_alias	*a;
	size_t			 h;

	if (c->ino_n >= c->ino_size)
		symcache_ino_grow(c);
	a = xcalloc(1, sizeof(*a));
	a->key = *k;
	a->file = f;
	a->file_next = f->aliases;
	f->aliases = a;
	h = symcache_ino_hash(k) & (c->ino_size - 1);
	a->next = c->ino[h];
	c->ino[h] = a;
	c->ino_n++;
}

/* Unhash an alias; the caller unlinks it from its file. */
static void
symcache_alias_unhash(struct symcache *c, struct symcache_alias *a)
{
	struct symcache_alias	**pp;

	pp = &c->ino[symcache_ino_hash(&a->key) & (c->ino_size - 1)];
	for (; *pp != NULL; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			c->ino_n--;
			return;
		}
}

/* A stale alias: the inode now holds something else. */
static void
symcache_alias_remove(struct symcache *c, struct symcache_alias *a)
{
	struct symcache_file	*f = a->file;
	struct symcache_alias	**pp;

	symcache_alias_unhash(c, a);
	for (pp = &f->aliases; *pp != NULL; pp = &(*pp)->file_next)
		if (*pp == a) {
			*pp = a->file_next;
			break;
		}
	free(a);
	/* Without a build id nothing finds the table any more. */
	if (f->aliases == NULL && f->build_id_len == 0)
		symcache_evict(c, f);
}

static struct symcache_file *
symcache_bid_find(struct symcache *c, const uint8_t *id, size_t len,
    int has_symtab)
{
	struct symcache_file	*f;

	f = c->bid[symcache_bid_hash(id, len, has_symtab) &
	    (c->bid_size - 1)];
	for (; f != NULL; f = f->bid_next)
		if (f->build_id_len == len && f->has_symtab == has_symtab &&
		    memcmp(f->build_id, id, len) == 0)
			return f;
	return NULL;
}

static void
symcache_bid_add(struct symcache *c, struct symcache_file *f)
{
	size_t	 h;

	if (c->bid_n >= c->bid_size)
		symcache_bid_grow(c);
	h = symcache_bid_hash(f->build_id, f->build_id_len, f->has_symtab) &
	    (c->bid_size - 1);
	f->bid_next = c->bid[h];
	c->bid[h] = f;
	c->bid_n++;
}

static void
symcache_bid_remove(struct symcache *c, struct symcache_file *f)
{
	struct symcache_file	**pp;

	pp = &c->bid[symcache_bid_hash(f->build_id, f->build_id_len,
	    f->has_symtab) & (c->bid_size - 1)];
	for (; *pp != NULL; pp = &(*pp)->bid_next)
		if (*pp == f) {
			*pp = f->bid_next;
			c->bid_n--;
			return;
		}
}

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
	symtab_free(f->symtab);
	f->symtab = NULL;
	free(f->segs);
	f->segs = NULL;
	f->nsegs = 0;
}

static void
symcache_file_free(struct symcache_file *f)
{
	symcache_file_release(f);
	free(f);
}

static struct symcache_file *
symcache_file_new(void)
{
	struct symcache_file	*f;

	f = xcalloc(1, sizeof(*f));
	f->refs = 1;
	return f;
}

/* Drop a table from the cache and free its memory. */
static void
symcache_evict(struct symcache *c, struct symcache_file *f)
{
	struct symcache_alias	*a, *next;

	if (!f->cached)
		return;
	for (a = f->aliases; a != NULL; a = next) {
		next = a->file_next;
		symcache_alias_unhash(c, a);
		free(a);
	}
	f->aliases = NULL;
	if (f->build_id_len > 0)
		symcache_bid_remove(c, f);
	symcache_lru_unlink(c, f);
	c->nfiles--;
	c->bytes -= f->bytes;
	f->cached = 0;
	f->evicted = 1;
	symcache_file_release(f);
	if (f->refs == 0)
		free(f);
}

static void
symcache_trim(struct symcache *c)
{
	while (c->nfiles > c->max_files && c->tail != NULL)
		symcache_evict(c, c->tail);
}

static void
symcache_insert(struct symcache *c, struct symcache_file *f,
    const struct symcache_key *k)
{
	f->cached = 1;
	f->used_round = c->round;
	f->bytes = sizeof(*f) + symtab_bytes(f->symtab) +
	    f->nsegs * sizeof(*f->segs);
	if (f->build_id_len > 0)
		symcache_bid_add(c, f);
	symcache_alias_add(c, f, k);
	symcache_lru_push(c, f);
	c->nfiles++;
	c->bytes += f->bytes;
	symcache_trim(c);
}

static struct symcache_file *
symcache_ref(struct symcache *c, struct symcache_file *f)
{
	f->refs++;
	symcache_touch(c, f);
	return f;
}

/* Read the symbols of an open ELF file into f. */
static void
symcache_load(struct symcache_file *f, struct elf_file *ef)
{
	struct symtab_builder	*b;

	if ((f->segs = elf_file_segments(ef, &f->nsegs)) == NULL)
		return;
	b = symtab_builder_create();
	elf_file_symbols(ef, b);
	f->symtab = symtab_builder_finish(b);
}

/*
 * The table for the file at path, whose key k the caller has from a
 * stat of that path.  Never NULL.
 */
static struct symcache_file *
symcache_lookup(struct symcache *c, const char *path,
    const struct symcache_key *k)
{
	struct symcache_alias	*a;
	struct symcache_file	*f, *g;
	struct elf_file		*ef;
	struct symcache_key	 fk;
	struct stat		 sb;
	int			 fd;

	if ((a = symcache_alias_find(c, k)) != NULL) {
		if (symcache_key_same(&a->key, k)) {
			c->hits++;
			return symcache_ref(c, a->file);
		}
		symcache_alias_remove(c, a);
	}

	f = symcache_file_new();
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		log_debug("open %s: %s", path, fd == -1 ? strerror(errno) :
		    "not a regular file");
		goto uncached;
	}
	symcache_key_stat(&fk, &sb);
	if (!symcache_key_same(&fk, k)) {
		/* Replaced between the stat and the open. */
		log_debug("%s: file changed while opening", path);
		goto uncached;
	}
	if ((ef = elf_file_open(fd)) == NULL) {
		log_debug("%s: not an ELF file we can read", path);
		c->misses++;
		symcache_insert(c, f, k);
		close(fd);
		return f;
	}
	if (elf_file_build_id(ef, f->build_id, sizeof(f->build_id),
	    &f->build_id_len) == -1)
		f->build_id_len = 0;
	f->has_symtab = elf_file_has_symtab(ef);
	if (f->build_id_len > 0 && (g = symcache_bid_find(c, f->build_id,
	    f->build_id_len, f->has_symtab)) != NULL) {
		elf_file_close(ef);
		close(fd);
		free(f);
		symcache_alias_add(c, g, k);
		c->hits++;
		return symcache_ref(c, g);
	}
	c->misses++;
	symcache_load(f, ef);
	elf_file_close(ef);
	close(fd);
	log_debug("%s: %zu symbols", path, symtab_count(f->symtab));
	symcache_insert(c, f, k);
	return f;

uncached:
	if (fd != -1)
		close(fd);
	c->misses++;
	return f;
}

/*
 * The vDSO of a process is the kernel's image, the same as ours when
 * the process has the same ABI (the size tells), so it is read once from
 * our own memory.
 */
static struct symcache_file *
symcache_vdso(struct symcache *c, const struct procmaps_entry *me)
{
	const struct procmaps_entry	*e;
	struct procmaps			*m;
	struct elf_file			*ef;
	struct symcache_file		*f;
	unsigned long			 base;

	if (!c->vdso_tried) {
		c->vdso_tried = 1;
		if ((base = getauxval(AT_SYSINFO_EHDR)) == 0 ||
		    (m = procmaps_read(getpid())) == NULL)
			return NULL;
		if ((e = procmaps_lookup(m, base)) != NULL &&
		    strcmp(e->path, "[vdso]") == 0 && e->start == base) {
			c->vdso_size = e->end - e->start;
			if ((ef = elf_file_open_mem((void *)base,
			    c->vdso_size)) != NULL) {
				f = symcache_file_new();
				f->vdso = 1;
				symcache_load(f, ef);
				elf_file_close(ef);
				c->vdso = f;
			}
		}
		procmaps_free(m);
	}
	if (c->vdso == NULL || me->end - me->start != c->vdso_size)
		return NULL;
	c->vdso->refs++;
	return c->vdso;
}

struct symcache_file *
symcache_get(struct symcache *c, pid_t pid, const struct procmaps_entry *me)
{
	struct symcache_alias	*a;
	struct symcache_key	 k;
	struct stat		 sb;
	char			 path[PATH_MAX + 64];
	int			 n;

	if (me->kind == PROCMAPS_SPECIAL && strcmp(me->path, "[vdso]") == 0)
		return symcache_vdso(c, me);
	if (me->kind != PROCMAPS_FILE)
		return NULL;

	memset(&k, 0, sizeof(k));
	k.major = me->dev_major;
	k.minor = me->dev_minor;
	k.ino = me->inode;
	n = snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid,
	    me->path);
	if (me->deleted || n < 0 || (size_t)n >= sizeof(path) ||
	    !symcache_stat_is_inode(path, &k, &sb)) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx",
		    (int)pid, (unsigned long long)me->start,
		    (unsigned long long)me->end);
		if (!symcache_stat_is_inode(path, &k, &sb)) {
			/*
			 * We cannot see the file (the process exited, or
			 * no CAP_SYS_ADMIN for map_files): a table of the
			 * inode already cached is still the right one.
			 */
			if ((a = symcache_alias_find(c, &k)) != NULL) {
				c->hits++;
				return symcache_ref(c, a->file);
			}
			log_debug("pid %d: cannot open %s", (int)pid,
			    me->path);
			c->misses++;
			return symcache_file_new();
		}
	}
	symcache_key_stat(&k, &sb);
	return symcache_lookup(c, path, &k);
}

struct symcache_file *
symcache_get_path(struct symcache *c, const char *path)
{
	struct symcache_key	 k;
	struct stat		 sb;

	if (stat(path, &sb) == -1) {
		log_debug("stat %s: %s", path, strerror(errno));
		c->misses++;
		return symcache_file_new();
	}
	if (!S_ISREG(sb.st_mode)) {
		log_debug("%s: not a regular file", path);
		c->misses++;
		return symcache_file_new();
	}
	symcache_key_stat(&k, &sb);
	return symcache_lookup(c, path, &k);
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
	return symtab_count(f->symtab);
}

const uint8_t *
symcache_file_build_id(const struct symcache_file *f, size_t *len)
{
	*len = f->build_id_len;
	return f->build_id_len > 0 ? f->build_id : NULL;
}

/* The symbol at a file offset of the mapped file, or NULL. */
const char *
symcache_symbol(struct symcache *c, struct symcache_file *f, uint64_t off)
{
	uint64_t	 vaddr;

	if (f->used_round != c->round)
		symcache_touch(c, f);
	if (f->symtab == NULL || elf_file_offset_to_vaddr(f->segs, f->nsegs,
	    off, &vaddr) == -1)
		return NULL;
	return symtab_lookup(f->symtab, vaddr);
}

/* The symbol at an ELF virtual address of the file, or NULL. */
const char *
symcache_symbol_vaddr(struct symcache *c, struct symcache_file *f,
    uint64_t vaddr)
{
	if (f->used_round != c->round)
		symcache_touch(c, f);
	return symtab_lookup(f->symtab, vaddr);
}

int
symcache_file_offset(const struct symcache_file *f, uint64_t vaddr,
    uint64_t *off)
{
	return elf_file_vaddr_to_offset(f->segs, f->nsegs, vaddr, off);
}

struct symcache *
symcache_create(const struct config *conf)
{
	struct symcache	*c;

	c = xcalloc(1, sizeof(*c));
	c->ino_size = SYMCACHE_BUCKETS_MIN;
	c->ino = xcalloc(c->ino_size, sizeof(*c->ino));
	c->bid_size = SYMCACHE_BUCKETS_MIN;
	c->bid = xcalloc(c->bid_size, sizeof(*c->bid));
	symcache_configure(c, conf);
	return c;
}

void
symcache_configure(struct symcache *c, const struct config *conf)
{
	c->max_files = conf->symbol_cache_files > 0 ?
	    (size_t)conf->symbol_cache_files : 1;
	c->max_rounds = conf->symbol_cache_rounds > 0 ?
	    (uint64_t)conf->symbol_cache_rounds : 1;
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
	free(c->ino);
	free(c->bid);
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
}

void
symcache_stats(struct symcache *c, struct symcache_stats *st)
{
	st->files = c->nfiles;
	st->bytes = c->bytes;
	st->hits = c->hits;
	st->misses = c->misses;
}
