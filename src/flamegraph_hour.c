/*
 * The profile of last-hour.svg: the .folded files the sink wrote in a
 * directory over the last hour, summed.  Reading them all back every
 * round cost a round more than anything else once profiles were large
 * (30,000 stacks a round: half a second, growing with the hour), so
 * each directory keeps its sum in memory, with what each file added to
 * it, one (stack, value) pair a line.  A round lists the directory, as
 * the full read did, and compares the list with the files it holds: a
 * new file is read and added, a file gone (out of the hour, deleted by
 * retention or by hand) or changed (its inode, size or times) is taken
 * off again from memory.  So the sum is always that of the files
 * listed, as the full read's was, and the first round after a start
 * reads the whole hour.
 *
 * The files are untrusted input like any file on disk: names are
 * checked against the patterns the sink writes, only regular files are
 * opened, lines and the bytes read are bounded -- the newest
 * FLAMEGRAPH_HOUR_BYTES of the listing, the file that crosses the bound
 * read up to it, as the full read did.  That bound is also what bounds
 * a directory's memory.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flamegraph.h"
#include "flamegraph_int.h"
#include "log.h"
#include "profile.h"
#include "retention.h"
#include "xmalloc.h"

#define FLAMEGRAPH_HOUR_FILES	8192		/* folded files read */
#define FLAMEGRAPH_HOUR_IDLE	600		/* seconds unused: dropped */
#define FLAMEGRAPH_HOUR_HOLES	4096		/* zero stacks kept */

/* One directory. */
struct flamegraph_hour {
	char			*dir;
	struct profile		*p;		/* the sum */
	struct flamegraph_order	*order;		/* of its stacks */
	struct flamegraph_hour_file *files;	/* newest first */
	size_t			 nfiles;
	time_t			 used;
	struct flamegraph_hour	*next;
};

struct flamegraph_hours {
	struct flamegraph_hour	*list;
	size_t			 budget;	/* bytes read of an hour */
	/* The sink's file of this round and the profile it holds. */
	char			*known;
	struct stat		 known_sb;
	const struct profile	*known_p;
};

static int	 flamegraph_hour_cmp(const void *, const void *);
static void	 flamegraph_hour_file_sub(struct profile *,
		    struct flamegraph_hour_file *);
static void	 flamegraph_hour_file_read(struct flamegraph_hour *, int,
		    struct flamegraph_hour_file *, size_t *);
static struct flamegraph_hour_file *flamegraph_hour_list(const char *,
		    DIR *, time_t, size_t *);
static int	 flamegraph_hour_known(struct flamegraph_hours *,
		    struct flamegraph_hour *, struct flamegraph_hour_file *,
		    size_t *);
static int	 flamegraph_hour_same(const struct flamegraph_hour_file *,
		    const struct flamegraph_hour_file *);
static void	 flamegraph_hour_compact(struct flamegraph_hour *);
static void	 flamegraph_hour_free(struct flamegraph_hour *);

/* Newest first, so that a cut by the byte budget drops the oldest. */
static int
flamegraph_hour_cmp(const void *va, const void *vb)
{
	const struct flamegraph_hour_file	*a = va, *b = vb;

	if (a->when != b->when)
		return a->when > b->when ? -1 : 1;
	return strcmp(b->name, a->name);
}

/* Take what a file added off the sum, and forget it. */
static void
flamegraph_hour_file_sub(struct profile *p, struct flamegraph_hour_file *hf)
{
	size_t	 i;

	for (i = 0; i < hf->n; i++)
		profile_stack_sub(p, hf->stacks[i], hf->values[i]);
	free(hf->stacks);
	free(hf->values);
	hf->stacks = NULL;
	hf->values = NULL;
	hf->n = hf->ncap = 0;
	hf->cap = hf->bytes = 0;
}

/* Read a file of the directory dfd into the sum, with *budget bytes. */
static void
flamegraph_hour_file_read(struct flamegraph_hour *h, int dfd,
    struct flamegraph_hour_file *hf, size_t *budget)
{
	struct stat	 sb;
	FILE		*f;
	size_t		 before = *budget;
	int		 fd;

	/* Read or not, it is known for this budget: not opened again. */
	hf->cap = *budget;
	hf->bytes = 0;
	fd = openat(dfd, hf->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd == -1 && errno == ELOOP)
		log_warnx("%s/%s: not a regular file", h->dir, hf->name);
	else if (fd == -1 && errno != ENOENT)
		log_warn("open %s/%s", h->dir, hf->name);
	if (fd == -1)
		return;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (f = fdopen(fd, "r")) == NULL) {
		log_warnx("%s/%s: not a regular file", h->dir, hf->name);
		close(fd);
		return;
	}
	if (flamegraph_read(h->p, f, budget, hf) == -1)
		log_warn("read %s/%s", h->dir, hf->name);
	fclose(f);
	hf->bytes = before - *budget;
}

/* The profiles of the hour in a directory, newest first. */
static struct flamegraph_hour_file *
flamegraph_hour_list(const char *dir, DIR *d, time_t now, size_t *np)
{
	struct flamegraph_hour_file	*files = NULL;
	struct dirent			*de;
	struct tm			 tm;
	size_t				 nfiles = 0, len;
	time_t				 when, from = now - FLAMEGRAPH_HOUR;
	char				 old[32] = "";

	/*
	 * The directory holds retention_hours of profiles; names carry
	 * their UTC time, which sorts as text does, so those of before
	 * the hour are passed over without working out their time.
	 */
	if (gmtime_r(&from, &tm) == NULL ||
	    strftime(old, sizeof(old), "%Y%m%dT%H%M%SZ", &tm) == 0)
		old[0] = '\0';
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 7 || len >= sizeof(files->name) ||
		    strcmp(de->d_name + len - 7, ".folded") != 0 ||
		    strncmp(de->d_name, old, strlen(old)) < 0 ||
		    retention_classify(de->d_name, &when) !=
		    RETENTION_PROFILE || when == -1 || when > now ||
		    when <= now - FLAMEGRAPH_HOUR)
			continue;
		if (nfiles == FLAMEGRAPH_HOUR_FILES) {
			log_warnx("%s: more than %d profiles in the last hour",
			    dir, FLAMEGRAPH_HOUR_FILES);
			break;
		}
		if (nfiles % 256 == 0)
			files = xreallocarray(files, nfiles + 256,
			    sizeof(*files));
		memset(&files[nfiles], 0, sizeof(*files));
		files[nfiles].when = when;
		/* Unknown: read, and its warning logged, when it is read. */
		(void)fstatat(dirfd(d), de->d_name, &files[nfiles].sb,
		    AT_SYMLINK_NOFOLLOW);
		memcpy(files[nfiles].name, de->d_name, len + 1);
		nfiles++;
	}
	qsort(files, nfiles, sizeof(*files), flamegraph_hour_cmp);
	*np = nfiles;
	return files;
}

/*
 * A file listed that is the one the sink has just written from a
 * profile (the same inode, size and mtime) takes its stacks from the
 * profile, if the budget holds the whole file: 1, else 0 to read it.
 */
static int
flamegraph_hour_known(struct flamegraph_hours *hs, struct flamegraph_hour *h,
    struct flamegraph_hour_file *hf, size_t *budget)
{
	size_t	 len = strlen(h->dir);

	if (hs->known == NULL || profile_type(hs->known_p) !=
	    profile_type(h->p) || strncmp(hs->known, h->dir, len) != 0 ||
	    hs->known[len] != '/' || strcmp(hs->known + len + 1,
	    hf->name) != 0)
		return 0;
	if (!S_ISREG(hf->sb.st_mode) ||
	    hf->sb.st_dev != hs->known_sb.st_dev ||
	    hf->sb.st_ino != hs->known_sb.st_ino ||
	    hf->sb.st_size != hs->known_sb.st_size ||
	    hf->sb.st_mtim.tv_sec != hs->known_sb.st_mtim.tv_sec ||
	    hf->sb.st_mtim.tv_nsec != hs->known_sb.st_mtim.tv_nsec ||
	    hf->sb.st_size < 0 || (size_t)hf->sb.st_size >= *budget)
		return 0;
	if (!flamegraph_read_profile(h->p, hs->known_p, hf))
		return 0;
	hf->cap = *budget;
	hf->bytes = hf->sb.st_size;
	*budget -= hf->bytes;
	return 1;
}

/*
 * Whether a file listed is the one held: a file replaced under its name
 * is another inode, or the same one reused with other times or size.
 */
static int
flamegraph_hour_same(const struct flamegraph_hour_file *a,
    const struct flamegraph_hour_file *b)
{
	return a->sb.st_dev == b->sb.st_dev && a->sb.st_ino == b->sb.st_ino &&
	    a->sb.st_size == b->sb.st_size &&
	    a->sb.st_mtim.tv_sec == b->sb.st_mtim.tv_sec &&
	    a->sb.st_mtim.tv_nsec == b->sb.st_mtim.tv_nsec &&
	    a->sb.st_ctim.tv_sec == b->sb.st_ctim.tv_sec &&
	    a->sb.st_ctim.tv_nsec == b->sb.st_ctim.tv_nsec;
}

/*
 * Stacks that left the hour stay in the sum as holes; when they
 * outnumber the others, the sum is copied without them.
 */
static void
flamegraph_hour_compact(struct flamegraph_hour *h)
{
	struct profile		*np;
	const uint32_t		*ids;
	const char		**names = NULL;
	uint32_t		*map;
	uint64_t		 v;
	size_t			 i, j, n, nstacks, live = 0, cap = 0;

	nstacks = profile_nstacks(h->p);
	for (i = 0; i < nstacks; i++) {
		(void)profile_stack(h->p, i, &n, &v);
		live += v != 0;
	}
	if (nstacks - live <= FLAMEGRAPH_HOUR_HOLES || nstacks - live <= live)
		return;

	np = profile_create(profile_type(h->p), profile_period(h->p),
	    profile_time(h->p), profile_duration(h->p));
	map = xcalloc(nstacks, sizeof(*map));
	for (i = 0; i < nstacks; i++) {
		ids = profile_stack(h->p, i, &n, &v);
		if (v == 0)
			continue;
		if (n > cap) {
			cap = n;
			names = xreallocarray(names, cap, sizeof(*names));
		}
		for (j = 0; j < n; j++)
			names[j] = profile_string(h->p, ids[j]);
		map[i] = profile_add_stack(np, names, n, v);
	}
	for (i = 0; i < h->nfiles; i++)
		for (j = 0; j < h->files[i].n; j++)
			h->files[i].stacks[j] = map[h->files[i].stacks[j]];
	free(map);
	free(names);
	profile_free(h->p);
	h->p = np;
	/* Stacks and names numbered anew: sorted anew. */
	flamegraph_order_free(h->order);
	h->order = flamegraph_order_create();
}

static void
flamegraph_hour_free(struct flamegraph_hour *h)
{
	size_t	 i;

	for (i = 0; i < h->nfiles; i++) {
		free(h->files[i].stacks);
		free(h->files[i].values);
	}
	free(h->files);
	flamegraph_order_free(h->order);
	profile_free(h->p);
	free(h->dir);
	free(h);
}

struct flamegraph_hours *
flamegraph_hours_create(void)
{
	struct flamegraph_hours	*hs;

	hs = xcalloc(1, sizeof(*hs));
	hs->budget = FLAMEGRAPH_HOUR_BYTES;
	return hs;
}

/* Another bound than FLAMEGRAPH_HOUR_BYTES: for tests. */
void
flamegraph_hours_budget(struct flamegraph_hours *hs, size_t bytes)
{
	hs->budget = bytes;
}

void
flamegraph_hours_free(struct flamegraph_hours *hs)
{
	struct flamegraph_hour	*h, *next;

	if (hs == NULL)
		return;
	for (h = hs->list; h != NULL; h = next) {
		next = h->next;
		flamegraph_hour_free(h);
	}
	free(hs->known);
	free(hs);
}

/* For SIGUSR1: what the sums hold. */
void
flamegraph_hours_log_state(struct flamegraph_hours *hs)
{
	struct flamegraph_hour	*h;
	size_t			 n = 0, files = 0, stacks = 0, lines = 0, i;

	for (h = hs->list; h != NULL; h = h->next) {
		n++;
		files += h->nfiles;
		stacks += profile_nstacks(h->p);
		for (i = 0; i < h->nfiles; i++)
			lines += h->files[i].n;
	}
	log_info("flame graphs: the last hour of %zu directories kept, "
	    "%zu files, %zu stacks, %zu folded lines", n, files, stacks,
	    lines);
}

/*
 * Drop the sums not used for a while: their target is gone or idle,
 * their directory perhaps deleted by retention.  If it comes back, the
 * first round reads its hour again.
 */
void
flamegraph_hours_sweep(struct flamegraph_hours *hs, time_t now)
{
	struct flamegraph_hour	*h, **hp;

	for (hp = &hs->list; (h = *hp) != NULL; ) {
		if (h->used > now - FLAMEGRAPH_HOUR_IDLE && h->used <= now) {
			hp = &h->next;
			continue;
		}
		*hp = h->next;
		log_debug("flame graph: %s: hour dropped", h->dir);
		flamegraph_hour_free(h);
	}
}

/*
 * The profile of the hour up to now from dir's .folded files, or NULL
 * after logging.  The file of this round is among them: the sink wrote
 * it under the same time.  The profile is the directory's, kept in hs
 * until the next call; a stack of value 0 in it is a hole.  *orderp is
 * the order of its stacks kept for flamegraph_create_ordered().
 */
struct profile *
flamegraph_hours_get(struct flamegraph_hours *hs, const char *dir,
    const struct profile *p, time_t now, struct flamegraph_order **orderp)
{
	struct flamegraph_hour		*h;
	struct flamegraph_hour_file	*files, *old;
	DIR				*d;
	size_t				 nfiles, i, o, budget;
	int				 dfd, c, keep;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd == -1 || (d = fdopendir(dfd)) == NULL) {
		log_warn("open %s", dir);
		if (dfd != -1)
			close(dfd);
		return NULL;
	}
	for (h = hs->list; h != NULL; h = h->next)
		if (strcmp(h->dir, dir) == 0 &&
		    profile_type(h->p) == profile_type(p))
			break;
	if (h == NULL) {
		h = xcalloc(1, sizeof(*h));
		h->dir = xstrdup(dir);
		h->p = profile_create(profile_type(p), profile_period(p), 0,
		    (int64_t)FLAMEGRAPH_HOUR * 1000000000);
		h->order = flamegraph_order_create();
		h->next = hs->list;
		hs->list = h;
	}
	h->used = now;
	files = flamegraph_hour_list(dir, d, now, &nfiles);

	/*
	 * Both lists are newest first: walk them side by side.  A file
	 * listed and held, the same inode, is kept if the budget it gets
	 * now reads it the same: whole before and still more than it
	 * holds, or cut before and cut at the same byte.
	 */
	budget = hs->budget;
	old = h->files;
	for (i = o = 0; i < nfiles; i++) {
		c = 1;
		while (o < h->nfiles &&
		    (c = flamegraph_hour_cmp(&old[o], &files[i])) < 0)
			flamegraph_hour_file_sub(h->p, &old[o++]);
		if (c == 0 && flamegraph_hour_same(&old[o], &files[i]) &&
		    budget > 0) {
			keep = old[o].bytes < old[o].cap ?
			    budget > old[o].bytes : budget == old[o].cap;
			if (keep) {
				files[i] = old[o++];
				budget -= files[i].bytes;
				continue;
			}
		}
		if (c == 0)
			flamegraph_hour_file_sub(h->p, &old[o++]);
		if (budget > 0 && !flamegraph_hour_known(hs, h, &files[i],
		    &budget))
			flamegraph_hour_file_read(h, dirfd(d), &files[i],
			    &budget);
	}
	while (o < h->nfiles)
		flamegraph_hour_file_sub(h->p, &old[o++]);
	free(old);
	h->files = files;
	h->nfiles = nfiles;
	if (budget == 0)
		log_warnx("%s: last-hour.svg covers the newest %zu MiB of "
		    "folded stacks", dir, hs->budget >> 20);
	closedir(d);
	flamegraph_hours_known(hs, NULL, NULL, NULL);
	flamegraph_hour_compact(h);
	*orderp = h->order;
	return h->p;
}

/*
 * The .folded file at path, as it was written (sink_file_write_folded()
 * says), holds the stacks of p: the next flamegraph_hours_get() may add
 * them from p rather than read the file back.  NULL forgets it.
 */
void
flamegraph_hours_known(struct flamegraph_hours *hs, const char *path,
    const struct stat *sb, const struct profile *p)
{
	free(hs->known);
	hs->known = NULL;
	hs->known_p = NULL;
	if (path == NULL)
		return;
	hs->known = xstrdup(path);
	hs->known_sb = *sb;
	hs->known_p = p;
}
