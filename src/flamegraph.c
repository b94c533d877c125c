/*
 * Flame graphs: the layout, and the files sink's latest.svg and
 * last-hour.svg.  The layout needs no tree: with the stacks sorted
 * frame by frame, the stacks through one frame are adjacent, so a walk
 * over them that keeps the open frames of the current stack closes
 * each frame exactly once, knowing its value, its left edge and its
 * depth.  Memory is the sort array and one open frame per depth,
 * whatever the profile holds; a first walk finds the smallest value
 * that is drawn, so that the document stays bounded.
 *
 * The last hour is read back from the .folded files the sink wrote:
 * they are untrusted input like any file on disk, so names are checked
 * against the patterns the sink writes, only regular files are opened,
 * lines and the bytes read are bounded.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "flamegraph.h"
#include "log.h"
#include "profile.h"
#include "retention.h"
#include "sink_file.h"
#include "xmalloc.h"

#define FLAMEGRAPH_HOUR		3600		/* seconds of last-hour.svg */
#define FLAMEGRAPH_HOUR_BYTES	(64 << 20)	/* folded bytes read */
#define FLAMEGRAPH_HOUR_FILES	8192		/* folded files read */
#define FLAMEGRAPH_LINE_MAX	(256 * 1024)	/* bytes of a folded line */
#define FLAMEGRAPH_LINE_FRAMES	2048		/* frames of a folded line */
#define FLAMEGRAPH_VALUE_MAX	(1ULL << 62)	/* sums cannot overflow */

struct flamegraph {
	const struct profile	*p;
	size_t			*order;		/* stack indices, sorted */
	size_t			 nstacks;
	uint64_t		 total;
	uint64_t		 min_value;	/* narrower is not drawn */
	/* Over FLAMEGRAPH_MAX_FRAMES: the cut, when cut_ties > 0. */
	uint64_t		 cut_value;
	unsigned int		 cut_depth;
	size_t			 cut_ties;
	unsigned int		 max_depth;	/* of the frames drawn */
};

struct flamegraph_open {
	uint32_t		 id;
	uint64_t		 start;
	uint64_t		 value;
};

/*
 * The first walk keeps the FLAMEGRAPH_MAX_FRAMES best frames in a heap,
 * the worst on top.  Better is a larger value, then a smaller depth: a
 * caller is worth at least its callees and is less deep, so the best
 * frames are whole stacks from the root, even when values tie.
 */
struct flamegraph_key {
	uint64_t		 value;
	unsigned int		 depth;
};

struct flamegraph_top {
	struct flamegraph_key	*heap;
	size_t			 n;
	size_t			 seen;		/* frames offered */
	uint64_t		*depth_max;	/* largest value per depth */
};

struct flamegraph_hour_file {
	time_t			 when;
	char			 name[64];
};

struct flamegraph_svg_arg {
	const struct flamegraph	*fg;
	const char		*title;
};

static int	 flamegraph_cmp(const void *, const void *, void *);
static int	 flamegraph_drawn(const struct flamegraph *, uint64_t,
		    unsigned int, size_t *);
static int	 flamegraph_pass(const struct flamegraph *,
		    int (*)(const struct flamegraph_frame *, void *), void *);
static int	 flamegraph_worse(const struct flamegraph_key *,
		    const struct flamegraph_key *);
static int	 flamegraph_top_cb(const struct flamegraph_frame *, void *);
static int	 flamegraph_line(struct profile *, char *, size_t,
		    const char **);
static int	 flamegraph_hour_cmp(const void *, const void *);
static struct profile *flamegraph_hour(const char *,
		    const struct profile *, time_t);
static int	 flamegraph_svg_cb(FILE *, const void *);
static int	 flamegraph_file(const char *, const char *,
		    const struct profile *, const char *);

/* Frame by frame; a stack sorts before the stacks it is a prefix of. */
static int
flamegraph_cmp(const void *va, const void *vb, void *arg)
{
	const struct profile	*p = arg;
	const uint32_t		*a, *b;
	size_t			 na, nb, i;
	int			 c;

	a = profile_stack(p, *(const size_t *)va, &na, NULL);
	b = profile_stack(p, *(const size_t *)vb, &nb, NULL);
	for (i = 0; i < na && i < nb; i++) {
		if (a[i] == b[i])
			continue;
		if ((c = strcmp(profile_string(p, a[i]),
		    profile_string(p, b[i]))) != 0)
			return c;
	}
	if (na == nb)
		return 0;
	return na < nb ? -1 : 1;
}

/*
 * Whether a frame is drawn.  Of the frames exactly at the cut, the first
 * cut_ties in walk order are: *ties counts them.
 */
static int
flamegraph_drawn(const struct flamegraph *fg, uint64_t value,
    unsigned int depth, size_t *ties)
{
	if (value < fg->min_value)
		return 0;
	if (fg->cut_ties == 0)
		return 1;
	if (value != fg->cut_value)
		return value > fg->cut_value;
	if (depth != fg->cut_depth)
		return depth < fg->cut_depth;
	return (*ties)++ < fg->cut_ties;
}

/*
 * Walk the frames in sorted order, calling cb for every frame drawn once
 * its value is known.  Interned names make two frames the same exactly
 * when their ids are.
 */
static int
flamegraph_pass(const struct flamegraph *fg,
    int (*cb)(const struct flamegraph_frame *, void *), void *arg)
{
	struct flamegraph_open	*open;
	struct flamegraph_frame	 fr;
	const uint32_t		*ids = NULL;
	uint64_t		 cum = 0, v = 0;
	size_t			 i, n, c, depth = 0, ties = 0;
	int			 rv = 0;

	open = xcalloc(FLAMEGRAPH_MAX_DEPTH, sizeof(*open));
	for (i = 0; i <= fg->nstacks && rv == 0; i++) {
		if (i < fg->nstacks) {
			ids = profile_stack(fg->p, fg->order[i], &n, &v);
			if (n > FLAMEGRAPH_MAX_DEPTH)
				n = FLAMEGRAPH_MAX_DEPTH;
		} else
			n = 0;
		for (c = 0; c < depth && c < n && open[c].id == ids[c]; c++)
			;
		while (depth > c) {
			depth--;
			if (depth > 0)
				open[depth - 1].value += open[depth].value;
			if (!flamegraph_drawn(fg, open[depth].value, depth,
			    &ties))
				continue;
			fr.name = profile_string(fg->p, open[depth].id);
			fr.depth = depth;
			fr.start = open[depth].start;
			fr.value = open[depth].value;
			if ((rv = cb(&fr, arg)) != 0)
				break;
		}
		if (n == 0 || rv != 0)
			continue;
		for (; depth < n; depth++) {
			open[depth].id = ids[depth];
			open[depth].start = cum;
			open[depth].value = 0;
		}
		open[n - 1].value += v;
		cum += v;
	}
	free(open);
	return rv;
}

static int
flamegraph_worse(const struct flamegraph_key *a,
    const struct flamegraph_key *b)
{
	if (a->value != b->value)
		return a->value < b->value;
	return a->depth > b->depth;
}

static int
flamegraph_top_cb(const struct flamegraph_frame *fr, void *arg)
{
	struct flamegraph_top	*t = arg;
	struct flamegraph_key	 x;
	size_t			 i, c;

	t->seen++;
	if (fr->value > t->depth_max[fr->depth])
		t->depth_max[fr->depth] = fr->value;
	x.value = fr->value;
	x.depth = fr->depth;
	if (t->n < FLAMEGRAPH_MAX_FRAMES) {
		/* Sift up. */
		for (i = t->n++; i > 0 &&
		    flamegraph_worse(&x, &t->heap[(i - 1) / 2]);
		    i = (i - 1) / 2)
			t->heap[i] = t->heap[(i - 1) / 2];
		t->heap[i] = x;
		return 0;
	}
	if (!flamegraph_worse(&t->heap[0], &x))
		return 0;
	/* Replace the worst and sift down. */
	for (i = 0; (c = 2 * i + 1) < t->n; i = c) {
		if (c + 1 < t->n &&
		    flamegraph_worse(&t->heap[c + 1], &t->heap[c]))
			c++;
		if (!flamegraph_worse(&t->heap[c], &x))
			break;
		t->heap[i] = t->heap[c];
	}
	t->heap[i] = x;
	return 0;
}

struct flamegraph *
flamegraph_create(const struct profile *p)
{
	struct flamegraph	*fg;
	struct flamegraph_top	 t;
	uint64_t		 v, parts;
	size_t			 i, n, d;

	fg = xcalloc(1, sizeof(*fg));
	fg->p = p;
	fg->nstacks = profile_nstacks(p);
	fg->order = xcalloc(fg->nstacks + 1, sizeof(*fg->order));
	for (i = 0; i < fg->nstacks; i++) {
		fg->order[i] = i;
		(void)profile_stack(p, i, &n, &v);
		fg->total += v;
	}
	qsort_r(fg->order, fg->nstacks, sizeof(*fg->order), flamegraph_cmp,
	    (void *)p);

	/*
	 * Narrower than FLAMEGRAPH_MIN_WIDTH pixels, that is under 1/parts
	 * of the total, is not drawn.  In integers: no rounding decides.
	 */
	parts = (FLAMEGRAPH_WIDTH - 2 * FLAMEGRAPH_XPAD) /
	    FLAMEGRAPH_MIN_WIDTH + 0.5;
	fg->min_value = fg->total / parts + (fg->total % parts != 0);
	if (fg->min_value == 0)
		fg->min_value = 1;

	memset(&t, 0, sizeof(t));
	t.heap = xcalloc(FLAMEGRAPH_MAX_FRAMES, sizeof(*t.heap));
	t.depth_max = xcalloc(FLAMEGRAPH_MAX_DEPTH, sizeof(*t.depth_max));
	(void)flamegraph_pass(fg, flamegraph_top_cb, &t);
	/*
	 * Too many frames: draw those better than the worst kept, and as
	 * many frames equal to it as the heap kept.
	 */
	if (t.seen > FLAMEGRAPH_MAX_FRAMES) {
		fg->cut_value = t.heap[0].value;
		fg->cut_depth = t.heap[0].depth;
		for (i = 0; i < t.n; i++)
			if (t.heap[i].value == fg->cut_value &&
			    t.heap[i].depth == fg->cut_depth)
				fg->cut_ties++;
	}
	for (d = 0; d < FLAMEGRAPH_MAX_DEPTH; d++) {
		if (t.depth_max[d] < fg->min_value)
			continue;
		if (fg->cut_ties == 0 || t.depth_max[d] > fg->cut_value ||
		    (t.depth_max[d] == fg->cut_value && d <= fg->cut_depth))
			fg->max_depth = d;
	}
	free(t.heap);
	free(t.depth_max);
	return fg;
}

void
flamegraph_free(struct flamegraph *fg)
{
	if (fg == NULL)
		return;
	free(fg->order);
	free(fg);
}

int
flamegraph_walk(const struct flamegraph *fg,
    int (*cb)(const struct flamegraph_frame *, void *), void *arg)
{
	return flamegraph_pass(fg, cb, arg);
}

uint64_t
flamegraph_total(const struct flamegraph *fg)
{
	return fg->total;
}

unsigned int
flamegraph_depth(const struct flamegraph *fg)
{
	return fg->max_depth;
}

enum profile_type
flamegraph_type(const struct flamegraph *fg)
{
	return profile_type(fg->p);
}

/*
 * One folded line, without its newline: "frames value", the value after
 * the last space.  Returns 1 if it was added, 0 if it is not a stack.
 */
static int
flamegraph_line(struct profile *p, char *line, size_t len,
    const char **frames)
{
	uint64_t	 v = 0;
	size_t		 sp, i, n;
	char		*s;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	for (sp = len; sp > 0 && line[sp - 1] != ' '; sp--)
		;
	if (sp == 0 || sp == len)
		return 0;
	for (i = sp; i < len; i++) {
		if (line[i] < '0' || line[i] > '9')
			return 0;
		if (v > (FLAMEGRAPH_VALUE_MAX - (line[i] - '0')) / 10)
			return 0;
		v = v * 10 + (line[i] - '0');
	}
	if (v == 0 || v > FLAMEGRAPH_VALUE_MAX - profile_total(p))
		return 0;
	/* flamegraph.pl allows several spaces before the count. */
	for (sp--; sp > 0 && line[sp - 1] == ' '; sp--)
		;
	if (sp == 0)
		return 0;
	line[sp] = '\0';
	frames[0] = line;
	for (n = 1, s = line; (s = strchr(s, ';')) != NULL; ) {
		*s++ = '\0';
		if (n == FLAMEGRAPH_LINE_FRAMES)
			break;
		frames[n++] = s;
	}
	profile_add(p, frames, n, v);
	return 1;
}

long
flamegraph_folded_read(struct profile *p, FILE *f, size_t *budget)
{
	const char	**frames;
	char		 *line;
	size_t		  len = 0;
	long		  added = 0;
	int		  c, bad = 0;

	line = xmalloc(FLAMEGRAPH_LINE_MAX);
	frames = xcalloc(FLAMEGRAPH_LINE_FRAMES, sizeof(*frames));
	/* By the character: a line never costs more than its bound. */
	while (*budget > 0 && (c = getc_unlocked(f)) != EOF) {
		(*budget)--;
		if (c != '\n') {
			/* Too long, or a NUL: skip to the end of the line. */
			if (c == '\0' || len == FLAMEGRAPH_LINE_MAX - 1)
				bad = 1;
			else if (!bad)
				line[len++] = c;
			continue;
		}
		if (!bad)
			added += flamegraph_line(p, line, len, frames);
		len = 0;
		bad = 0;
	}
	/* A last line without its newline, unless the budget cut it. */
	if (ferror(f)) {
		added = -1;
		if (errno == 0)
			errno = EIO;
	} else if (len > 0 && !bad && feof(f))
		added += flamegraph_line(p, line, len, frames);
	free(frames);
	free(line);
	return added;
}

/* Newest first, so that a cut by the byte budget drops the oldest. */
static int
flamegraph_hour_cmp(const void *va, const void *vb)
{
	const struct flamegraph_hour_file	*a = va, *b = vb;

	if (a->when != b->when)
		return a->when > b->when ? -1 : 1;
	return strcmp(b->name, a->name);
}

/*
 * The profile of the hour up to now from dir's .folded files, or NULL
 * after logging.  The file of this round is among them: the sink wrote
 * it under the same time.
 */
static struct profile *
flamegraph_hour(const char *dir, const struct profile *p, time_t now)
{
	struct flamegraph_hour_file	*files = NULL;
	struct profile			*hp = NULL;
	struct dirent			*de;
	struct stat			 sb;
	DIR				*d;
	FILE				*f;
	size_t				 nfiles = 0, i, len, budget;
	time_t				 when;
	int				 dfd, fd;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd == -1 || (d = fdopendir(dfd)) == NULL) {
		log_warn("open %s", dir);
		if (dfd != -1)
			close(dfd);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 7 || len >= sizeof(files->name) ||
		    strcmp(de->d_name + len - 7, ".folded") != 0 ||
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
		files[nfiles].when = when;
		memcpy(files[nfiles].name, de->d_name, len + 1);
		nfiles++;
	}
	qsort(files, nfiles, sizeof(*files), flamegraph_hour_cmp);

	hp = profile_create(profile_type(p), profile_period(p),
	    (int64_t)(now - FLAMEGRAPH_HOUR) * 1000000000,
	    (int64_t)FLAMEGRAPH_HOUR * 1000000000);
	budget = FLAMEGRAPH_HOUR_BYTES;
	for (i = 0; i < nfiles && budget > 0; i++) {
		fd = openat(dirfd(d), files[i].name, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC);
		if (fd == -1 && errno == ELOOP)
			log_warnx("%s/%s: not a regular file", dir,
			    files[i].name);
		else if (fd == -1 && errno != ENOENT)
			log_warn("open %s/%s", dir, files[i].name);
		if (fd == -1)
			continue;
		if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
		    (f = fdopen(fd, "r")) == NULL) {
			log_warnx("%s/%s: not a regular file", dir,
			    files[i].name);
			close(fd);
			continue;
		}
		if (flamegraph_folded_read(hp, f, &budget) == -1)
			log_warn("read %s/%s", dir, files[i].name);
		fclose(f);
	}
	if (budget == 0)
		log_warnx("%s: last-hour.svg covers the newest %d MiB of "
		    "folded stacks", dir, FLAMEGRAPH_HOUR_BYTES >> 20);
	closedir(d);
	free(files);
	return hp;
}

static int
flamegraph_svg_cb(FILE *f, const void *arg)
{
	const struct flamegraph_svg_arg	*a = arg;

	return flamegraph_svg_write(a->fg, a->title, f);
}

static int
flamegraph_file(const char *dir, const char *name, const struct profile *p,
    const char *title)
{
	struct flamegraph_svg_arg	 a;
	int				 rv;

	a.fg = flamegraph_create(p);
	a.title = title;
	rv = sink_file_atomic(dir, name, flamegraph_svg_cb, &a);
	flamegraph_free((struct flamegraph *)a.fg);
	return rv;
}

int
flamegraph_write(const struct config *conf, const struct profile *p,
    time_t now)
{
	struct profile	*hp;
	struct tm	 tm;
	time_t		 from = now - FLAMEGRAPH_HOUR;
	char		 t1[32], t2[32], *service, *dir, *title;
	const char	*type = profile_type_name(profile_type(p));
	int		 rv = 0;

	if (!conf->svg)
		return 0;
	if (conf->output_dir == NULL || *conf->output_dir == '\0') {
		log_warnx("output_dir is not set");
		return -1;
	}
	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(t2, sizeof(t2), "%Y-%m-%d %H:%M:%S", &tm) == 0 ||
	    gmtime_r(&from, &tm) == NULL ||
	    strftime(t1, sizeof(t1), "%Y-%m-%d %H:%M:%S", &tm) == 0) {
		log_warnx("flame graph: time %lld out of range",
		    (long long)now);
		return -1;
	}

	service = sink_file_service(profile_label_get(p, "service_name"));
	xasprintf(&dir, "%s/%s/%s", conf->output_dir, type, service);
	if (sink_file_mkdirs(dir) == -1) {
		rv = -1;
		goto out;
	}
	xasprintf(&title, "%s: %s, %s UTC", service, type, t2);
	if (flamegraph_file(dir, "latest.svg", p, title) == -1)
		rv = -1;
	free(title);

	/* Without folded files there is no hour to read back. */
	if (!conf->folded)
		goto out;
	if ((hp = flamegraph_hour(dir, p, now)) == NULL) {
		rv = -1;
		goto out;
	}
	profile_label_set(hp, "service_name", service);
	/* The day once, unless the hour spans midnight. */
	xasprintf(&title, "%s: %s, last hour, %s to %s UTC", service, type,
	    t1, strncmp(t1, t2, 11) == 0 ? t2 + 11 : t2);
	if (flamegraph_file(dir, "last-hour.svg", hp, title) == -1)
		rv = -1;
	free(title);
	profile_free(hp);
out:
	free(dir);
	free(service);
	return rv;
}
