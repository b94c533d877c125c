/*
 * Retention of the files sink's output: by age, then by total size.
 *
 * The daemon runs as root over a directory that other programs can
 * write to (a container's volume, a careless admin), so the sweep
 * deletes only what the sink writes: regular files whose names match
 * the sink's patterns, in <dir>/<type>/<service> directories reached
 * without following a symbolic link (openat with O_NOFOLLOW at every
 * level below dir, unlinkat relative to those descriptors).  Anything
 * else is left alone and not counted.
 *
 * A profile's age is the time in its name (the sink's clock when it
 * wrote it, which survives copies and touch), else its mtime.  Deleting
 * by size needs the oldest profiles of the whole tree; rather than a
 * list of every file, a second walk keeps in a heap just the oldest
 * ones that add up to the excess.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "util/log.h"
#include "profile/profile.h"
#include "retention.h"
#include "util/xmalloc.h"

#define RETENTION_TEMP_AGE	600	/* seconds: a write takes less */
#define RETENTION_STAMP_LEN	16	/* 20261202T101500Z */

static const enum profile_type retention_types[] = {
	PROFILE_TYPE_CPU,
	PROFILE_TYPE_OFFCPU,
};
#define RETENTION_NTYPES \
	(sizeof(retention_types) / sizeof(retention_types[0]))

struct retention_victim {
	time_t		 when;
	off_t		 size;
	size_t		 type;		/* into retention_types */
	char		*service;
	char		 name[32];
};

struct retention {
	const struct config	*conf;
	struct retention_cache	*cache;		/* NULL: stat everything */
	dev_t			 dev;		/* of the service directory */
	time_t			 now;
	time_t			 cutoff;	/* older is deleted */
	int			 aged;		/* there is a cutoff */
	int			 rfd;
	uint64_t		 total;		/* bytes of ours kept */
	uint64_t		 excess;	/* over max_bytes */
	struct retention_victim	*heap;		/* newest on top */
	size_t			 nheap, heapcap;
	uint64_t		 heapbytes;
	size_t			 files, dirs;	/* deleted */
	uint64_t		 bytes;
};

static int	 retention_digits(const char *, size_t);
static enum retention_kind retention_classify_n(const char *, size_t,
		    time_t *);
static int	 retention_unlink(struct retention *, int, size_t,
		    const char *, const char *, off_t);
static void	 retention_walk(struct retention *, void (*)(struct
		    retention *, size_t, int, DIR *, const char *));
static void	 retention_age_cb(struct retention *, size_t, int, DIR *,
		    const char *);
static int	 retention_victim_cmp(const void *, const void *);
static void	 retention_heap_pop(struct retention *);
static void	 retention_size_cb(struct retention *, size_t, int, DIR *,
		    const char *);
static void	 retention_size(struct retention *);

/* The value of n decimal digits, known to be digits. */
static int
retention_digits(const char *s, size_t n)
{
	int	 v = 0;

	for (; n > 0; s++, n--)
		v = v * 10 + (*s - '0');
	return v;
}

static enum retention_kind
retention_classify_n(const char *s, size_t len, time_t *when)
{
	struct tm	 tm, back;
	time_t		 t, ignored;
	size_t		 i, start;

	*when = -1;
	if ((len == 10 && memcmp(s, "latest.svg", len) == 0) ||
	    (len == 13 && memcmp(s, "last-hour.svg", len) == 0))
		return RETENTION_SVG;

	/* mkstemp()'s .<name>.XXXXXX, X from [A-Za-z0-9]. */
	if (len > 8 && s[0] == '.' && s[1] != '.' && s[len - 7] == '.') {
		for (i = len - 6; i < len; i++)
			if (!((s[i] >= 'a' && s[i] <= 'z') ||
			    (s[i] >= 'A' && s[i] <= 'Z') ||
			    (s[i] >= '0' && s[i] <= '9')))
				return RETENTION_FOREIGN;
		if (retention_classify_n(s + 1, len - 8, &ignored) ==
		    RETENTION_FOREIGN)
			return RETENTION_FOREIGN;
		return RETENTION_TEMP;
	}

	/* <YYYYmmddTHHMMSSZ>[-N].pb.gz or .folded, N in 1..999. */
	if (len < RETENTION_STAMP_LEN)
		return RETENTION_FOREIGN;
	for (i = 0; i < RETENTION_STAMP_LEN; i++) {
		if (i == 8 || i == 15) {
			if (s[i] != (i == 8 ? 'T' : 'Z'))
				return RETENTION_FOREIGN;
		} else if (s[i] < '0' || s[i] > '9')
			return RETENTION_FOREIGN;
	}
	if (i < len && s[i] == '-') {
		start = ++i;
		if (i == len || s[i] < '1' || s[i] > '9')
			return RETENTION_FOREIGN;
		while (i < len && i - start < 3 && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (!(len - i == 6 && memcmp(s + i, ".pb.gz", 6) == 0) &&
	    !(len - i == 7 && memcmp(s + i, ".folded", 7) == 0))
		return RETENTION_FOREIGN;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = retention_digits(s, 4) - 1900;
	tm.tm_mon = retention_digits(s + 4, 2) - 1;
	tm.tm_mday = retention_digits(s + 6, 2);
	tm.tm_hour = retention_digits(s + 9, 2);
	tm.tm_min = retention_digits(s + 11, 2);
	tm.tm_sec = retention_digits(s + 13, 2);
	back = tm;
	/* timegm() normalizes 31 February: a round trip tells. */
	if ((t = timegm(&tm)) == -1 || tm.tm_year != back.tm_year ||
	    tm.tm_mon != back.tm_mon || tm.tm_mday != back.tm_mday ||
	    tm.tm_hour != back.tm_hour || tm.tm_min != back.tm_min ||
	    tm.tm_sec != back.tm_sec)
		return RETENTION_PROFILE;
	*when = t;
	return RETENTION_PROFILE;
}

enum retention_kind
retention_classify(const char *name, time_t *when)
{
	return retention_classify_n(name, strlen(name), when);
}

/* Delete name in the service directory dfd; 0, or -1 after logging. */
static int
retention_unlink(struct retention *r, int dfd, size_t type,
    const char *service, const char *name, off_t size)
{
	if (unlinkat(dfd, name, 0) == -1) {
		if (errno == ENOENT)
			return 0;
		log_warn("unlink %s/%s/%s/%s", r->conf->output_dir,
		    profile_type_name(retention_types[type]), service, name);
		return -1;
	}
	r->files++;
	r->bytes += size;
	return 0;
}

/* Call cb for each <type>/<service> directory, not through symlinks. */
static void
retention_walk(struct retention *r, void (*cb)(struct retention *, size_t,
    int, DIR *, const char *))
{
	struct dirent	*de;
	struct stat	 sb;
	const char	*tname;
	DIR		*td, *sd;
	size_t		 t;
	int		 tfd, sfd;

	for (t = 0; t < RETENTION_NTYPES; t++) {
		tname = profile_type_name(retention_types[t]);
		tfd = openat(r->rfd, tname, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (tfd == -1 || (td = fdopendir(tfd)) == NULL) {
			if (errno != ENOENT && errno != ENOTDIR &&
			    errno != ELOOP)
				log_warn("open %s/%s", r->conf->output_dir,
				    tname);
			if (tfd != -1)
				close(tfd);
			continue;
		}
		while ((de = readdir(td)) != NULL) {
			/* Not a name sink_file_service() makes. */
			if (de->d_name[0] == '.')
				continue;
			sfd = openat(tfd, de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (sfd == -1 || (sd = fdopendir(sfd)) == NULL) {
				if (errno != ENOENT && errno != ENOTDIR &&
				    errno != ELOOP)
					log_warn("open %s/%s/%s",
					    r->conf->output_dir, tname,
					    de->d_name);
				if (sfd != -1)
					close(sfd);
				continue;
			}
			if (r->cache != NULL && fstat(sfd, &sb) == -1) {
				log_warn("stat %s/%s/%s", r->conf->output_dir,
				    tname, de->d_name);
				closedir(sd);
				continue;
			}
			r->dev = r->cache != NULL ? sb.st_dev : 0;
			cb(r, t, tfd, sd, de->d_name);
			closedir(sd);
		}
		closedir(td);
	}
}

/*
 * Age: delete the profiles older than the cutoff and temporary files a
 * crash left; then, if nothing of ours in the directory is newer than
 * the cutoff, the flame graphs too, and the directory if it is empty.
 */
static void
retention_age_cb(struct retention *r, size_t type, int tfd, DIR *sd,
    const char *service)
{
	static const char	*svgs[] = { "latest.svg", "last-hour.svg" };
	struct dirent		*de;
	struct stat		 sb;
	enum retention_kind	 kind;
	uint64_t		 kept = 0, svgbytes = 0;
	time_t			 when;
	size_t			 i;
	int			 sfd = dirfd(sd), live = 0;

	while ((de = readdir(sd)) != NULL) {
		kind = retention_classify(de->d_name, &when);
		if (kind == RETENTION_FOREIGN)
			continue;
		if ((kind == RETENTION_PROFILE ? retention_cache_stat(r->cache,
		    sfd, r->dev, de->d_ino, de->d_name, &sb) : fstatat(sfd,
		    de->d_name, &sb, AT_SYMLINK_NOFOLLOW)) == -1) {
			if (errno != ENOENT)
				log_warn("stat %s/%s/%s/%s",
				    r->conf->output_dir,
				    profile_type_name(retention_types[type]),
				    service, de->d_name);
			continue;
		}
		if (!S_ISREG(sb.st_mode))
			continue;
		if (kind != RETENTION_PROFILE || when == -1)
			when = sb.st_mtime;
		switch (kind) {
		case RETENTION_TEMP:
			if (when < r->now - RETENTION_TEMP_AGE) {
				retention_unlink(r, sfd, type, service,
				    de->d_name, sb.st_size);
				continue;
			}
			break;
		case RETENTION_PROFILE:
			if (r->aged && when < r->cutoff) {
				retention_unlink(r, sfd, type, service,
				    de->d_name, sb.st_size);
				continue;
			}
			break;
		case RETENTION_SVG:
			if (!r->aged || when >= r->cutoff)
				live = 1;
			svgbytes += sb.st_size;
			continue;
		case RETENTION_FOREIGN:
			break;
		}
		live = 1;
		kept += sb.st_size;
	}

	if (live || !r->aged) {
		r->total += kept + svgbytes;
		return;
	}
	for (i = 0; i < sizeof(svgs) / sizeof(svgs[0]); i++)
		if (fstatat(sfd, svgs[i], &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(sb.st_mode))
			retention_unlink(r, sfd, type, service, svgs[i],
			    sb.st_size);
	if (unlinkat(tfd, service, AT_REMOVEDIR) == 0)
		r->dirs++;
	else if (errno == ENOTEMPTY || errno == EEXIST)
		log_debug("retention: %s/%s/%s holds other files: kept",
		    r->conf->output_dir,
		    profile_type_name(retention_types[type]), service);
	else
		log_warn("rmdir %s/%s/%s", r->conf->output_dir,
		    profile_type_name(retention_types[type]), service);
}

/* Oldest first; the name decides between files of one second. */
static int
retention_victim_cmp(const void *va, const void *vb)
{
	const struct retention_victim	*a = va, *b = vb;
	int				 c;

	if (a->when != b->when)
		return a->when < b->when ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if ((c = strcmp(a->service, b->service)) != 0)
		return c;
	return strcmp(a->name, b->name);
}

/* Drop the newest of the heap. */
static void
retention_heap_pop(struct retention *r)
{
	struct retention_victim	 x;
	size_t			 i, c;

	r->heapbytes -= r->heap[0].size;
	free(r->heap[0].service);
	x = r->heap[--r->nheap];
	for (i = 0; (c = 2 * i + 1) < r->nheap; i = c) {
		if (c + 1 < r->nheap &&
		    retention_victim_cmp(&r->heap[c + 1], &r->heap[c]) > 0)
			c++;
		if (retention_victim_cmp(&r->heap[c], &x) <= 0)
			break;
		r->heap[i] = r->heap[c];
	}
	if (r->nheap > 0)
		r->heap[i] = x;
}

/*
 * Size, second walk: keep the oldest profiles that add up to the excess
 * and no more -- whenever the heap without its newest still covers the
 * excess, the newest is not needed.
 */
static void
retention_size_cb(struct retention *r, size_t type, int tfd, DIR *sd,
    const char *service)
{
	struct retention_victim	 x;
	struct dirent		*de;
	struct stat		 sb;
	size_t			 i, len;

	while ((de = readdir(sd)) != NULL) {
		len = strlen(de->d_name);
		if (len >= sizeof(x.name) ||
		    retention_classify(de->d_name, &x.when) !=
		    RETENTION_PROFILE ||
		    retention_cache_stat(r->cache, dirfd(sd), r->dev,
		    de->d_ino, de->d_name, &sb) == -1 || !S_ISREG(sb.st_mode))
			continue;
		if (x.when == -1)
			x.when = sb.st_mtime;
		x.size = sb.st_size;
		x.type = type;
		x.service = (char *)service;
		memcpy(x.name, de->d_name, len + 1);
		/* Newer than all the heap, which covers the excess. */
		if (r->nheap > 0 && r->heapbytes >= r->excess &&
		    retention_victim_cmp(&x, &r->heap[0]) > 0)
			continue;

		if (r->nheap == r->heapcap) {
			r->heapcap = r->heapcap ? r->heapcap * 2 : 64;
			r->heap = xreallocarray(r->heap, r->heapcap,
			    sizeof(*r->heap));
		}
		x.service = xstrdup(service);
		for (i = r->nheap++; i > 0 && retention_victim_cmp(
		    &r->heap[(i - 1) / 2], &x) < 0; i = (i - 1) / 2)
			r->heap[i] = r->heap[(i - 1) / 2];
		r->heap[i] = x;
		r->heapbytes += x.size;
		while (r->nheap > 1 &&
		    r->heapbytes - r->heap[0].size >= r->excess)
			retention_heap_pop(r);
	}
}

static void
retention_size(struct retention *r)
{
	struct retention_victim	*v;
	size_t			 i;
	int			 tfd, sfd;

	r->excess = r->total - r->conf->max_bytes;
	retention_walk(r, retention_size_cb);
	qsort(r->heap, r->nheap, sizeof(*r->heap), retention_victim_cmp);
	for (i = 0; i < r->nheap; i++) {
		v = &r->heap[i];
		if (r->total > (uint64_t)r->conf->max_bytes) {
			tfd = openat(r->rfd,
			    profile_type_name(retention_types[v->type]),
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			sfd = tfd == -1 ? -1 : openat(tfd, v->service,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd != -1 && retention_unlink(r, sfd, v->type,
			    v->service, v->name, v->size) == 0)
				r->total -= v->size;
			if (sfd != -1)
				close(sfd);
			if (tfd != -1)
				close(tfd);
		}
		free(v->service);
	}
	free(r->heap);
	r->heap = NULL;
	r->nheap = r->heapcap = 0;
	if (r->total > (uint64_t)r->conf->max_bytes)
		log_debug("retention: %s holds %llu bytes, more than "
		    "max_bytes, in files it keeps", r->conf->output_dir,
		    (unsigned long long)r->total);
}

void
retention_run(const struct config *conf, time_t now)
{
	retention_sweep(NULL, conf, now);
}

void
retention_sweep(struct retention_cache *cache, const struct config *conf,
    time_t now)
{
	struct retention	 r;

	if (conf->output_dir == NULL || *conf->output_dir == '\0')
		return;
	memset(&r, 0, sizeof(r));
	r.conf = conf;
	r.cache = cache;
	r.now = now;
	r.aged = conf->retention_hours > 0;
	r.cutoff = now - (time_t)conf->retention_hours * 3600;
	r.rfd = open(conf->output_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.rfd == -1) {
		if (errno != ENOENT)
			log_warn("open %s", conf->output_dir);
		return;
	}
	if (cache != NULL)
		retention_cache_begin(cache, now);
	retention_walk(&r, retention_age_cb);
	if (conf->max_bytes > 0 && r.total > (uint64_t)conf->max_bytes)
		retention_size(&r);
	if (cache != NULL)
		retention_cache_end(cache);
	close(r.rfd);
	if (r.files > 0 || r.dirs > 0)
		log_debug("retention: deleted %zu files, %llu bytes, and %zu "
		    "directories under %s", r.files,
		    (unsigned long long)r.bytes, r.dirs, conf->output_dir);
}
