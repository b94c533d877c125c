/*
 * Finding a table by its keys: (device, inode) as /proc/PID/maps gives
 * it and what else the key's kind names (a root, a debug file, a vDSO
 * image's hash), each alias checked against the file's size and mtime.
 * A hash table, chained, that doubles when it fills.
 *
 * A claimed build id is no key: any file can claim any, so two files
 * share a table only when they are the same file.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "symcache.h"
#include "symcache_int.h"
#include "util/xmalloc.h"

static uint64_t
symcache_index_ino_hash(const struct symcache_key *k)
{
	uint64_t	 h;
	size_t		 i;

	h = hash_pair(k->ino, (uint64_t)k->major << 32 | k->minor);
	h = hash_pair(h, k->kind);
	for (i = 0; i < SYMCACHE_KEY_CTX; i++)
		h = hash_pair(h, k->ctx[i]);
	return h;
}

/* The same file, found the same way; its size and mtime aside. */
static int
symcache_index_key_same_inode(const struct symcache_key *a,
    const struct symcache_key *b)
{
	return a->major == b->major && a->minor == b->minor &&
	    a->ino == b->ino && a->kind == b->kind &&
	    memcmp(a->ctx, b->ctx, sizeof(a->ctx)) == 0;
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
	k->kind = SYMCACHE_KEY_FILE;
	memset(k->ctx, 0, sizeof(k->ctx));
}

/*
 * k, of a file, made the key of that file as the process pid (0: we)
 * sees it, from its root: its mount namespace and root directory.
 * -1 if the process is gone.
 */
int
symcache_index_key_root(struct symcache_key *k, pid_t pid)
{
	struct stat	 ns, root;
	char		 path[64];

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	if (stat(path, &ns) == -1)
		return -1;
	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	else
		snprintf(path, sizeof(path), "/");
	if (stat(path, &root) == -1)
		return -1;
	k->kind = SYMCACHE_KEY_ROOT;
	memset(k->ctx, 0, sizeof(k->ctx));
	k->ctx[0] = ns.st_ino;
	k->ctx[1] = ns.st_dev;
	k->ctx[2] = root.st_dev;
	k->ctx[3] = root.st_ino;
	return 0;
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
	/* Nothing finds the table any more. */
	if (f->aliases == NULL)
		symcache_evict(c, f);
}
