/*
 * The profile of last-hour.svg: the .folded files the sink wrote in a
 * directory over the last hour, summed.  Reading them all back every
 * round cost a round more than anything else once profiles were large
 * (30,000 stacks a round: half a second, growing with the hour), so
 * each directory keeps its sum in memory, with what the files added to
 * it.  A round lists the directory, as the full read did, and compares
 * the list with the files it holds: a new file is read and added, a
 * file gone (out of the hour, deleted by retention or by hand) or
 * changed (its inode, size or times) is taken off again from memory.
 * So the sum is always that of the files listed, as the full read's
 * was, and the first round after a start reads the whole hour.
 *
 * What a file added is kept a (stack, value) pair a line only while its
 * minute goes on; a minute that is over is merged into a bucket, a
 * stack once for all its files (flamegraph_hour_bucket.c), which leaves
 * the hour whole: the files summed are those of the whole minutes in
 * the hour, the last 59 to 60 minutes.  A file of a bucket deleted or
 * changed mid-hour has the bucket taken off and its other files read
 * again, so that the sum stays that of the files listed.  Memory is
 * bounded by bytes held, per directory and for all (FLAMEGRAPH_HOUR_MEM,
 * FLAMEGRAPH_HOURS_MEM): over them, the oldest minutes leave early.
 *
 * The files are untrusted input like any file on disk: names are
 * checked against the patterns the sink writes, only regular files are
 * opened, lines and the bytes read are bounded -- the newest
 * FLAMEGRAPH_HOUR_BYTES of the listing, the file that crosses the bound
 * read up to it, as the full read did.  Listing and reading the files is
 * flamegraph_hour_files.c; the round's own file is taken from the
 * profile it was written from (flamegraph_hours_known()).
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
#include "util/log.h"
#include "profile/profile.h"
#include "retention.h"
#include "util/xmalloc.h"

#define FLAMEGRAPH_HOUR_IDLE	600		/* seconds unused: dropped */
#define FLAMEGRAPH_HOUR_HOLES	4096		/* zero stacks kept */

static void	 flamegraph_hour_walk(struct flamegraph_hours *,
		    struct flamegraph_hour *, int, struct flamegraph_hour_file *,
		    size_t, size_t *, struct flamegraph_hour_file *, size_t *);

/*
 * Stacks that left the hour stay in the sum as holes; when they
 * outnumber the others, or if forced and there are any, the sum is
 * copied without them.
 */
void
flamegraph_hour_compact(struct flamegraph_hour *h, int force)
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
	if (nstacks == live || (!force && (nstacks - live <=
	    FLAMEGRAPH_HOUR_HOLES || nstacks - live <= live)))
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
	for (i = 0; i < h->nbuckets; i++)
		for (j = 0; j < h->buckets[i]->n; j++)
			h->buckets[i]->stacks[j] =
			    map[h->buckets[i]->stacks[j]];
	free(map);
	free(names);
	profile_free(h->p);
	h->p = np;
	/* Stacks and names numbered anew: sorted anew. */
	flamegraph_order_free(h->order);
	h->order = flamegraph_order_create();
}

void
flamegraph_hour_free(struct flamegraph_hour *h)
{
	size_t	 i;

	for (i = 0; i < h->nfiles; i++) {
		free(h->files[i].stacks);
		free(h->files[i].values);
	}
	free(h->files);
	for (i = 0; i < h->nbuckets; i++) {
		free(h->buckets[i]->stacks);
		free(h->buckets[i]->values);
		free(h->buckets[i]);
	}
	free(h->buckets);
	flamegraph_order_free(h->order);
	profile_free(h->p);
	free(h->pending);
	free(h->dir);
	free(h);
}

struct flamegraph_hours *
flamegraph_hours_create(void)
{
	struct flamegraph_hours	*hs;

	hs = xcalloc(1, sizeof(*hs));
	hs->budget = FLAMEGRAPH_HOUR_BYTES;
	hs->mem_dir = FLAMEGRAPH_HOUR_MEM;
	hs->mem_all = FLAMEGRAPH_HOURS_MEM;
	return hs;
}

/* Another bound than FLAMEGRAPH_HOUR_BYTES: for tests. */
void
flamegraph_hours_budget(struct flamegraph_hours *hs, size_t bytes)
{
	hs->budget = bytes;
}

/* Other memory bounds than FLAMEGRAPH_HOUR_MEM and _HOURS_MEM: [output]
 * svg_hour_bytes (sinks.c), and tests. */
void
flamegraph_hours_mem(struct flamegraph_hours *hs, size_t dir, size_t all)
{
	hs->mem_dir = dir;
	hs->mem_all = all;
}

/* The bytes the sums hold, about. */
size_t
flamegraph_hours_bytes(const struct flamegraph_hours *hs)
{
	return hs->mem;
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
	size_t			 buckets = 0, pairs = 0;

	for (h = hs->list; h != NULL; h = h->next) {
		n++;
		files += h->nfiles;
		stacks += profile_nstacks(h->p);
		for (i = 0; i < h->nfiles; i++)
			lines += h->files[i].n;
		buckets += h->nbuckets;
		for (i = 0; i < h->nbuckets; i++)
			pairs += h->buckets[i]->n;
	}
	log_info("flame graphs: the last hour of %zu directories kept, "
	    "%zu files loose, %zu folded lines, %zu minutes merged, %zu "
	    "stacks in them, %zu stacks, %zu KiB of %zu", n, files, lines,
	    buckets, pairs, stacks, flamegraph_hours_bytes(hs) >> 10,
	    hs->mem_all >> 10);
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

	hs->rounds++;
	for (hp = &hs->list; (h = *hp) != NULL; ) {
		if (h->used > now - FLAMEGRAPH_HOUR_IDLE && h->used <= now) {
			hp = &h->next;
			continue;
		}
		*hp = h->next;
		log_debug("flame graph: %s: hour dropped", h->dir);
		hs->mem -= h->mem;
		flamegraph_hour_free(h);
	}
}

/*
 * One file listed, against the loose files held, old[*op ..] (newest
 * first, as the list): those newer, not listed, are taken off; the one
 * held under its name is kept if the budget it gets now reads it the
 * same (whole before and still more than it holds, or cut before and
 * cut at the same byte), else taken off and the file read.
 */
static void
flamegraph_hour_walk(struct flamegraph_hours *hs, struct flamegraph_hour *h,
    int dfd, struct flamegraph_hour_file *old, size_t nold, size_t *op,
    struct flamegraph_hour_file *f, size_t *budget)
{
	size_t	 o = *op;
	int	 c = 1, keep;

	while (o < nold && (c = flamegraph_hour_cmp(&old[o], f)) < 0)
		flamegraph_hour_file_sub(h->p, &old[o++]);
	if (c == 0 && flamegraph_hour_same(&old[o], f) && *budget > 0) {
		keep = old[o].bytes < old[o].cap ?
		    *budget > old[o].bytes : *budget == old[o].cap;
		if (keep) {
			*f = old[o++];
			*budget -= f->bytes;
			*op = o;
			return;
		}
	}
	if (c == 0)
		flamegraph_hour_file_sub(h->p, &old[o++]);
	*op = o;
	if (*budget > 0 && !flamegraph_hour_known(hs, h, f, budget))
		flamegraph_hour_file_read(h, dfd, f, budget);
}

/*
 * The profile of the hour up to now from dir's .folded files, or NULL
 * after logging.  The file of this round is among them: the sink wrote
 * it under the same time.  The profile is the directory's, kept in hs
 * until the next call; a stack of value 0 in it is a hole.  *orderp is
 * the order of its stacks kept for flamegraph_create_ordered(); *fromp
 * the time from which files are summed: an hour back, or later when
 * the memory bound left the oldest minutes out.
 */
struct profile *
flamegraph_hours_get(struct flamegraph_hours *hs, const char *dir,
    const struct profile *p, time_t now, struct flamegraph_order **orderp,
    time_t *fromp)
{
	struct flamegraph_hour		*h;
	struct flamegraph_hour_file	*files, *old;
	struct flamegraph_hour_bucket	*bk;
	DIR				*d;
	size_t				 nfiles, i, j, k, o, b, budget;
	time_t				 key;
	int				 dfd;

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
	h->seen = hs->rounds;
	files = flamegraph_hour_list(dir, d, now, h->from, &nfiles);
	h->oldest = nfiles > 0 ? files[nfiles - 1].when : now;
	h->nlisted = nfiles;

	/*
	 * The list, the buckets and the loose files held are all newest
	 * first: walk them side by side, a minute of the list at a time.
	 * A bucket that holds the minute's files as they would be read now
	 * is kept whole; one that does not (a file deleted, changed or
	 * added, the budget moved) is taken off, and its files read again.
	 */
	budget = hs->budget;
	old = h->files;
	for (i = o = b = 0; i < nfiles; i = j) {
		key = files[i].when / FLAMEGRAPH_HOUR_BUCKET;
		for (j = i + 1; j < nfiles &&
		    files[j].when / FLAMEGRAPH_HOUR_BUCKET == key; j++)
			;
		while (b < h->nbuckets && h->buckets[b]->key > key)
			flamegraph_hour_bucket_sub(h->p, h->buckets[b++]);
		if (b < h->nbuckets && h->buckets[b]->key == key) {
			bk = h->buckets[b++];
			if (flamegraph_hour_bucket_keep(bk, &files[i], j - i,
			    budget)) {
				for (k = i; k < j; k++)
					files[k].bucket = bk;
				budget -= bk->bytes;
				continue;
			}
			flamegraph_hour_bucket_sub(h->p, bk);
		}
		for (k = i; k < j; k++)
			flamegraph_hour_walk(hs, h, dirfd(d), old, h->nfiles,
			    &o, &files[k], &budget);
	}
	while (b < h->nbuckets)
		flamegraph_hour_bucket_sub(h->p, h->buckets[b++]);
	while (o < h->nfiles)
		flamegraph_hour_file_sub(h->p, &old[o++]);
	free(old);
	h->files = NULL;
	h->nfiles = 0;
	flamegraph_hour_regroup(h, files, nfiles, now);
	if (budget == 0)
		log_warnx("%s: last-hour.svg covers the newest %zu MiB of "
		    "folded stacks", dir, hs->budget >> 20);
	closedir(d);
	flamegraph_hours_known(hs, NULL, NULL, NULL);
	flamegraph_hour_compact(h, 0);
	flamegraph_hours_bound(hs, h);
	*orderp = h->order;
	*fromp = h->from > now - FLAMEGRAPH_HOUR ? h->from :
	    now - FLAMEGRAPH_HOUR;
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
