/*
 * Finding a table: by inode, (device, inode) as /proc/PID/maps gives
 * it, each alias checked against the file's size and mtime; and by
 * build id, which says too whether the file has a .symtab.  Two hash
 * tables, chained, that double when they fill.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symcache.h"
#include "symcache_int.h"
#include "xmalloc.h"

static uint64_t
symcache_index_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t
symcache_index_ino_hash(const struct symcache_key *k)
{
	return symcache_index_mix(k->ino ^
	    symcache_index_mix((uint64_t)k->major << 32 | k->minor));
}

static uint64_t
symcache_index_bid_hash(const uint8_t *id, size_t len, int has_symtab)
{
	uint64_t	 h = 0xcbf29ce484222325ULL;
	size_t		 i;

	for (i = 0; i < len; i++) {
		h ^= id[i];
		h *= 0x100000001b3ULL;
	}
	return symcache_index_mix(h ^ (uint64_t)has_symtab);
}

static int
symcache_index_key_same_inode(const struct symcache_key *a,
    const struct symcache_key *b)
{
	return a->major == b->major && a->minor == b->minor &&
	    a->ino == b->ino;
}

int
symcache_index_key_same(const struct symcache_key *a,
    const struct symcache_key *b)
{
	return symcache_index_key_same_inode(a, b) && a->size == b->size &&
	    a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

void
symcache_index_key_stat(struct symcache_key *k, const struct stat *sb)
{
	k->major = major(sb->st_dev);
	k->minor = minor(sb->st_dev);
	k->ino = sb->st_ino;
	k->size = sb->st_size;
	k->mtime_sec = sb->st_mtim.tv_sec;
	k->mtime_nsec = sb->st_mtim.tv_nsec;
}

/* The file of sb is a regular file with the inode of the mapping. */
int
symcache_index_stat_is_inode(const struct stat *sb,
    const struct symcache_key *k)
{
	if (!S_ISREG(sb->st_mode))
		return 0;
	return major(sb->st_dev) == k->major &&
	    minor(sb->st_dev) == k->minor && sb->st_ino == k->ino;
}

static void
symcache_index_ino_grow(struct symcache *c)
{
	struct symcache_alias	**v, *a, *next;
	size_t			  size, i, h;

	size = c->ino_size * 2;
	v = xcalloc(size, sizeof(*v));
	for (i = 0; i < c->ino_size; i++)
		for (a = c->ino[i]; a != NULL; a = next) {
			next = a->next;
			h = symcache_index_ino_hash(&a->key) & (size - 1);
			a->next = v[h];
			v[h] = a;
		}
	free(c->ino);
	c->ino = v;
	c->ino_size = size;
}

static void
symcache_index_bid_grow(struct symcache *c)
{
	struct symcache_file	**v, *f, *next;
	size_t			  size, i, h;

	size = c->bid_size * 2;
	v = xcalloc(size, sizeof(*v));
	for (i = 0; i < c->bid_size; i++)
		for (f = c->bid[i]; f != NULL; f = next) {
			next = f->bid_next;
			h = symcache_index_bid_hash(f->sf.build_id,
			    f->sf.build_id_len, f->sf.has_symtab) & (size - 1);
			f->bid_next = v[h];
			v[h] = f;
		}
	free(c->bid);
	c->bid = v;
	c->bid_size = size;
}

struct symcache_alias *
symcache_index_alias_find(struct symcache *c, const struct symcache_key *k)
{
	struct symcache_alias	*a;

	a = c->ino[symcache_index_ino_hash(k) & (c->ino_size - 1)];
	for (; a != NULL; a = a->next)
		if (symcache_index_key_same_inode(&a->key, k))
			return a;
	return NULL;
}

void
symcache_index_alias_add(struct symcache *c, struct symcache_file *f,
    const struct symcache_key *k)
{
	struct symcache_alias	*a;
	size_t			 h;

	if (c->ino_n >= c->ino_size)
		symcache_index_ino_grow(c);
	a = xcalloc(1, sizeof(*a));
	a->key = *k;
	a->file = f;
	a->file_next = f->aliases;
	f->aliases = a;
	h = symcache_index_ino_hash(k) & (c->ino_size - 1);
	a->next = c->ino[h];
	c->ino[h] = a;
	c->ino_n++;
}

/* Unhash an alias; the caller unlinks it from its file. */
void
symcache_index_alias_unhash(struct symcache *c, struct symcache_alias *a)
{
	struct symcache_alias	**pp;

	pp = &c->ino[symcache_index_ino_hash(&a->key) & (c->ino_size - 1)];
	for (; *pp != NULL; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			c->ino_n--;
			return;
		}
}

/* A stale alias: the inode now holds something else. */
void
symcache_index_alias_remove(struct symcache *c, struct symcache_alias *a)
{
	struct symcache_file	*f = a->file;
	struct symcache_alias	**pp;

	symcache_index_alias_unhash(c, a);
	for (pp = &f->aliases; *pp != NULL; pp = &(*pp)->file_next)
		if (*pp == a) {
			*pp = a->file_next;
			break;
		}
	free(a);
	/* Without a build id nothing finds the table any more. */
	if (f->aliases == NULL && f->sf.build_id_len == 0)
		symcache_evict(c, f);
}

struct symcache_file *
symcache_index_bid_find(struct symcache *c, const uint8_t *id, size_t len,
    int has_symtab)
{
	struct symcache_file	*f;

	f = c->bid[symcache_index_bid_hash(id, len, has_symtab) &
	    (c->bid_size - 1)];
	for (; f != NULL; f = f->bid_next)
		if (f->sf.build_id_len == len &&
		    f->sf.has_symtab == has_symtab &&
		    memcmp(f->sf.build_id, id, len) == 0)
			return f;
	return NULL;
}

void
symcache_index_bid_add(struct symcache *c, struct symcache_file *f)
{
	size_t	 h;

	if (c->bid_n >= c->bid_size)
		symcache_index_bid_grow(c);
	h = symcache_index_bid_hash(f->sf.build_id, f->sf.build_id_len,
	    f->sf.has_symtab) & (c->bid_size - 1);
	f->bid_next = c->bid[h];
	c->bid[h] = f;
	c->bid_n++;
}

void
symcache_index_bid_remove(struct symcache *c, struct symcache_file *f)
{
	struct symcache_file	**pp;

	pp = &c->bid[symcache_index_bid_hash(f->sf.build_id, f->sf.build_id_len,
	    f->sf.has_symtab) & (c->bid_size - 1)];
	for (; *pp != NULL; pp = &(*pp)->bid_next)
		if (*pp == f) {
			*pp = f->bid_next;
			c->bid_n--;
			return;
		}
}
