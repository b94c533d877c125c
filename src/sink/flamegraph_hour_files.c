/*
 * The files of a directory's hour for last-hour.svg: listed, compared
 * with those the sum holds, read into it or taken off it again.  The
 * sum itself, and the directories, are flamegraph_hour.c's.
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

#define FLAMEGRAPH_HOUR_FILES	8192		/* folded files read */

/* Newest first, so that a cut by the byte budget drops the oldest. */
int
flamegraph_hour_cmp(const void *va, const void *vb)
{
	const struct flamegraph_hour_file	*a = va, *b = vb;

	if (a->when != b->when)
		return a->when > b->when ? -1 : 1;
	return strcmp(b->name, a->name);
}

/* Take what a file added off the sum, and forget it. */
void
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
void
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

/*
 * The profiles of the hour in a directory, newest first: of the whole
 * minutes (buckets) in the hour up to now, and from start on.  Minutes
 * leave the hour whole: the files are those of the last 59 to 60
 * minutes.
 */
struct flamegraph_hour_file *
flamegraph_hour_list(const char *dir, DIR *d, time_t now, time_t start,
    size_t *np)
{
	struct flamegraph_hour_file	*files = NULL;
	struct dirent			*de;
	struct tm			 tm;
	size_t				 nfiles = 0, len;
	time_t				 when, from = now - FLAMEGRAPH_HOUR;
	char				 old[32] = "";

	if (start < from - from % FLAMEGRAPH_HOUR_BUCKET +
	    FLAMEGRAPH_HOUR_BUCKET)
		start = from - from % FLAMEGRAPH_HOUR_BUCKET +
		    FLAMEGRAPH_HOUR_BUCKET;
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
		    when < start)
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
	/* qsort(NULL, 0, ...) is undefined (UBSan stops there). */
	if (nfiles > 0)
		qsort(files, nfiles, sizeof(*files), flamegraph_hour_cmp);
	*np = nfiles;
	return files;
}

/*
 * A file listed that is the one the sink has just written from a
 * profile (the same inode, size and mtime) takes its stacks from the
 * profile, if the budget holds the whole file: 1, else 0 to read it.
 */
int
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
int
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
