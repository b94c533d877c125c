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
 * a directory's memory.  Listing and reading the files is
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
#include "log.h"
#include "profile.h"
#include "retention.h"
#include "xmalloc.h"

#define FLAMEGRAPH_HOUR_IDLE	600		/* seconds unused: dropped */
#define FLAMEGRAPH_HOUR_HOLES	4096		/* zero stacks kept */

static void	 flamegraph_hour_compact(struct flamegraph_hour *);
static void	 flamegraph_hour_free(struct flamegraph_hour *);

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
