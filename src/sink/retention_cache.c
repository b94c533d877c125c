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

/*
 * 32 bytes a profile: the cache grows with the files kept (a directory
 * of retention_hours of them), 56 bytes each at first, 3.6 MB for the
 * 28,800 files an hour of a soak at collect_interval = 1 left.  Its
 * device is the cache's (the output directory's; profiles of another
 * one are stat'ed every time) and only regular files are kept, so
 * neither is stored.
 */
struct retention_cache_ent {
	uint64_t	 ino;		/* 0: empty */
	int64_t		 size;
	int64_t		 mtime;
	uint32_t	 name;		/* hash */
	uint32_t	 gen;		/* of the sweep that listed it */
};

struct retention_cache {
	struct retention_cache_ent *tab;
	size_t			 size, used;	/* size a power of two */
	size_t			 listed;	/* used, of this sweep */
	uint32_t		 gen;
	time_t			 since;		/* of the last full stat */
	dev_t			 dev;		/* of all it holds */
	int			 has_dev;
};

static size_t	 retention_cache_slot(const struct retention_cache *,
		    ino_t, uint32_t);
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
retention_cache_slot(const struct retention_cache *c, ino_t ino,
    uint32_t name)
{
	size_t	 mask = c->size - 1, j;

	j = hash_mix((uint64_t)ino ^ ((uint64_t)name << 32));
	for (j &= mask; c->tab[j].ino != 0; j = (j + 1) & mask)
		if (c->tab[j].ino == ino && c->tab[j].name == name)
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
	i = retention_cache_slot(c, e->ino, e->name);
	if (c->tab[i].ino == 0)
		c->used++;
	c->tab[i] = *e;
}

/* A sweep starts: everything is stat'ed again now and then. */
void
retention_cache_begin(struct retention_cache *c, time_t now)
{
	c->gen++;
	c->listed = 0;
	if (now >= c->since && now - c->since < RETENTION_CACHE_AGE)
		return;
	memset(c->tab, 0, c->size * sizeof(*c->tab));
	c->used = 0;
	c->since = now;
	c->has_dev = 0;		/* the output directory may have moved */
}

/*
 * A sweep ends: what it did not list is gone.  The table is made again
 * only when some entry went or it is too large for what it holds: made
 * every round, it cost a round a copy of all of it (2 MB at 28,800
 * files, the old and the new at once) to drop nothing, while the
 * profiles of the last retention_hours are all there still.
 */
void
retention_cache_end(struct retention_cache *c)
{
	struct retention_cache_ent	*old;
	size_t				 i, oldsize;

	if (c->listed == c->used && (c->size <= RETENTION_CACHE_MIN ||
	    c->used * 8 >= c->size))
		return;
	old = c->tab;
	oldsize = c->size;
	while (c->size > RETENTION_CACHE_MIN && c->listed * 8 < c->size)
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
 * size and mtime, from the cache when it was stat'ed before as a
 * regular file.  On a hit only those, the file type (S_IFREG), the
 * inode and the device are set in sb.
 */
int
retention_cache_stat(struct retention_cache *c, int dfd, dev_t dev,
    ino_t ino, const char *name, struct stat *sb)
{
	struct retention_cache_ent	 e, *hit;
	size_t				 len = strlen(name);

	if (c != NULL && !c->has_dev) {
		c->dev = dev;
		c->has_dev = 1;
	}
	if (c == NULL || ino == 0 || dev != c->dev)
		return fstatat(dfd, name, sb, AT_SYMLINK_NOFOLLOW);
	memset(&e, 0, sizeof(e));
	e.ino = ino;
	e.name = (uint32_t)hash_bytes(name, len);
	hit = &c->tab[retention_cache_slot(c, ino, e.name)];
	if (hit->ino != 0) {
		if (hit->gen != c->gen)
			c->listed++;
		hit->gen = c->gen;
		memset(sb, 0, sizeof(*sb));
		sb->st_mode = S_IFREG;
		sb->st_size = hit->size;
		sb->st_mtime = hit->mtime;
		sb->st_ino = ino;
		sb->st_dev = dev;
		return 0;
	}
	if (fstatat(dfd, name, sb, AT_SYMLINK_NOFOLLOW) == -1)
		return -1;
	/* Listed, then replaced before the stat: not a profile kept. */
	if (sb->st_ino != ino || sb->st_dev != dev || !S_ISREG(sb->st_mode))
		return 0;
	e.size = sb->st_size;
	e.mtime = sb->st_mtime;
	e.gen = c->gen;
	retention_cache_put(c, &e);
	c->listed++;
	return 0;
}
