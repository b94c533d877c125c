/*
 * The spool: requests that could not be delivered wait on disk, so that
 * an outage of the server -- or a restart of the daemon during one --
 * loses nothing until the spool is full.  The directory is ours, but
 * what is in it is read back as untrusted input: names are parsed
 * strictly, sizes are checked against the file's and every body against
 * its checksum, and files are opened relative to the directory without
 * following links.  Whatever else bears one of our names -- a link, a
 * directory, a FIFO -- is removed without being followed or opened (a
 * directory that is not empty is moved out of the way, never walked);
 * a name beyond SPOOL_SEQ_MAX is ignored, so that a planted
 * ffffffffffffffff.req cannot wrap the sequence; a request above the
 * body limit is dropped before anything is allocated for it.  The
 * files' format is spool_file.c's.
 */
#include <sys/stat.h>
#include <sys/uio.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "util/lockfile.h"
#include "util/log.h"
#include "spool.h"
#include "spool_file.h"
#include "util/xmalloc.h"

#define SPOOL_SEQ_MAX		(1ULL << 48)	/* 9 years at 1e6 a second */
#define SPOOL_LOCK		".lock"

struct spool_ent {
	uint64_t	 seq;
	uint64_t	 size;		/* of the file */
	uint32_t	 nprofiles;
};

struct spool {
	char			*dir;
	int			 dfd;
	int			 lfd;		/* SPOOL_LOCK, flock()ed */
	uint64_t		 max;
	uint64_t		 body_max;
	uint64_t		 held;
	struct spool_ent	*v;
	size_t			 n, cap;
	uint64_t		 bytes;
	uint64_t		 dropped_files;
	uint64_t		 dropped_profiles;
	uint64_t		 corrupt;
	int			 warned;	/* said it drops, this outage */
};

static size_t
spool_find(const struct spool *sp, uint64_t seq)
{
	size_t	 lo = 0, hi = sp->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sp->v[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
spool_insert(struct spool *sp, const struct spool_ent *e)
{
	size_t	 i;

	if (sp->n == sp->cap) {
		sp->cap = sp->cap == 0 ? 64 : sp->cap * 2;
		sp->v = xreallocarray(sp->v, sp->cap, sizeof(*sp->v));
	}
	i = spool_find(sp, e->seq);
	memmove(&sp->v[i + 1], &sp->v[i], (sp->n - i) * sizeof(*sp->v));
	sp->v[i] = *e;
	sp->n++;
	sp->bytes += e->size;
}

/*
 * Remove an entry of the directory, whatever it is, without following
 * it: a link goes, not what it points to.  A directory that is not
 * empty is renamed out of our names (".bad.<name>"), never walked.
 * 0 when the name is free.
 */
static int
spool_discard(struct spool *sp, const char *name)
{
	char	 bad[64];

	if (unlinkat(sp->dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno == EISDIR) {
		if (unlinkat(sp->dfd, name, AT_REMOVEDIR) == 0)
			return 0;
		snprintf(bad, sizeof(bad), ".bad.%s", name);
		if (renameat(sp->dfd, name, sp->dfd, bad) == 0) {
			log_warnx("spool: %s/%s: a directory; moved to %s",
			    sp->dir, name, bad);
			return 0;
		}
	}
	log_warn("spool: remove %s/%s", sp->dir, name);
	return -1;
}

static void
spool_unlink_at(struct spool *sp, size_t i)
{
	char	 name[32];

	spool_file_name(name, sizeof(name), sp->v[i].seq, 0);
	(void)spool_discard(sp, name);
	sp->bytes -= sp->v[i].size;
	memmove(&sp->v[i], &sp->v[i + 1], (sp->n - i - 1) * sizeof(*sp->v));
	sp->n--;
	if (sp->n == 0)
		sp->warned = 0;
}

static void
spool_drop_count(struct spool *sp, uint64_t seq, uint32_t nprofiles)
{
	sp->dropped_files++;
	sp->dropped_profiles += nprofiles;
	if (!sp->warned) {
		log_warnx("spool %s: full (%" PRIu64 " bytes): dropping the "
		    "oldest requests", sp->dir, sp->max);
		sp->warned = 1;
	} else
		log_debug("spool %s: dropped request %016" PRIx64, sp->dir,
		    seq);
}

/*
 * Keep the newest requests that fit in the limit, counting a new one
 * (seq new_seq, size extra; new_seq 0: none) among them: from the first
 * one, newest to oldest, that does not fit, it and everything older go
 * -- but the held one, which is being sent.  Returns 1 if the new
 * request is among those to drop.
 */
static int
spool_trim(struct spool *sp, uint64_t new_seq, uint64_t extra)
{
	uint64_t	 sum = 0, size, seq;
	size_t		 total, k, ins, cut, i;
	int		 is_new, drop_new = 0;

	ins = new_seq != 0 ? spool_find(sp, new_seq) : sp->n;
	total = sp->n + (new_seq != 0);
	cut = total;			/* none */
	/* The held one stays whatever happens: it takes its room first. */
	i = spool_find(sp, sp->held);
	if (sp->held != 0 && i < sp->n && sp->v[i].seq == sp->held)
		sum = sp->v[i].size;
	for (k = total; k > 0; k--) {
		is_new = new_seq != 0 && k - 1 == ins;
		i = new_seq != 0 && k - 1 > ins ? k - 2 : k - 1;
		size = is_new ? extra : sp->v[i].size;
		seq = is_new ? new_seq : sp->v[i].seq;
		if (seq == sp->held)
			continue;
		if (sum + size > sp->max) {
			cut = k - 1;
			break;
		}
		sum += size;
	}
	if (cut == total)
		return 0;
	if (new_seq != 0 && ins <= cut)
		drop_new = 1;
	/* Real entries at indices 0 .. cut, less one past the new one. */
	cut = new_seq != 0 && ins <= cut ? cut : cut + 1;
	i = 0;
	while (i < cut && i < sp->n) {
		if (sp->v[i].seq == sp->held) {
			i++;
			continue;
		}
		spool_drop_count(sp, sp->v[i].seq, sp->v[i].nprofiles);
		spool_unlink_at(sp, i);
		cut--;
	}
	return drop_new;
}

static void
spool_scan(struct spool *sp)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 sb;
	struct spool_ent e;
	unsigned char	 h[SPOOL_HDR];
	uint64_t	 seq, blen;
	uint32_t	 tlen;
	ssize_t		 r;
	int		 fd, dfd2;

	if ((dfd2 = dup(sp->dfd)) == -1 || (d = fdopendir(dfd2)) == NULL) {
		log_warn("spool: read %s", sp->dir);
		if (dfd2 != -1)
			close(dfd2);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && strlen(de->d_name) == 21 &&
		    strcmp(de->d_name + 17, ".tmp") == 0) {
			/* Half written when the daemon stopped. */
			if (spool_discard(sp, de->d_name) == 0)
				log_info("spool: removed partial %s/%s",
				    sp->dir, de->d_name);
			continue;
		}
		if (spool_file_parse_name(de->d_name, &seq) == -1 || seq == 0)
			continue;
		if (seq > SPOOL_SEQ_MAX) {
			log_warnx("spool: %s/%s: not a sequence number of "
			    "ours; ignored", sp->dir, de->d_name);
			continue;
		}
		/* Looked at, not opened: a FIFO or a link is no request. */
		if (fstatat(sp->dfd, de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) == -1) {
			log_warn("spool: stat %s/%s", sp->dir, de->d_name);
			continue;
		}
		fd = -1;
		if (S_ISREG(sb.st_mode) && (fd = openat(sp->dfd, de->d_name,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)) == -1 &&
		    errno != ELOOP) {
			log_warn("spool: open %s/%s", sp->dir, de->d_name);
			continue;
		}
		if (fd == -1 || fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
		    (uint64_t)sb.st_size < SPOOL_HDR ||
		    (r = pread(fd, h, sizeof(h), 0)) != (ssize_t)sizeof(h) ||
		    spool_file_check_header(h, sb.st_size, &tlen, &blen) == -1) {
			if (fd != -1)
				close(fd);
			log_warnx("spool: %s/%s: not a spooled request; "
			    "removed", sp->dir, de->d_name);
			sp->corrupt++;
			(void)spool_discard(sp, de->d_name);
			continue;
		}
		close(fd);
		e.seq = seq;
		e.size = sb.st_size;
		e.nprofiles = spool_file_get32(h + 12);
		spool_insert(sp, &e);
	}
	closedir(d);
}

struct spool *
spool_open(const char *dir, uint64_t max)
{
	struct spool	*sp;
	int		 dfd, lfd;

	if (dir == NULL || *dir == '\0') {
		log_warnx("spool: no directory");
		return NULL;
	}
	if (spool_file_mkdirs(dir) == -1) {
		log_warn("spool: create %s", dir);
		return NULL;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		log_warn("spool: open %s", dir);
		return NULL;
	}
	/*
	 * One daemon a spool: two would replay the same requests and
	 * remove each other's.  The lock lives as long as the spool is
	 * open (flock, on a file of its own: the directory's fd is dup'ed
	 * for scans).
	 */
	if ((lfd = lockfile_open(dfd, SPOOL_LOCK)) == -1) {
		if (errno == EWOULDBLOCK)
			log_warnx("spool %s: in use by another ebpfspyd", dir);
		else
			log_warn("spool: lock %s/%s", dir, SPOOL_LOCK);
		close(dfd);
		return NULL;
	}
	sp = xcalloc(1, sizeof(*sp));
	sp->dir = xstrdup(dir);
	sp->dfd = dfd;
	sp->lfd = lfd;
	sp->max = max;
	sp->body_max = SPOOL_BODY_MAX;
	spool_scan(sp);
	spool_trim(sp, 0, 0);
	if (sp->n > 0)
		log_info("spool %s: %zu requests, %" PRIu64 " bytes to replay",
		    sp->dir, sp->n, sp->bytes);
	return sp;
}

void
spool_close(struct spool *sp)
{
	if (sp == NULL)
		return;
	close(sp->lfd);
	close(sp->dfd);
	free(sp->v);
	free(sp->dir);
	free(sp);
}

const char *
spool_dir(const struct spool *sp)
{
	return sp->dir;
}

void
spool_set_max(struct spool *sp, uint64_t max)
{
	sp->max = max;
	spool_trim(sp, 0, 0);
}

void
spool_set_body_max(struct spool *sp, uint64_t max)
{
	sp->body_max = max < SPOOL_BODY_MAX ? max : SPOOL_BODY_MAX;
}

int
spool_put(struct spool *sp, uint64_t seq, const char *target,
    const void *body, size_t len, uint32_t nprofiles, int64_t time)
{
	struct spool_ent e;
	struct iovec	 iov[3];
	unsigned char	 h[SPOOL_HDR];
	char		 tmp[32], name[32];
	size_t		 tlen = strlen(target), i;
	uLong		 crc;
	int		 fd;

	if (seq == 0 || seq > SPOOL_SEQ_MAX || tlen == 0 ||
	    tlen > SPOOL_TARGET_MAX ||
	    len > SPOOL_BODY_MAX) {
		log_warnx("spool: request %016" PRIx64 " cannot be spooled",
		    seq);
		return -1;
	}
	i = spool_find(sp, seq);
	if (i < sp->n && sp->v[i].seq == seq) {
		log_warnx("spool: request %016" PRIx64 " already spooled",
		    seq);
		return 0;
	}
	e.seq = seq;
	e.size = SPOOL_HDR + tlen + len;
	e.nprofiles = nprofiles;
	/* Too big to ever fit: it goes alone, the others stay. */
	if (e.size > sp->max || spool_trim(sp, seq, e.size)) {
		spool_drop_count(sp, seq, nprofiles);
		return 0;
	}

	crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, (const Bytef *)target, tlen);
	/* A NULL buffer would restart the crc; len fits a uInt. */
	if (len > 0)
		crc = crc32(crc, body, len);
	memcpy(h, SPOOL_MAGIC, 8);
	spool_file_le32(h + 8, tlen);
	spool_file_le32(h + 12, nprofiles);
	spool_file_le32(h + 16, (uint32_t)len);
	spool_file_le32(h + 20, (uint32_t)((uint64_t)len >> 32));
	spool_file_le32(h + 24, (uint32_t)crc);
	spool_file_le32(h + 28, time > 0 && time <= UINT32_MAX ? (uint32_t)time : 0);

	spool_file_name(tmp, sizeof(tmp), seq, 1);
	spool_file_name(name, sizeof(name), seq, 0);
	(void)unlinkat(sp->dfd, tmp, 0);
	fd = openat(sp->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1) {
		log_warn("spool: create %s/%s", sp->dir, tmp);
		return -1;
	}
	iov[0].iov_base = h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = (void *)target;
	iov[1].iov_len = tlen;
	iov[2].iov_base = (void *)body;
	iov[2].iov_len = len;
	if (spool_file_write_all(fd, iov, len > 0 ? 3 : 2) == -1) {
		log_warn("spool: write %s/%s", sp->dir, tmp);
		close(fd);
		(void)unlinkat(sp->dfd, tmp, 0);
		return -1;
	}
	/*
	 * A spooled request is what a restart replays: on disk before it
	 * has its name, or a power cut can leave an empty file renamed
	 * over nothing (ext4 and xfs keep the rename, not the data).  The
	 * directory is synced after, so the name survives too.
	 */
	if (fsync(fd) == -1) {
		log_warn("spool: sync %s/%s", sp->dir, tmp);
		close(fd);
		(void)unlinkat(sp->dfd, tmp, 0);
		return -1;
	}
	if (close(fd) == -1) {
		log_warn("spool: write %s/%s", sp->dir, tmp);
		(void)unlinkat(sp->dfd, tmp, 0);
		return -1;
	}
	if (renameat(sp->dfd, tmp, sp->dfd, name) == -1) {
		log_warn("spool: rename %s/%s", sp->dir, tmp);
		(void)unlinkat(sp->dfd, tmp, 0);
		return -1;
	}
	if (fsync(sp->dfd) == -1)
		log_warn("spool: sync %s", sp->dir);
	spool_insert(sp, &e);
	return 0;
}

int
spool_oldest(const struct spool *sp, uint64_t *seq)
{
	if (sp == NULL || sp->n == 0)
		return -1;
	*seq = sp->v[0].seq;
	return 0;
}

uint64_t
spool_last_seq(const struct spool *sp)
{
	if (sp == NULL || sp->n == 0)
		return 0;
	return sp->v[sp->n - 1].seq;
}

/* A file that does not hold what its header says: remove it. */
static void
spool_bad(struct spool *sp, size_t i, const char *why)
{
	char	 name[32];

	spool_file_name(name, sizeof(name), sp->v[i].seq, 0);
	log_warnx("spool: %s/%s: %s; removed", sp->dir, name, why);
	sp->corrupt++;
	sp->dropped_profiles += sp->v[i].nprofiles;
	spool_unlink_at(sp, i);
}

int
spool_read(struct spool *sp, uint64_t seq, char **target,
    unsigned char **body, size_t *len, uint32_t *nprofiles, int64_t *time)
{
	struct stat	 sb;
	unsigned char	 h[SPOOL_HDR];
	char		 name[32], *t = NULL;
	unsigned char	*b = NULL;
	const char	*why = NULL;
	uint64_t	 blen;
	uint32_t	 tlen;
	size_t		 i;
	uLong		 crc;
	int		 fd;

	*target = NULL;
	*body = NULL;
	*len = 0;
	i = spool_find(sp, seq);
	if (i == sp->n || sp->v[i].seq != seq)
		return -1;
	spool_file_name(name, sizeof(name), seq, 0);
	fd = openat(sp->dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	if (fd == -1) {
		if (errno == ENOENT || errno == ELOOP) {
			spool_bad(sp, i, errno == ELOOP ? "a symbolic link" :
			    "vanished");
			return -1;
		}
		log_warn("spool: open %s/%s", sp->dir, name);
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode))
		why = "not a regular file";
	else if (spool_file_pread_all(fd, h, sizeof(h), 0) == -1 ||
	    spool_file_check_header(h, sb.st_size, &tlen, &blen) == -1)
		why = "truncated or not a spooled request";
	else if (blen > sp->body_max || (uint64_t)sb.st_size > sp->max) {
		/* Checked before anything is allocated for it. */
		close(fd);
		log_warnx("spool: %s/%s: %" PRIu64 " bytes, above the "
		    "limit; dropped", sp->dir, name, (uint64_t)sb.st_size);
		sp->dropped_files++;
		sp->dropped_profiles += sp->v[i].nprofiles;
		spool_unlink_at(sp, i);
		return -1;
	} else {
		t = xmalloc(tlen + 1);
		b = xmalloc(blen > 0 ? blen : 1);
		if (spool_file_pread_all(fd, t, tlen, SPOOL_HDR) == -1 ||
		    spool_file_pread_all(fd, b, blen, SPOOL_HDR + tlen) == -1)
			why = "truncated";
	}
	close(fd);
	if (why == NULL) {
		crc = crc32(0L, Z_NULL, 0);
		crc = crc32(crc, (const Bytef *)t, tlen);
		crc = crc32(crc, b, blen);
		if ((uint32_t)crc != spool_file_get32(h + 24) ||
		    memchr(t, '\0', tlen) != NULL)
			why = "checksum mismatch";
	}
	if (why != NULL) {
		free(t);
		free(b);
		spool_bad(sp, i, why);
		return -1;
	}
	t[tlen] = '\0';
	*target = t;
	*body = b;
	*len = blen;
	*nprofiles = spool_file_get32(h + 12);
	/* A version 1 file has no time: it was written after its profiles. */
	*time = spool_file_get32(h + 28);
	if (*time == 0)
		*time = sb.st_mtime;
	return 0;
}

void
spool_remove(struct spool *sp, uint64_t seq)
{
	size_t	 i;

	if (sp == NULL)
		return;
	i = spool_find(sp, seq);
	if (i < sp->n && sp->v[i].seq == seq)
		spool_unlink_at(sp, i);
	if (sp->held == seq)
		sp->held = 0;
}

void
spool_hold(struct spool *sp, uint64_t seq)
{
	if (sp != NULL)
		sp->held = seq;
}

void
spool_stats(const struct spool *sp, struct spool_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (sp == NULL)
		return;
	st->files = sp->n;
	st->bytes = sp->bytes;
	st->dropped_files = sp->dropped_files;
	st->dropped_profiles = sp->dropped_profiles;
	st->corrupt = sp->corrupt;
}
