/*
 * The memory of last-hour.svg's sums (flamegraph_hour.c).  Keeping what
 * each file of the hour added, a (stack, value) pair a line, to take it
 * off again when the file leaves, cost a directory 3,600 files an hour
 * at collect_interval = 1, each with its own record: a daemon grew from
 * 30 to 54 MB in ten minutes.  So once a minute is over its files are
 * merged into one bucket, a stack once whatever the number of files that
 * added it, and a bucket leaves the hour whole.  It keeps no file by
 * file record, only a digest of its files (names, inodes, sizes, times)
 * to tell they are still those listed; when they are not (a file deleted
 * or replaced mid-hour, one planted), the bucket is taken off and the
 * minute's files still there are read again, so the sum stays that of
 * the files listed.
 *
 * The bytes a directory holds (its sum, its order, its records and
 * buckets) are bounded by FLAMEGRAPH_HOUR_MEM, and those of all by
 * FLAMEGRAPH_HOURS_MEM: over them, the oldest minutes of the directory
 * holding the most leave the sum before the hour is over, and its files
 * of before are no longer read (last-hour.svg says from when it covers).
 * The newest minute is always kept.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flamegraph.h"
#include "flamegraph_int.h"
#include "util/hash.h"
#include "util/log.h"
#include "profile/profile.h"
#include "util/xmalloc.h"

/* A stack's bytes in a profile, about: its entry, frames, table slots. */
#define FLAMEGRAPH_HOUR_STACK_BYTES(n)	(48 + 16 + (n) * 4)

static int	 flamegraph_hour_pair_cmp(const void *, const void *);
static struct flamegraph_hour_bucket *flamegraph_hour_bucket_merge(
		    struct flamegraph_hour_file *, size_t, time_t);
static size_t	 flamegraph_hour_trim(struct flamegraph_hour *, size_t);
static int	 flamegraph_hour_spans(const struct flamegraph_hour *);

uint64_t
flamegraph_hour_digest(const struct flamegraph_hour_file *f, size_t n)
{
	uint64_t	 h = 0x9e3779b97f4a7c15ULL, v[7];
	size_t		 i, j;

	for (i = 0; i < n; i++) {
		v[0] = f[i].sb.st_dev;
		v[1] = f[i].sb.st_ino;
		v[2] = f[i].sb.st_size;
		v[3] = f[i].sb.st_mtim.tv_sec;
		v[4] = f[i].sb.st_mtim.tv_nsec;
		v[5] = f[i].sb.st_ctim.tv_sec;
		v[6] = f[i].sb.st_ctim.tv_nsec;
		h = hash_pair(h, hash_str(f[i].name));
		for (j = 0; j < 7; j++)
			h = hash_pair(h, v[j]);
	}
	return h;
}

/*
 * The files of the bucket all read whole are read the same now if the
 * budget is still more than they hold (the per-file rule of
 * flamegraph_hours_get() for each of them); those not read, if it is
 * spent still.
 */
int
flamegraph_hour_bucket_keep(const struct flamegraph_hour_bucket *bk,
    const struct flamegraph_hour_file *f, size_t n, size_t budget)
{
	if (bk->nfiles != n || bk->digest != flamegraph_hour_digest(f, n))
		return 0;
	return bk->read ? budget > bk->bytes : budget == 0;
}

size_t
flamegraph_hour_bucket_sub(struct profile *p, struct flamegraph_hour_bucket *bk)
{
	uint64_t	 v;
	size_t		 i, n, freed;

	freed = sizeof(*bk) + sizeof(bk) +
	    bk->n * (sizeof(*bk->stacks) + sizeof(*bk->values));
	for (i = 0; i < bk->n; i++) {
		profile_stack_sub(p, bk->stacks[i], bk->values[i]);
		(void)profile_stack(p, bk->stacks[i], &n, &v);
		if (v == 0)
			freed += FLAMEGRAPH_HOUR_STACK_BYTES(n);
	}
	free(bk->stacks);
	free(bk->values);
	free(bk);
	return freed;
}

static int
flamegraph_hour_pair_cmp(const void *va, const void *vb)
{
	const uint64_t	*a = va, *b = vb;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/*
 * A bucket of the n loose files of a minute, taking their records; NULL
 * if a file is cut by the byte budget (or some are read and some not):
 * such a minute stays loose, file by file.
 */
static struct flamegraph_hour_bucket *
flamegraph_hour_bucket_merge(struct flamegraph_hour_file *f, size_t n,
    time_t key)
{
	struct flamegraph_hour_bucket	*bk;
	uint64_t			*pairs;
	size_t				 i, j, m = 0, bytes = 0, read = 0;

	for (i = 0; i < n; i++) {
		if (f[i].cap == 0 && f[i].bytes == 0)
			continue;
		if (f[i].bytes >= f[i].cap)
			return NULL;
		read++;
		bytes += f[i].bytes;
		m += f[i].n;
	}
	if (read != 0 && read != n)
		return NULL;
	bk = xcalloc(1, sizeof(*bk));
	bk->key = key;
	bk->digest = flamegraph_hour_digest(f, n);
	bk->nfiles = n;
	bk->bytes = bytes;
	bk->read = read != 0;
	if (m == 0)
		return bk;

	/* Pairs sorted by stack, the values of a stack summed. */
	pairs = xreallocarray(NULL, m, 2 * sizeof(*pairs));
	for (i = 0, m = 0; i < n; i++)
		for (j = 0; j < f[i].n; j++, m++) {
			pairs[2 * m] = f[i].stacks[j];
			pairs[2 * m + 1] = f[i].values[j];
		}
	qsort(pairs, m, 2 * sizeof(*pairs), flamegraph_hour_pair_cmp);
	for (i = j = 0; i < m; i++) {
		if (j > 0 && pairs[2 * (j - 1)] == pairs[2 * i]) {
			pairs[2 * (j - 1) + 1] += pairs[2 * i + 1];
			continue;
		}
		pairs[2 * j] = pairs[2 * i];
		pairs[2 * j + 1] = pairs[2 * i + 1];
		j++;
	}
	bk->n = j;
	bk->stacks = xreallocarray(NULL, j, sizeof(*bk->stacks));
	bk->values = xreallocarray(NULL, j, sizeof(*bk->values));
	for (i = 0; i < j; i++) {
		bk->stacks[i] = pairs[2 * i];
		bk->values[i] = pairs[2 * i + 1];
	}
	free(pairs);
	for (i = 0; i < n; i++) {
		free(f[i].stacks);
		free(f[i].values);
		f[i].stacks = NULL;
		f[i].values = NULL;
		f[i].n = f[i].ncap = 0;
	}
	return bk;
}

/*
 * The files of a round, newest first, become the directory's: those of
 * a bucket kept stay in it, the minutes that are over are merged, the
 * others stay loose.
 */
void
flamegraph_hour_regroup(struct flamegraph_hour *h,
    struct flamegraph_hour_file *files, size_t nfiles, time_t now)
{
	struct flamegraph_hour_bucket	*bk;
	size_t				 i, j, k, nf = 0, nb = 0;
	time_t				 key;

	free(h->buckets);
	h->buckets = NULL;
	for (i = 0; i < nfiles; i = j) {
		key = files[i].when / FLAMEGRAPH_HOUR_BUCKET;
		for (j = i + 1; j < nfiles &&
		    files[j].when / FLAMEGRAPH_HOUR_BUCKET == key; j++)
			;
		bk = files[i].bucket;
		if (bk == NULL && (key + 1) * FLAMEGRAPH_HOUR_BUCKET <= now)
			bk = flamegraph_hour_bucket_merge(&files[i], j - i,
			    key);
		if (bk != NULL) {
			h->buckets = xreallocarray(h->buckets, nb + 1,
			    sizeof(*h->buckets));
			h->buckets[nb++] = bk;
			continue;
		}
		for (k = i; k < j; k++) {
			files[k].bucket = NULL;
			files[nf++] = files[k];
		}
	}
	h->nbuckets = nb;
	h->nfiles = nf;
	if (nf == 0) {
		free(files);
		files = NULL;
	} else
		files = xreallocarray(files, nf, sizeof(*files));
	h->files = files;
}

/* The bytes a directory holds, about: what malloc was asked for. */
size_t
flamegraph_hour_mem(const struct flamegraph_hour *h)
{
	size_t	 i, n;

	n = sizeof(*h) + strlen(h->dir) + 1 + profile_bytes(h->p) +
	    (profile_nstacks(h->p) + profile_nstrings(h->p)) *
	    sizeof(uint32_t) + h->nfiles * sizeof(*h->files) +
	    h->nbuckets * (sizeof(*h->buckets) + sizeof(**h->buckets));
	for (i = 0; i < h->nfiles; i++)
		n += h->files[i].ncap * (sizeof(*h->files[i].stacks) +
		    sizeof(*h->files[i].values));
	for (i = 0; i < h->nbuckets; i++)
		n += h->buckets[i]->n * (sizeof(*h->buckets[i]->stacks) +
		    sizeof(*h->buckets[i]->values));
	return n;
}

/*
 * Take the oldest minutes off the sum until it holds limit bytes or
 * only its newest minute; the files of before are not read any more.
 * Returns the number of minutes taken off.
 */
static size_t
flamegraph_hour_trim(struct flamegraph_hour *h, size_t limit)
{
	struct flamegraph_hour_file	*f;
	uint64_t			 v;
	size_t				 est, n, dropped = 0, i;
	time_t				 kb, kf, key;

	while (h->mem > limit) {
		est = h->mem;
		while (est > limit) {
			kb = h->nbuckets > 0 ?
			    h->buckets[h->nbuckets - 1]->key : -1;
			kf = h->nfiles > 0 ? h->files[h->nfiles - 1].when /
			    FLAMEGRAPH_HOUR_BUCKET : -1;
			/* The older of the oldest bucket and loose file. */
			key = kb == -1 || (kf != -1 && kf < kb) ? kf : kb;
			/* The newest minute stays, whatever it holds. */
			if (key == -1 || (h->nfiles > 0 &&
			    h->files[0].when / FLAMEGRAPH_HOUR_BUCKET == key) ||
			    (h->nbuckets > 0 && h->buckets[0]->key == key))
				break;
			if (kb == key) {
				n = flamegraph_hour_bucket_sub(h->p,
				    h->buckets[--h->nbuckets]);
				est -= n < est ? n : est;
			}
			while (h->nfiles > 0 && (f = &h->files[h->nfiles -
			    1])->when / FLAMEGRAPH_HOUR_BUCKET == key) {
				for (i = 0; i < f->n; i++) {
					(void)profile_stack(h->p, f->stacks[i],
					    &n, &v);
					if (v == f->values[i] && est > 
					    FLAMEGRAPH_HOUR_STACK_BYTES(n))
						est -=
						    FLAMEGRAPH_HOUR_STACK_BYTES(n);
				}
				n = f->ncap * (sizeof(*f->stacks) +
				    sizeof(*f->values)) + sizeof(*f);
				flamegraph_hour_file_sub(h->p, f);
				est -= n < est ? n : est;
				h->nfiles--;
			}
			h->from = (key + 1) * FLAMEGRAPH_HOUR_BUCKET;
			dropped++;
		}
		if (dropped == 0)
			break;
		flamegraph_hour_compact(h, 1);
		n = h->mem;
		h->mem = flamegraph_hour_mem(h);
		if (h->mem >= n)
			break;
	}
	return dropped;
}

/* Whether h holds more than one minute, so that trimming can free any. */
static int
flamegraph_hour_spans(const struct flamegraph_hour *h)
{
	time_t	 newest, oldest;

	if (h->nbuckets + h->nfiles < 2)
		return 0;
	newest = h->nfiles > 0 && (h->nbuckets == 0 ||
	    h->files[0].when / FLAMEGRAPH_HOUR_BUCKET > h->buckets[0]->key) ?
	    h->files[0].when / FLAMEGRAPH_HOUR_BUCKET : h->buckets[0]->key;
	oldest = h->nfiles > 0 && (h->nbuckets == 0 ||
	    h->files[h->nfiles - 1].when / FLAMEGRAPH_HOUR_BUCKET <
	    h->buckets[h->nbuckets - 1]->key) ?
	    h->files[h->nfiles - 1].when / FLAMEGRAPH_HOUR_BUCKET :
	    h->buckets[h->nbuckets - 1]->key;
	return newest != oldest;
}

/*
 * Hold h to FLAMEGRAPH_HOUR_MEM, then all the sums to
 * FLAMEGRAPH_HOURS_MEM: first dropping the sums of the directories
 * unused the longest, in no round since the one before (a service
 * gone; its hour would be read again from its files if it came back),
 * then taking the oldest minutes of the largest that holds more than
 * one.  Said once, when a sum first leaves part of its hour out.
 */
void
flamegraph_hours_bound(struct flamegraph_hours *hs, struct flamegraph_hour *h)
{
	struct flamegraph_hour	*x, **xp, *big, *idle;
	size_t			 n, old, excess;
	int			 cut;

	/* hs->mem kept up to date: a round need not walk every sum. */
	old = h->mem;
	h->mem = flamegraph_hour_mem(h);
	cut = h->from > h->used - FLAMEGRAPH_HOUR;
	if (h->mem > hs->mem_dir && (n = flamegraph_hour_trim(h,
	    hs->mem_dir)) > 0 && !cut)
		log_warnx("%s: last-hour.svg: the oldest %zu minutes left "
		    "out, over %zu KiB", h->dir, n, hs->mem_dir >> 10);
	hs->mem += h->mem - old;
	while (hs->mem > hs->mem_all) {
		big = NULL;
		idle = NULL;
		for (x = hs->list; x != NULL; x = x->next) {
			if (flamegraph_hour_spans(x) &&
			    (big == NULL || x->mem > big->mem))
				big = x;
			/* Not used this round nor the one before. */
			if (x->seen + 1 < hs->rounds && x->pending == NULL &&
			    (idle == NULL || x->seen < idle->seen))
				idle = x;
		}
		if (idle != NULL) {
			for (xp = &hs->list; *xp != idle; xp = &(*xp)->next)
				;
			*xp = idle->next;
			log_debug("flame graph: %s: hour dropped, over %zu KiB "
			    "for all directories", idle->dir,
			    hs->mem_all >> 10);
			hs->mem -= idle->mem;
			flamegraph_hour_free(idle);
			continue;
		}
		if (big == NULL)
			break;
		excess = hs->mem - hs->mem_all;
		cut = big->from > big->used - FLAMEGRAPH_HOUR;
		old = big->mem;
		n = flamegraph_hour_trim(big, big->mem > excess ?
		    big->mem - excess : 0);
		hs->mem += big->mem - old;
		if (n == 0)
			break;
		if (!cut)
			log_warnx("%s: last-hour.svg: the oldest %zu minutes "
			    "left out, over %zu KiB for all directories",
			    big->dir, n, hs->mem_all >> 10);
	}
}
