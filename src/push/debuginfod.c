/*
 * debuginfod: the debug file of a stripped file, fetched by its build id
 * from the servers of [symbols] debuginfod_urls (else $DEBUGINFOD_URLS)
 * through elfutils' libdebuginfod, without blocking the loop.
 *
 * libdebuginfod's calls block for as long as a transfer takes.  So each
 * fetch runs in a child process forked for it: the child calls
 * debuginfod_find_debuginfo with the bounds in its environment
 * (DEBUGINFOD_MAXSIZE, DEBUGINFOD_MAXTIME, DEBUGINFOD_TIMEOUT) and the
 * cache in debuginfod_cache, writes one result line to a pipe and
 * exits; the loop watches the pipe, and kills a child over its time.
 * No thread, at most DEBUGINFOD_CHILDREN at once.
 *
 * What a server sent is untrusted: it must be an ELF file of the build
 * id asked for, else it is deleted and counted as bad.  A good one is
 * moved to CACHE/.build-id/xx/yyyy.debug, where the symbol cache looks
 * (symcache.c adds the directory to debug_dirs), and the tables read
 * without it are read again.  The directory is kept under
 * debuginfod_cache_bytes, the least recently fetched files going first.
 * A build id is asked for once; one that failed is asked again only
 * after DEBUGINFOD_RETRY_SECONDS (libdebuginfod remembers misses too).
 * The cache is trimmed after each fetch, successful or not.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>
#include <ev.h>

#include "config/config.h"
#include "debuginfod.h"
#include "elf/elf.h"
#include "sym/resolve.h"
#include "sym/symcache.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define DEBUGINFOD_CHILDREN		2
#define DEBUGINFOD_RETRY_SECONDS	600
#define DEBUGINFOD_ASKED_MAX		4096
#define DEBUGINFOD_POLL_SECONDS		1.0

struct debuginfod_child {
	pid_t				 pid;
	int				 fd;
	ev_io				 io;
	ev_timer			 timer;
	struct symcache_build_id	 id;
	char				 buf[PATH_MAX + 32];
	size_t				 len;
	struct debuginfod		*d;
};

struct debuginfod_asked {
	struct symcache_build_id	 id;
	time_t				 when;
	int				 ok;
};

struct debuginfod {
	struct ev_loop			*loop;
	struct resolve			*resolve;
	ev_timer			 poll;
	char				*urls;		/* NULL: off */
	char				*dir;
	long long			 max_bytes, cache_bytes, timeout;
	struct debuginfod_child		 kids[DEBUGINFOD_CHILDREN];
	struct debuginfod_asked		*asked;
	size_t				 nasked;
	struct symcache_build_id	 queue[64];
	size_t				 nqueue;
	struct debuginfod_stats		 st;
};

static void	debuginfod_poll_cb(struct ev_loop *, ev_timer *, int);

static void
debuginfod_hex(const struct symcache_build_id *id, char *hex)
{
	size_t	 i;

	for (i = 0; i < id->len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id->id[i]);
}

struct debuginfod *
debuginfod_create(struct ev_loop *loop, struct resolve *r,
    const struct config *conf)
{
	struct debuginfod	*d;

	d = xcalloc(1, sizeof(*d));
	d->loop = loop;
	d->resolve = r;
	d->asked = xcalloc(DEBUGINFOD_ASKED_MAX, sizeof(*d->asked));
	ev_timer_init(&d->poll, debuginfod_poll_cb, DEBUGINFOD_POLL_SECONDS,
	    DEBUGINFOD_POLL_SECONDS);
	d->poll.data = d;
	debuginfod_configure(d, conf);
	return d;
}

void
debuginfod_configure(struct debuginfod *d, const struct config *conf)
{
	const char	*urls = conf->debuginfod_urls;

	if (d == NULL)
		return;
	free(d->urls);
	free(d->dir);
	if (urls == NULL || *urls == '\0')
		urls = getenv("DEBUGINFOD_URLS");
	d->dir = symcache_fetch_dir(conf);
	d->urls = d->dir != NULL && urls != NULL ? xstrdup(urls) : NULL;
	d->max_bytes = conf->debuginfod_max_bytes;
	d->cache_bytes = conf->debuginfod_cache_bytes;
	d->timeout = conf->debuginfod_timeout;
	if (d->urls != NULL)
		ev_timer_start(d->loop, &d->poll);
	else
		ev_timer_stop(d->loop, &d->poll);
}

/* Whether id was asked for lately; else it is noted as asked now. */
static int
debuginfod_asked(struct debuginfod *d, const struct symcache_build_id *id)
{
	struct debuginfod_asked	*a, *oldest = NULL;
	time_t			 now = time(NULL);
	size_t			 i;

	for (i = 0; i < d->nasked; i++) {
		a = &d->asked[i];
		if (a->id.len == id->len &&
		    memcmp(a->id.id, id->id, id->len) == 0) {
			if (a->ok || now - a->when < DEBUGINFOD_RETRY_SECONDS)
				return 1;
			a->when = now;
			return 0;
		}
		if (oldest == NULL || a->when < oldest->when)
			oldest = a;
	}
	a = d->nasked < DEBUGINFOD_ASKED_MAX ? &d->asked[d->nasked++] : oldest;
	a->id = *id;
	a->when = now;
	a->ok = 0;
	return 0;
}

static void
debuginfod_asked_ok(struct debuginfod *d, const struct symcache_build_id *id)
{
	size_t	 i;

	for (i = 0; i < d->nasked; i++) {
		if (d->asked[i].id.len == id->len &&
		    memcmp(d->asked[i].id.id, id->id, id->len) == 0)
			d->asked[i].ok = 1;
	}
}

/* In the child: the fetch, its result as one line on fd, and _exit. */
static void __attribute__((noreturn))
debuginfod_child_run(struct debuginfod *d, const struct symcache_build_id *id,
    int fd)
{
	debuginfod_client	*cl;
	char			 v[32], *path = NULL;
	char			 line[PATH_MAX + 32];
	int			 r, n;

	setenv("DEBUGINFOD_URLS", d->urls, 1);
	setenv("DEBUGINFOD_CACHE_PATH", d->dir, 1);
	snprintf(v, sizeof(v), "%lld", d->max_bytes);
	setenv("DEBUGINFOD_MAXSIZE", v, 1);
	snprintf(v, sizeof(v), "%lld", d->timeout);
	setenv("DEBUGINFOD_MAXTIME", v, 1);
	setenv("DEBUGINFOD_TIMEOUT", v, 1);
	unsetenv("DEBUGINFOD_PROGRESS");
	unsetenv("DEBUGINFOD_VERBOSE");
	if ((cl = debuginfod_begin()) == NULL)
		r = -ENOMEM;
	else {
		r = debuginfod_find_debuginfo(cl, id->id, (int)id->len, &path);
		debuginfod_end(cl);
	}
	if (r >= 0)
		n = snprintf(line, sizeof(line), "0 %s\n", path);
	else
		n = snprintf(line, sizeof(line), "%d\n", -r);
	if (n > 0 && n < (int)sizeof(line) && write(fd, line, n) != n)
		_exit(1);
	_exit(0);
}

/*
 * A file a server sent: an ELF file of this build id, moved into the
 * build-id tree.  0, or -1 (deleted).
 */
static int
debuginfod_keep(struct debuginfod *d, const struct symcache_build_id *id,
    const char *path)
{
	struct elf_file	*ef;
	uint8_t		 got[ELF_FILE_BUILD_ID_MAX];
	char		 hex[2 * ELF_FILE_BUILD_ID_MAX + 1], dir[PATH_MAX];
	char		 dst[2 * PATH_MAX];
	size_t		 len = 0;
	int		 fd, good = 0;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) != -1 &&
	    (ef = elf_file_open(fd)) != NULL) {
		good = elf_file_build_id(ef, got, sizeof(got), &len) == 0 &&
		    len == id->len && memcmp(got, id->id, len) == 0 &&
		    elf_file_has_symtab(ef);
		elf_file_close(ef);
	}
	if (fd != -1)
		close(fd);
	debuginfod_hex(id, hex);
	snprintf(dir, sizeof(dir), "%s/.build-id", d->dir);
	mkdir(dir, 0750);
	snprintf(dir, sizeof(dir), "%s/.build-id/%.2s", d->dir, hex);
	mkdir(dir, 0750);
	snprintf(dst, sizeof(dst), "%s/%s.debug", dir, hex + 2);
	if (!good || rename(path, dst) == -1) {
		unlink(path);
		return -1;
	}
	/* Its time is the fetch's: the cache's oldest go first. */
	utimensat(AT_FDCWD, dst, NULL, 0);
	return 0;
}

/* A file of the cache, for its bound. */
struct debuginfod_file {
	char	 path[PATH_MAX];
	time_t	 mtime;
	off_t	 size;
};

/* The regular files of dir, and of its directories depth levels down. */
static void
debuginfod_files(const char *dir, int depth, struct debuginfod_file **v,
    size_t *n, size_t *cap, long long *total)
{
	struct dirent	*de;
	struct stat	 sb;
	DIR		*dp;
	char		 path[PATH_MAX];

	if ((dp = opendir(dir)) == NULL)
		return;
	while ((de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path) || lstat(path, &sb) == -1)
			continue;
		if (S_ISDIR(sb.st_mode) && depth > 0) {
			debuginfod_files(path, depth - 1, v, n, cap, total);
			continue;
		}
		/* libdebuginfod's settings, at the top, stay. */
		if (!S_ISREG(sb.st_mode) || depth == 2)
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*v = xreallocarray(*v, *cap, sizeof(**v));
		}
		memcpy((*v)[*n].path, path, sizeof(path));
		(*v)[*n].mtime = sb.st_mtime;
		(*v)[*n].size = sb.st_blocks * 512LL;
		*total += (*v)[(*n)++].size;
	}
	closedir(dp);
}

/* Whether path is in the directory of a build id being fetched. */
static int
debuginfod_in_progress(const struct debuginfod *d, const char *path)
{
	char	 hex[2 * SYMCACHE_BUILD_ID_MAX + 3];
	size_t	 i;

	for (i = 0; i < DEBUGINFOD_CHILDREN; i++) {
		if (d->kids[i].pid == 0)
			continue;
		hex[0] = '/';
		debuginfod_hex(&d->kids[i].id, hex + 1);
		strcat(hex, "/");
		if (strstr(path, hex) != NULL)
			return 1;
	}
	return 0;
}

/*
 * The cache over debuginfod_cache_bytes: its files go, oldest first --
 * the debug files fetched (.build-id/xx/), and what libdebuginfod keeps
 * by build id (a fetch killed mid-way leaves its temporary file).
 */
static void
debuginfod_trim(struct debuginfod *d)
{
	struct debuginfod_file	*v = NULL, tmp;
	size_t			 n = 0, cap = 0, i, j, oldest;
	long long		 total = 0;

	debuginfod_files(d->dir, 2, &v, &n, &cap, &total);
	/* What a fetch in progress writes is not to be taken from it. */
	for (i = 0; i < n; i++) {
		if (debuginfod_in_progress(d, v[i].path)) {
			total -= v[i].size;
			v[i--] = v[--n];
		}
	}
	for (i = 0; i < n && total > d->cache_bytes; i++) {
		for (j = oldest = i; j < n; j++)
			if (v[j].mtime < v[oldest].mtime)
				oldest = j;
		tmp = v[oldest];
		v[oldest] = v[i];
		if (unlink(tmp.path) == 0) {
			total -= tmp.size;
			d->st.evicted++;
		}
	}
	free(v);
}

static void
debuginfod_child_done(struct debuginfod_child *k)
{
	struct debuginfod	*d = k->d;
	char			*sp;
	long			 code;
	int			 status;

	ev_io_stop(d->loop, &k->io);
	ev_timer_stop(d->loop, &k->timer);
	close(k->fd);
	waitpid(k->pid, &status, 0);
	k->pid = 0;
	k->buf[k->len] = '\0';
	code = strtol(k->buf, &sp, 10);
	if (k->len == 0 || sp == k->buf) {
		d->st.fail[DEBUGINFOD_ERROR]++;
		debuginfod_trim(d);
		return;
	}
	switch (code) {
	case 0:
		sp += strspn(sp, " ");
		sp[strcspn(sp, "\n")] = '\0';
		if (debuginfod_keep(d, &k->id, sp) == -1) {
			d->st.fail[DEBUGINFOD_BAD]++;
			log_warnx("debuginfod: the file a server sent is not "
			    "the debug file asked for: deleted");
			break;
		}
		d->st.ok++;
		debuginfod_asked_ok(d, &k->id);
		resolve_debug_fetched(d->resolve, k->id.id, k->id.len);
		break;
	case ENOENT:
		d->st.fail[DEBUGINFOD_NOT_FOUND]++;
		break;
	case EFBIG:
		d->st.fail[DEBUGINFOD_TOO_BIG]++;
		break;
	case ETIME:
	case ETIMEDOUT:
		d->st.fail[DEBUGINFOD_TIMEOUT]++;
		break;
	default:
		d->st.fail[DEBUGINFOD_ERROR]++;
		log_debug("debuginfod: fetch failed: %s", strerror(code));
		break;
	}
	debuginfod_trim(d);
}

static void
debuginfod_child_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct debuginfod_child	*k = w->data;
	ssize_t			 n;

	n = read(k->fd, k->buf + k->len, sizeof(k->buf) - 1 - k->len);
	if (n > 0) {
		k->len += n;
		if (k->len < sizeof(k->buf) - 1)
			return;
	} else if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	debuginfod_child_done(k);
}

/* Over its time: killed, and done as a timeout. */
static void
debuginfod_child_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct debuginfod_child	*k = w->data;

	kill(k->pid, SIGKILL);
	snprintf(k->buf, sizeof(k->buf), "%d\n", ETIME);
	k->len = strlen(k->buf);
	debuginfod_child_done(k);
}

static int
debuginfod_start(struct debuginfod *d, struct debuginfod_child *k,
    const struct symcache_build_id *id)
{
	int	 p[2];

	if (pipe2(p, O_CLOEXEC) == -1) {
		log_warn("debuginfod: pipe");
		return -1;
	}
	if ((k->pid = fork()) == -1) {
		log_warn("debuginfod: fork");
		close(p[0]);
		close(p[1]);
		k->pid = 0;
		return -1;
	}
	if (k->pid == 0) {
		close(p[0]);
		debuginfod_child_run(d, id, p[1]);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	k->d = d;
	k->fd = p[0];
	k->id = *id;
	k->len = 0;
	ev_io_init(&k->io, debuginfod_child_io_cb, k->fd, EV_READ);
	k->io.data = k;
	ev_io_start(d->loop, &k->io);
	ev_timer_init(&k->timer, debuginfod_child_timer_cb,
	    (ev_tstamp)d->timeout + 10., 0.);
	k->timer.data = k;
	ev_timer_start(d->loop, &k->timer);
	d->st.fetches++;
	return 0;
}

/* Once a second: what the symbol cache wants, fetched, two at a time. */
static void
debuginfod_poll_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct debuginfod	*d = w->data;
	struct symcache_build_id ids[16];
	size_t			 i, n, space;

	if (d->urls == NULL)
		return;
	/* What does not fit the queue waits in the symbol cache's list. */
	space = sizeof(d->queue) / sizeof(d->queue[0]) - d->nqueue;
	n = resolve_debug_wants(d->resolve, ids, space < 16 ? space : 16);
	for (i = 0; i < n; i++) {
		if (!debuginfod_asked(d, &ids[i]))
			d->queue[d->nqueue++] = ids[i];
	}
	if (mkdir(d->dir, 0750) == -1 && errno != EEXIST) {
		log_warn("debuginfod: %s", d->dir);
		return;
	}
	for (i = 0; i < DEBUGINFOD_CHILDREN && d->nqueue > 0; i++) {
		if (d->kids[i].pid != 0)
			continue;
		/* First in, first out: a burst of others waits its turn. */
		if (debuginfod_start(d, &d->kids[i], &d->queue[0]) == -1)
			break;
		memmove(&d->queue[0], &d->queue[1],
		    --d->nqueue * sizeof(d->queue[0]));
	}
}

void
debuginfod_stats(const struct debuginfod *d, struct debuginfod_stats *st)
{
	size_t	 i;

	*st = d->st;
	st->running = 0;
	for (i = 0; i < DEBUGINFOD_CHILDREN; i++)
		if (d->kids[i].pid != 0)
			st->running++;
	st->queued = d->nqueue;
}

void
debuginfod_free(struct debuginfod *d)
{
	size_t	 i;

	if (d == NULL)
		return;
	ev_timer_stop(d->loop, &d->poll);
	for (i = 0; i < DEBUGINFOD_CHILDREN; i++) {
		if (d->kids[i].pid == 0)
			continue;
		kill(d->kids[i].pid, SIGKILL);
		ev_io_stop(d->loop, &d->kids[i].io);
		ev_timer_stop(d->loop, &d->kids[i].timer);
		close(d->kids[i].fd);
		waitpid(d->kids[i].pid, NULL, 0);
	}
	free(d->asked);
	free(d->urls);
	free(d->dir);
	free(d);
}
