/*
 * What retention knows of the profiles it has seen: their mode, size
 * and mtime, by inode.  A sweep lists every service directory each
 * round, and a directory keeps retention_hours of profiles -- at the
 * defaults (72 hours, a round every 10 s) some 50,000 files -- so one
 * fstatat() per file cost a round some 200 ms of system time, growing
 * with the hours kept.  A profile is never changed once written (the
 * sink writes a new file under a new name each round), so a profile
 * listed again under the same name, inode and device is taken as it
 * was stat'ed.  Flame graphs and temporary files are few and are
 * replaced in place: they are always stat'ed.  Entries not listed in a
 * sweep are dropped at its end, and the whole cache every
 * RETENTION_CACHE_AGE seconds, so that a profile changed in place by
 * someone else -- or deleted and made again under its name, when the
 * new file happens to get the freed inode number -- is seen within that
 * time.  A file renamed over a profile, as the sink writes, is another
 * inode and is stat'ed at once.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/hash.h"
#include "retention.h"
#include "util/xmalloc.h"

#define RETENTION_CACHE_AGE	300	/* seconds before all is stat'ed */
#define RETENTION_CACHE_MIN	1024	/* slots */

struct retention_cache_ent {
	dev_t		 dev;
	ino_t		 ino;
	uint64_t	 name;		/* hash */
	off_t		 size;
	time_t		 mtime;
	mode_t		 mode;
	uint32_t	 gen;		/* of the sweep that listed it */
};

struct retention_cache {
	struct retention_cache_ent *tab;	/* ino 0: empty */
	size_t			 size, used;	/* size a power of two */
	uint32_t		 gen;
	time_t			 since;		/* of the last full stat */
};

static size_t	 retention_cache_slot(const struct retention_cache *,
		    dev_t, ino_t, uint64_t);
static void	 retention_cache_put(struct retention_cache *,
		    const struct retention_cache_ent *);

struct retention_cache *
retention_cache_create(void)
{
	struct retention_cache	*c;

	c = xcalloc(1, sizeof(*c));
	c->size = RETENTION_CACHE_MIN;
	c->tab = xcalloc(c->size, sizeof(*c->tab));
	return c;
}

void
retention_cache_free(struct retention_cache *c)
{
	if (c == NULL)
		return;
	free(c->tab);
	free(c);
}

static size_t
retention_cache_slot(const struct retention_cache *c, dev_t dev, ino_t ino,
    uint64_t name)
{
	size_t	 mask = c->size - 1, j;

	j = hash_mix((uint64_t)ino ^ name ^ ((uint64_t)dev << 40));
	for (j &= mask; c->tab[j].ino != 0; j = (j + 1) & mask)
		if (c->tab[j].ino == ino && c->tab[j].dev == dev &&
		    c->tab[j].name == name)
			break;
	return j;
}

static void
retention_cache_put(struct retention_cache *c,
    const struct retention_cache_ent *e)
{
	struct retention_cache_ent	*old;
	size_t				 i, oldsize;

	if ((c->used + 1) * 2 > c->size) {
		old = c->tab;
		oldsize = c->size;
		c->size *= 2;
		c->tab = xcalloc(c->size, sizeof(*c->tab));
		c->used = 0;
		for (i = 0; i < oldsize; i++)
			if (old[i].ino != 0)
				retention_cache_put(c, &old[i]);
		free(old);
	}
	i = retention_cache_slot(c, e->dev, e->ino, e->name);
	if (c->tab[i].ino == 0)
		c->used++;
	c->tab[i] = *e;
}

/* A sweep starts: everything is stat'ed again now and then. */
void
retention_cache_begin(struct retention_cache *c, time_t now)
{
	c->gen++;
	if (now >= c->since && now - c->since < RETENTION_CACHE_AGE)
		return;
	memset(c->tab, 0, c->size * sizeof(*c->tab));
	c->used = 0;
	c->since = now;
}

/* A sweep ends: what it did not list is gone. */
void
retention_cache_end(struct retention_cache *c)
{
	struct retention_cache_ent	*old;
	size_t				 i, oldsize;

	old = c->tab;
	oldsize = c->size;
	while (c->size > RETENTION_CACHE_MIN && c->used * 8 < c->size)
		c->size /= 2;
	c->tab = xcalloc(c->size, sizeof(*c->tab));
	c->used = 0;
	for (i = 0; i < oldsize; i++)
		if (old[i].ino != 0 && old[i].gen == c->gen)
			retention_cache_put(c, &old[i]);
	free(old);
}

/*
 * fstatat(dfd, name, sb, AT_SYMLINK_NOFOLLOW) for a profile that
 * readdir() listed with inode ino in a directory on device dev: the
 * mode, size and mtime, from the cache when it was stat'ed before.
 * Only those three fields of sb are set on a hit.
 */
int
retention_cache_stat(struct retention_cache *c, int dfd, dev_t dev,
    ino_t ino, const char *name, struct stat *sb)
{
	struct retention_cache_ent	 e, *hit;
	size_t				 len = strlen(name);

	if (c == NULL || ino == 0)
		return fstatat(dfd, name, sb, AT_SYMLINK_NOFOLLOW);
	memset(&e, 0, sizeof(e));
	e.dev = dev;
	e.ino = ino;
	e.name = hash_bytes(name, len);
	hit = &c->tab[retention_cache_slot(c, dev, ino, e.name)];
	if (hit->ino != 0) {
		hit->gen = c->gen;
		memset(sb, 0, sizeof(*sb));
		sb->st_mode = hit->mode;
		sb->st_size = hit->size;
		sb->st_mtime = hit->mtime;
		sb->st_ino = ino;
		sb->st_dev = dev;
		return 0;
	}
	if (fstatat(dfd, name, sb, AT_SYMLINK_NOFOLLOW) == -1)
		return -1;
	/* Listed, then replaced before the stat: not a profile kept. */
	if (sb->st_ino != ino || sb->st_dev != dev)
		return 0;
	e.size = sb->st_size;
	e.mtime = sb->st_mtime;
	e.mode = sb->st_mode;
	e.gen = c->gen;
	retention_cache_put(c, &e);
	return 0;
}
