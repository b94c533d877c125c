/*
 * The files sink: <dir>/<type>/<service>/<UTC time>.pb.gz and .folded
 * beside it.  A reader (a shell test, a tool that tails the directory,
 * the retention sweep) must never see half a file, so each one is
 * written under a hidden temporary name in the same directory and
 * renamed into place.  The service name comes from target labels, which
 * come from config or from a process's comm: it is made safe to use as
 * one path component before it goes near the file system.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "profile/folded.h"
#include "util/diskfull.h"
#include "util/lockfile.h"
#include "util/log.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "sink_file.h"
#include "util/xmalloc.h"

#define SINK_FILE_SERVICE_MAX	128	/* bytes kept of a service name */
#define SINK_FILE_SUFFIX_MAX	1000	/* -1 .. -999 for one second */
#define SINK_FILE_LOCK		".ebpfspyd.lock"

static int	 sink_file_exists(const char *, const char *, const char *,
		    int *);
static char	*sink_file_base(const char *, time_t);
static int	 sink_file_pprof_cb(FILE *, const void *);
static int	 sink_file_folded_cb(FILE *, const void *);
static int	 sink_file_replace(const char *, const char *);

/* The output directory's disk when full: one line, not one a write. */
static struct diskfull	 sink_file_disk = { .name = "output" };

/*
 * One path component from a service name: no '/', no control
 * characters, no leading '.' (so neither "." nor ".." nor a hidden
 * name, which is what temporary files look like), never empty.
 */
char *
sink_file_service(const char *s)
{
	char	*d;
	size_t	 i;

	if (s == NULL || *s == '\0')
		return xstrdup("unknown");
	d = xstrndup(s, SINK_FILE_SERVICE_MAX);
	for (i = 0; d[i] != '\0'; i++)
		if (d[i] == '/' || (unsigned char)d[i] < 0x20 || d[i] == 0x7f)
			d[i] = '_';
	if (d[0] == '.')
		d[0] = '_';
	return d;
}

/*
 * mkdir -p, mode 0750 whatever the umask: profiles tell what runs on
 * the machine and its source's names, not for every user.  Logs the
 * component that failed.
 */
int
sink_file_mkdirs(const char *path)
{
	struct stat	 sb;
	char		*p, *s;
	int		 last;

	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return 0;
	p = xstrdup(path);
	for (s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		last = *s == '\0';
		*s = '\0';
		if (mkdir(p, 0750) == -1) {
			if (errno != EEXIST) {
				diskfull_warn(&sink_file_disk, "mkdir %s", p);
				goto fail;
			}
			if (stat(p, &sb) == -1) {
				log_warn("stat %s", p);
				goto fail;
			}
			if (!S_ISDIR(sb.st_mode)) {
				errno = ENOTDIR;
				log_warn("mkdir %s", p);
				goto fail;
			}
		}
		if (last)
			break;
		*s = '/';
		/* Skip doubled slashes. */
		while (s[1] == '/')
			s++;
	}
	free(p);
	return 0;
fail:
	free(p);
	return -1;
}

/*
 * One daemon an output directory: two would give their files the same
 * names and sweep each other's.  The spool has a lock of its own, in a
 * file of another name: the two may be one directory.
 */
int
sink_file_lock(const char *dir, int held)
{
	int	 dfd, fd, saved;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	/* flock() conflicts with our own lock on another open file. */
	if (lockfile_is(held, dfd, SINK_FILE_LOCK))
		fd = held;
	else
		fd = lockfile_open(dfd, SINK_FILE_LOCK);
	saved = errno;
	close(dfd);
	errno = saved;
	return fd;
}

/* Whether dir/base.ext exists: 0 with *exists set, or -1 after logging. */
static int
sink_file_exists(const char *dir, const char *base, const char *ext,
    int *exists)
{
	struct stat	 sb;
	char		*path;

	xasprintf(&path, "%s/%s%s", dir, base, ext);
	*exists = 1;
	if (lstat(path, &sb) == -1) {
		if (errno != ENOENT) {
			log_warn("stat %s", path);
			free(path);
			return -1;
		}
		*exists = 0;
	}
	free(path);
	return 0;
}

/*
 * The base name for this round: the UTC time, with -1, -2 ... when a
 * file of that name is there already (two rounds in one second, or a
 * clock stepped back).  Both extensions are checked so that the .pb.gz
 * and .folded of one round always share their name.
 */
static char *
sink_file_base(const char *dir, time_t when)
{
	struct tm	 tm;
	char		 stamp[32], *base;
	int		 i, e1, e2;

	if (gmtime_r(&when, &tm) == NULL ||
	    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0) {
		log_warnx("%s: time %lld out of range", dir, (long long)when);
		return NULL;
	}
	for (i = 0; i < SINK_FILE_SUFFIX_MAX; i++) {
		if (i == 0)
			base = xstrdup(stamp);
		else
			xasprintf(&base, "%s-%d", stamp, i);
		if (sink_file_exists(dir, base, ".pb.gz", &e1) == -1 ||
		    sink_file_exists(dir, base, ".folded", &e2) == -1) {
			free(base);
			return NULL;
		}
		if (!e1 && !e2)
			return base;
		free(base);
	}
	log_warnx("%s: too many files named %s", dir, stamp);
	return NULL;
}

/*
 * Put tmp in place of path.  Over an existing regular file, the two are
 * exchanged and the old one then unlinked: a rename over a file makes
 * ext4 (auto_da_alloc) write the new file's data out there and then,
 * the daemon waiting, for each of the flame graphs every round -- data
 * that the next round replaces, which, exchanged, never needs to reach
 * the disk.  The name shows the old file, then the new, as with rename.
 */
static int
sink_file_replace(const char *tmp, const char *path)
{
	struct stat	 sb;

	if (lstat(path, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == -1)
		return rename(tmp, path);
	/* tmp is the old file now; a crash leaves it to retention. */
	if (unlink(tmp) == -1)
		log_warn("unlink %s", tmp);
	return 0;
}

/*
 * Write dir/name through fill_cb: to a hidden temporary file first, then
 * renamed into place, so the name only ever shows a complete file.
 */
int
sink_file_atomic(const char *dir, const char *name,
    int (*fill_cb)(FILE *, const void *), const void *arg, struct stat *sbp)
{
	FILE	*f;
	char	*tmp, *path;
	int	 fd, rv = -1;

	xasprintf(&tmp, "%s/.%s.XXXXXX", dir, name);
	xasprintf(&path, "%s/%s", dir, name);
	if ((fd = mkstemp(tmp)) == -1) {
		diskfull_warn(&sink_file_disk, "create %s", tmp);
		goto out;
	}
	/*
	 * mkstemp() makes it 0600; 0640 lets a group the administrator
	 * gives the directory read it, as the unit's UMask=0027 would.
	 */
	if (fchmod(fd, 0640) == -1) {
		diskfull_warn(&sink_file_disk, "chmod %s", tmp);
		close(fd);
		goto fail;
	}
	if ((f = fdopen(fd, "w")) == NULL) {
		diskfull_warn(&sink_file_disk, "fdopen %s", tmp);
		close(fd);
		goto fail;
	}
	if (fill_cb(f, arg) == -1 || fflush(f) == EOF) {
		diskfull_warn(&sink_file_disk, "write %s", tmp);
		fclose(f);
		goto fail;
	}
	/* What was written: a rename keeps the inode, size and mtime. */
	if (sbp != NULL && fstat(fd, sbp) == -1) {
		diskfull_warn(&sink_file_disk, "stat %s", tmp);
		fclose(f);
		goto fail;
	}
	if (fclose(f) == EOF) {
		diskfull_warn(&sink_file_disk, "write %s", tmp);
		goto fail;
	}
	if (sink_file_replace(tmp, path) == -1) {
		diskfull_warn(&sink_file_disk, "rename %s to %s", tmp,
		    path);
		goto fail;
	}
	diskfull_ok(&sink_file_disk);
	rv = 0;
	goto out;
fail:
	if (unlink(tmp) == -1)
		log_warn("unlink %s", tmp);
out:
	free(path);
	free(tmp);
	return rv;
}

static int
sink_file_pprof_cb(FILE *f, const void *arg)
{
	const struct pprof_buf	*b = arg;

	if (fwrite(b->buf, 1, b->len, f) != b->len || fflush(f) == EOF)
		return -1;
	return 0;
}

static int
sink_file_folded_cb(FILE *f, const void *arg)
{
	return folded_write(arg, f);
}

int
sink_file_write(const struct config *conf, const struct profile *p,
    time_t when)
{
	return sink_file_write_folded(conf, p, when, NULL, NULL);
}

/*
 * sink_file_write(), telling the path of the .folded file written and
 * its stat, or NULL when none was.
 */
int
sink_file_write_folded(const struct config *conf, const struct profile *p,
    time_t when, char **foldedp, struct stat *sbp)
{
	struct pprof_buf	 enc;
	int			 rv;

	memset(&enc, 0, sizeof(enc));
	if (conf->pprof)
		(void)pprof_encode(p, &enc.buf, &enc.len);
	rv = sink_file_write_enc(conf, p, &enc, when, foldedp, sbp);
	free(enc.buf);
	return rv;
}

int
sink_file_write_enc(const struct config *conf, const struct profile *p,
    const struct pprof_buf *enc, time_t when, char **foldedp,
    struct stat *sbp)
{
	char			*service, *dir, *base = NULL, *name;
	int			 rv = -1;

	if (foldedp != NULL)
		*foldedp = NULL;
	if (!conf->pprof && !conf->folded)
		return 0;
	if (conf->output_dir == NULL || *conf->output_dir == '\0') {
		log_warnx("output_dir is not set");
		return -1;
	}

	service = sink_file_service(profile_label_get(p, "service_name"));
	xasprintf(&dir, "%s/%s/%s", conf->output_dir,
	    profile_type_name(profile_type(p)), service);
	if (sink_file_mkdirs(dir) == -1 ||
	    (base = sink_file_base(dir, when)) == NULL)
		goto out;

	rv = 0;
	if (conf->pprof) {
		if (enc->buf == NULL) {
			log_warnx("%s/%s.pb.gz: pprof encoding failed", dir,
			    base);
			rv = -1;
		} else {
			xasprintf(&name, "%s.pb.gz", base);
			if (sink_file_atomic(dir, name, sink_file_pprof_cb,
			    enc, NULL) == -1)
				rv = -1;
			free(name);
		}
	}
	if (conf->folded) {
		xasprintf(&name, "%s.folded", base);
		if (sink_file_atomic(dir, name, sink_file_folded_cb, p,
		    sbp) == -1)
			rv = -1;
		else if (foldedp != NULL)
			xasprintf(foldedp, "%s/%s", dir, name);
		free(name);
	}
out:
	free(base);
	free(dir);
	free(service);
	return rv;
}

uint64_t
sink_file_disk_full_writes(void)
{
	return sink_file_disk.failed;
}

int
sink_file_disk_is_full(void)
{
	return sink_file_disk.full;
}
