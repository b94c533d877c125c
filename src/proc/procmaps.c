/*
 * The executable mappings of /proc/PID/maps, and where the others are.
 *
 * A line is "start-end perms offset major:minor inode   path".  The
 * kernel writes it, but the path is whatever a process named its files,
 * and the parser also reads test buffers: every field is checked, a line
 * that does not parse is skipped, a line longer than a path can be is
 * skipped without being stored, and the number of entries is capped.
 */
#include <sys/types.h>
#include <sys/auxv.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "procmaps.h"
#include "util/xmalloc.h"

#define PROCMAPS_LINE_MAX	(PATH_MAX + 256)
/* Far above vm.max_map_count's default of 65530. */
#define PROCMAPS_MAX		(1 << 18)
/*
 * Paths kept per process.  Past this, mappings keep no path: the file is
 * still read through /proc/PID/map_files.
 */
#define PROCMAPS_PATHS_MAX	(16 * 1024 * 1024)
#define PROCMAPS_DELETED	" (deleted)"

/* Reads of /proc/PID/maps since start: a cost to keep low. */
static uint64_t		 procmaps_nreads;
/*
 * stdio's buffer for them.  Its default for /proc is 1 KB, a read(2)
 * per KB, each going back into the kernel's seq_file; a process's maps
 * are usually 4 to 40 KB and come in one or two reads with this, and
 * without the fstat(2) stdio makes to size its own buffer.  One
 * thread reads maps, one file at a time.
 */
static char		 procmaps_iobuf[64 * 1024];

struct procmaps_parser {
	struct procmaps_entry	*v;
	size_t			*offs;		/* path offsets, fixed at end */
	size_t			 n, cap;
	char			*paths;
	size_t			 paths_len, paths_cap;
	struct procmaps_range	*data;
	size_t			 ndata, data_cap;
	size_t			 bad;
};

/*
 * Read one line into buf without its newline.  Returns its length, or
 * -1 at end of file; *toolong is set when the line did not fit (the rest
 * of it is consumed) or held a NUL byte.
 */
static ssize_t
procmaps_getline(FILE *f, char *buf, size_t size, int *toolong)
{
	size_t	 len = 0;
	int	 c;

	*toolong = 0;
	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (c == '\0')
			*toolong = 1;
		if (len < size - 1)
			buf[len++] = c;
		else
			*toolong = 1;
	}
	if (c == EOF && len == 0 && !*toolong)
		return -1;
	buf[len] = '\0';
	return len;
}

static int
procmaps_hex(const char **pp, uint64_t *v)
{
	const char	*p = *pp;
	uint64_t	 x = 0;
	int		 n = 0, d;

	for (;; p++, n++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (n == 16)
			return -1;
		x = x << 4 | d;
	}
	if (n == 0)
		return -1;
	*pp = p;
	*v = x;
	return 0;
}

static int
procmaps_dec(const char **pp, uint64_t *v)
{
	const char	*p = *pp;
	uint64_t	 x = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - (*p - '0')) / 10)
			return -1;
		x = x * 10 + (*p - '0');
	}
	*pp = p;
	*v = x;
	return 0;
}

/*
 * Parse one line; 1 if it is an executable mapping, 0 if not (then only
 * its start and end are set), -1 bad.
 */
static int
procmaps_parse_line(const char *p, struct procmaps_entry *e,
    const char **path, size_t *pathlen)
{
	uint64_t	 major, minor;
	size_t		 len, dlen;

	memset(e, 0, sizeof(*e));
	if (procmaps_hex(&p, &e->start) == -1 || *p++ != '-' ||
	    procmaps_hex(&p, &e->end) == -1 || *p++ != ' ')
		return -1;
	if (e->start >= e->end)
		return -1;
	if (strlen(p) < 5 || p[4] != ' ')
		return -1;
	if (p[2] != 'x') {
		if (p[2] != '-')
			return -1;
		return 0;
	}
	p += 5;
	if (procmaps_hex(&p, &e->offset) == -1 || *p++ != ' ' ||
	    procmaps_hex(&p, &major) == -1 || *p++ != ':' ||
	    procmaps_hex(&p, &minor) == -1 || *p++ != ' ' ||
	    procmaps_dec(&p, &e->inode) == -1)
		return -1;
	if (major > UINT32_MAX || minor > UINT32_MAX)
		return -1;
	if (*p != '\0' && *p != ' ')
		return -1;
	e->dev_major = major;
	e->dev_minor = minor;
	while (*p == ' ' || *p == '\t')
		p++;
	len = strlen(p);
	dlen = strlen(PROCMAPS_DELETED);
	if (len > dlen && strcmp(p + len - dlen, PROCMAPS_DELETED) == 0) {
		e->deleted = 1;
		len -= dlen;
	}
	if (len == 0 || strncmp(p, "[anon:", 6) == 0) {
		/* Anonymous, or named by prctl(PR_SET_VMA): not a module. */
		e->kind = PROCMAPS_ANON;
		len = 0;
	} else if (p[0] == '/')
		e->kind = PROCMAPS_FILE;
	else
		e->kind = PROCMAPS_SPECIAL;
	*path = p;
	*pathlen = len;
	return 1;
}

static void
procmaps_add(struct procmaps_parser *ps, const struct procmaps_entry *e,
    const char *path, size_t len)
{
	size_t	 off = SIZE_MAX;

	/* The same file mapped again: share its path. */
	if (ps->n > 0 && len > 0 && ps->v[ps->n - 1].kind == e->kind &&
	    strlen(ps->paths + ps->offs[ps->n - 1]) == len &&
	    memcmp(ps->paths + ps->offs[ps->n - 1], path, len) == 0) {
		off = ps->offs[ps->n - 1];
		len = 0;
	} else if (ps->paths_len + len + 1 > PROCMAPS_PATHS_MAX) {
		ps->bad++;
		len = 0;
	}
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 32;
		ps->v = xreallocarray(ps->v, ps->cap, sizeof(*ps->v));
		ps->offs = xreallocarray(ps->offs, ps->cap,
		    sizeof(*ps->offs));
	}
	while (ps->paths_len + len + 1 > ps->paths_cap) {
		ps->paths_cap = ps->paths_cap ? ps->paths_cap * 2 : 1024;
		ps->paths = xreallocarray(ps->paths, ps->paths_cap, 1);
	}
	ps->v[ps->n] = *e;
	if (off != SIZE_MAX) {
		ps->offs[ps->n++] = off;
		return;
	}
	ps->offs[ps->n] = ps->paths_len;
	memcpy(ps->paths + ps->paths_len, path, len);
	ps->paths[ps->paths_len + len] = '\0';
	ps->paths_len += len + 1;
	ps->n++;
}

/* A non-executable mapping: merged with the one before if they touch. */
static void
procmaps_add_data(struct procmaps_parser *ps, const struct procmaps_entry *e)
{
	struct procmaps_range	*last;

	if (ps->ndata > 0) {
		last = &ps->data[ps->ndata - 1];
		if (e->start == last->end) {
			last->end = e->end;
			return;
		}
	}
	if (ps->ndata >= PROCMAPS_MAX) {
		ps->bad++;
		return;
	}
	if (ps->ndata == ps->data_cap) {
		ps->data_cap = ps->data_cap ? ps->data_cap * 2 : 32;
		ps->data = xreallocarray(ps->data, ps->data_cap,
		    sizeof(*ps->data));
	}
	ps->data[ps->ndata].start = e->start;
	ps->data[ps->ndata].end = e->end;
	ps->ndata++;
}

static int
procmaps_range_cmp(const void *a, const void *b)
{
	const struct procmaps_range	*x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int
procmaps_cmp(const void *a, const void *b)
{
	const struct procmaps_entry	*x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/*
 * The kernel lists mappings in order and without overlap; a buffer may
 * not.  Sort, and drop any entry overlapping the one before, so that a
 * binary search is valid.
 */
static void
procmaps_sort(struct procmaps *m)
{
	size_t	 i, j;

	for (i = 1; i < m->n; i++)
		if (m->v[i].start < m->v[i - 1].end)
			break;
	if (i >= m->n)
		return;
	qsort(m->v, m->n, sizeof(*m->v), procmaps_cmp);
	for (i = 1, j = 1; i < m->n; i++) {
		if (m->v[i].start < m->v[j - 1].end)
			continue;
		m->v[j++] = m->v[i];
	}
	m->n = j;
}

/*
 * The other mappings, sorted for procmaps_is_data.  Overlaps can stay:
 * one can only hide another's data, which costs a re-read, no name.
 */
static void
procmaps_sort_data(struct procmaps *m)
{
	size_t	 i;

	for (i = 1; i < m->ndata; i++) {
		if (m->data[i].start < m->data[i - 1].start) {
			qsort(m->data, m->ndata, sizeof(*m->data),
			    procmaps_range_cmp);
			return;
		}
	}
}

struct procmaps *
procmaps_parse(FILE *f)
{
	struct procmaps_parser	 ps;
	struct procmaps_entry	 e;
	struct procmaps		*m;
	char			*line;
	const char		*path;
	size_t			 i, len;
	int			 toolong, r;

	memset(&ps, 0, sizeof(ps));
	line = xmalloc(PROCMAPS_LINE_MAX);
	while (procmaps_getline(f, line, PROCMAPS_LINE_MAX, &toolong) != -1) {
		if (toolong) {
			ps.bad++;
			continue;
		}
		if ((r = procmaps_parse_line(line, &e, &path, &len)) == -1)
			ps.bad++;
		if (r == 0)
			procmaps_add_data(&ps, &e);
		if (r != 1)
			continue;
		if (ps.n >= PROCMAPS_MAX) {
			ps.bad++;
			continue;
		}
		procmaps_add(&ps, &e, path, len);
	}
	free(line);
	if (ferror(f)) {
		/* procmaps_read() says which, unless the process is gone. */
		free(ps.v);
		free(ps.offs);
		free(ps.paths);
		free(ps.data);
		return NULL;
	}
	if (ps.bad > 0)
		log_debug("maps: %zu lines skipped", ps.bad);

	m = xcalloc(1, sizeof(*m));
	m->v = ps.v;
	m->n = ps.n;
	m->paths = ps.paths;
	m->paths_len = ps.paths_len;
	m->data = ps.data;
	m->ndata = ps.ndata;
	for (i = 0; i < m->n; i++)
		m->v[i].path = m->paths + ps.offs[i];
	free(ps.offs);
	procmaps_sort(m);
	procmaps_sort_data(m);
	return m;
}

struct procmaps *
procmaps_parse_buf(const char *buf, size_t len)
{
	struct procmaps	*m;
	FILE		*f;

	if (len == 0)
		return xcalloc(1, sizeof(struct procmaps));
	if ((f = fmemopen((void *)buf, len, "r")) == NULL) {
		log_warn("fmemopen");
		return NULL;
	}
	m = procmaps_parse(f);
	fclose(f);
	return m;
}

/* NULL with errno set when the process is gone or unreadable. */
struct procmaps *
procmaps_read(pid_t pid)
{
	struct procmaps	*m;
	FILE		*f;
	char		 path[64];
	int		 saved;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	procmaps_nreads++;
	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	setvbuf(f, procmaps_iobuf, _IOFBF, sizeof(procmaps_iobuf));
	m = procmaps_parse(f);
	saved = errno;
	fclose(f);
	/* A process that exits while it is read: expected, not a warning. */
	if (m == NULL && saved != ESRCH)
		log_warn("read %s", path);
	errno = saved;
	return m;
}

uint64_t
procmaps_reads(void)
{
	return procmaps_nreads;
}

/* A copy for another owner, so that one read serves two. */
struct procmaps *
procmaps_copy(const struct procmaps *m)
{
	struct procmaps	*c;
	size_t		 i;

	c = xcalloc(1, sizeof(*c));
	if (m->n > 0) {
		c->v = xreallocarray(NULL, m->n, sizeof(*c->v));
		memcpy(c->v, m->v, m->n * sizeof(*c->v));
		c->n = m->n;
	}
	if (m->paths != NULL && m->paths_len > 0) {
		c->paths = xmalloc(m->paths_len);
		memcpy(c->paths, m->paths, m->paths_len);
		c->paths_len = m->paths_len;
	}
	for (i = 0; i < c->n; i++)
		c->v[i].path = c->paths + (m->v[i].path - m->paths);
	if (m->ndata > 0) {
		c->data = xreallocarray(NULL, m->ndata, sizeof(*c->data));
		memcpy(c->data, m->data, m->ndata * sizeof(*c->data));
		c->ndata = m->ndata;
	}
	return c;
}

void
procmaps_free(struct procmaps *m)
{
	if (m == NULL)
		return;
	free(m->v);
	free(m->paths);
	free(m->data);
	free(m);
}

const struct procmaps_entry *
procmaps_lookup(const struct procmaps *m, uint64_t addr)
{
	size_t	 lo = 0, hi, mid;

	if (m == NULL)
		return NULL;
	/* The last entry starting at or below addr. */
	hi = m->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= m->v[lo - 1].end)
		return NULL;
	return &m->v[lo - 1];
}

/* Is addr in a non-executable mapping? */
int
procmaps_is_data(const struct procmaps *m, uint64_t addr)
{
	size_t	 lo = 0, hi, mid;

	if (m == NULL)
		return 0;
	hi = m->ndata;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->data[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr < m->data[lo - 1].end;
}

/* The file name of a mapping, for "module+0xoff". */
const char *
procmaps_basename(const struct procmaps_entry *e)
{
	const char	*p;

	if ((p = strrchr(e->path, '/')) != NULL && p[1] != '\0')
		return p + 1;
	return e->path;
}

/*
 * The daemon's own vDSO, found once: its size (0: none) and its image
 * in *img.  The same kernel maps the same image into every process of
 * an ABI: the symbols and the unwinder compare a process's with it.
 */
size_t
procmaps_vdso_self(const uint8_t **img)
{
	static const uint8_t		*self;
	static size_t			 len;
	static int			 tried;
	const struct procmaps_entry	*e;
	struct procmaps			*m;
	unsigned long			 base;

	if (!tried) {
		tried = 1;
		if ((base = getauxval(AT_SYSINFO_EHDR)) != 0 &&
		    (m = procmaps_read(getpid())) != NULL) {
			if ((e = procmaps_lookup(m, base)) != NULL &&
			    strcmp(e->path, "[vdso]") == 0 &&
			    e->start == base &&
			    e->end - e->start <= PROCMAPS_VDSO_MAX) {
				self = (const uint8_t *)base;
				len = e->end - e->start;
			}
			procmaps_free(m);
		}
	}
	*img = self;
	return len;
}
