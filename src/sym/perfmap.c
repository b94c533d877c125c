/*
 * JIT code named by perf maps: /tmp/perf-PID.map, which Node.js writes
 * with --perf-basic-prof and the JVM with "jcmd PID Compiler.perfmap",
 * one line per piece of generated code:
 *
 *	START SIZE NAME
 *
 * START and SIZE in hex (0x optional), NAME the rest of the line.  Code
 * can be generated again at the same address: the later line wins.
 *
 * The file is the process's: it is opened in the process's root, named
 * after the process's pid in its own pid namespace (the last NSpid of
 * /proc/PID/status), so that a process in a container works, and only
 * if the process's user or root owns it, as perf does.  A process that
 * exited before its frames were named has no root any more: if it
 * shared our mount and pid namespaces, its map is still ours to read,
 * unless it is older than the process.  It is written
 * while we read it and grows without end with --perf-basic-prof: we
 * read at most PERFMAP_BYTES_MAX of it (the newest), up to its last
 * complete line, keep at most PERFMAP_ENTRIES_MAX entries, skip lines
 * that do not parse, and read it again only when its size or mtime
 * changed.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "perfmap.h"
#include "proc/proc.h"
#include "proc/proc_root.h"
#include "elf/symtab.h"
#include "util/xmalloc.h"

#define PERFMAP_BYTES_MAX	(16 * 1024 * 1024)
#define PERFMAP_ENTRIES_MAX	(1 << 20)
#define PERFMAP_NAME_MAX	1024
#define PERFMAP_STATUS_MAX	8192

struct perfmap {
	struct symtab	*st;
	size_t		 skipped;
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtime;
};

static int
perfmap_hex(const char **pp, const char *end, uint64_t *v)
{
	const char	*p = *pp;
	uint64_t	 x = 0;
	int		 n = 0, d;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end; p++, n++) {
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
	if (n == 0 || p == end || (*p != ' ' && *p != '\t'))
		return -1;
	*pp = p;
	*v = x;
	return 0;
}

static int
perfmap_line(struct symtab_builder *b, const char *p, const char *end,
    int prio)
{
	const char	*name;
	uint64_t	 addr, size;
	size_t		 len;

	if (perfmap_hex(&p, end, &addr) == -1)
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (perfmap_hex(&p, end, &size) == -1 || size == 0)
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	name = p;
	len = strnlen(name, end - p);
	while (len > 0 && (name[len - 1] == ' ' || name[len - 1] == '\t' ||
	    name[len - 1] == '\r'))
		len--;
	if (len == 0)
		return -1;
	if (len > PERFMAP_NAME_MAX)
		len = PERFMAP_NAME_MAX;
	return symtab_builder_add_copy(b, addr, size, addr, name, len, prio);
}

/* The entries of a perf map's text. */
struct perfmap *
perfmap_parse(const char *buf, size_t len)
{
	struct symtab_builder	*b;
	struct perfmap		*pm;
	const char		*p = buf, *end = buf + len, *nl;
	int			 n = 0;

	pm = xcalloc(1, sizeof(*pm));
	b = symtab_builder_create();
	while (p < end) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (n >= PERFMAP_ENTRIES_MAX ||
		    perfmap_line(b, p, nl, n) == -1)
			pm->skipped++;
		else
			n++;
		if (nl == end)
			break;
		p = nl + 1;
	}
	pm->st = symtab_builder_finish(b);
	return pm;
}

/* Field name of /proc/PID/status: its last number (NSpid) or first two. */
static int
perfmap_status(const char *status, const char *field, long *first,
    long *second, long *last)
{
	const char	*p, *eol;
	char		*end;
	long		 v;
	int		 n = 0;

	if ((p = strstr(status, field)) == NULL)
		return -1;
	p += strlen(field);
	eol = p + strcspn(p, "\n");
	while (p < eol) {
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= eol || *p < '0' || *p > '9')
			break;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno != 0 || end == p || v < 0)
			return -1;
		if (n == 0 && first != NULL)
			*first = v;
		if (n == 1 && second != NULL)
			*second = v;
		if (last != NULL)
			*last = v;
		n++;
		p = end;
	}
	return n > 0 ? 0 : -1;
}

/*
 * Is pid in our mount namespace?  Ours is looked up once: the daemon
 * never changes it, and this runs for every new process sampled.
 */
static int
perfmap_same_mnt(pid_t pid)
{
	static struct stat	 self;
	static int		 have_self;
	struct stat		 sb;
	char			 path[64];

	if (!have_self) {
		if (stat("/proc/self/ns/mnt", &self) == -1)
			return 0;
		have_self = 1;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	if (stat(path, &sb) == -1)
		return 0;
	return sb.st_dev == self.st_dev && sb.st_ino == self.st_ino;
}

/* When the process started, from its start in clock ticks since boot. */
static time_t
perfmap_start(unsigned long long ticks)
{
	static time_t	 btime;
	char		 buf[8192], *p;
	long		 hz;
	FILE		*f;

	if (btime == 0 && (f = fopen("/proc/stat", "re")) != NULL) {
		while (fgets(buf, sizeof(buf), f) != NULL)
			if (strncmp(buf, "btime ", 6) == 0) {
				btime = strtoll(buf + 6, &p, 10);
				break;
			}
		fclose(f);
	}
	if (btime == 0 || ticks == 0 || (hz = sysconf(_SC_CLK_TCK)) <= 0)
		return 0;
	return btime + ticks / hz;
}

/*
 * Note who pid is: its pid in its own namespace names its map, its
 * users may own it, and whether its /tmp is ours says whether the map
 * can still be read after it exits.  start: field 22 of its stat.
 */
int
perfmap_proc_read(struct perfmap_proc *pp, pid_t pid,
    unsigned long long start)
{
	char	 status[PERFMAP_STATUS_MAX];

	memset(pp, 0, sizeof(*pp));
	pp->pid = pid;
	pp->nspid = pid;
	pp->ruid = pp->euid = -1;
	if (proc_read_file(pid, "status", status, sizeof(status)) <= 0)
		return -1;
	/* No NSpid before Linux 4.1: no pid namespaces to mind. */
	perfmap_status(status, "\nNSpid:", NULL, NULL, &pp->nspid);
	if (perfmap_status(status, "\nUid:", &pp->ruid, &pp->euid,
	    NULL) == -1)
		return -1;
	pp->host = pp->nspid == pid && perfmap_same_mnt(pid);
	pp->start = perfmap_start(start);
	return 0;
}

/*
 * The process's perf map, opened, if it may be read: through its root
 * while it lives; once it is gone, ours, if it shared our /tmp and the
 * map is not older than the process.
 */
static int
perfmap_open(const struct perfmap_proc *pp, int alive, struct stat *sb)
{
	char	 path[64];
	int	 fd;

	if (pp->ruid == -1)
		return -1;
	snprintf(path, sizeof(path), "/tmp/perf-%ld.map", pp->nspid);
	if (alive)
		fd = proc_root_open(pp->pid, path, sb);
	else if (pp->host)
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
		    O_NOFOLLOW);
	else
		return -1;
	if (fd == -1)
		return -1;
	if (fstat(fd, sb) == -1 || !S_ISREG(sb->st_mode) ||
	    (!alive && sb->st_mtim.tv_sec + 1 < pp->start)) {
		close(fd);
		return -1;
	}
	if (sb->st_uid != 0 && (long)sb->st_uid != pp->ruid &&
	    (long)sb->st_uid != pp->euid) {
		log_debug("pid %d: %s not owned by the process's user: "
		    "ignored", (int)pp->pid, path);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Read the perf map of the process pp into *pmp if it changed since;
 * alive says whether the process still runs.  1 if it was read, 0 if
 * unchanged, -1 if there is none (*pmp is kept: the code it names may
 * still run).
 */
int
perfmap_update(struct perfmap **pmp, const struct perfmap_proc *pp,
    int alive)
{
	struct perfmap	*pm = *pmp, *npm;
	struct stat	 sb;
	char		*buf, *p, *last;
	off_t		 off;
	size_t		 len;
	ssize_t		 n;
	int		 fd;

	if ((fd = perfmap_open(pp, alive, &sb)) == -1)
		return -1;
	if (pm != NULL && pm->dev == sb.st_dev && pm->ino == sb.st_ino &&
	    pm->size == sb.st_size &&
	    pm->mtime.tv_sec == sb.st_mtim.tv_sec &&
	    pm->mtime.tv_nsec == sb.st_mtim.tv_nsec) {
		close(fd);
		return 0;
	}
	off = sb.st_size > PERFMAP_BYTES_MAX ? sb.st_size - PERFMAP_BYTES_MAX :
	    0;
	len = sb.st_size - off;
	buf = xmalloc(len + 1);
	do
		n = pread(fd, buf, len, off);
	while (n == -1 && errno == EINTR);
	close(fd);
	if (n < 0)
		n = 0;
	/* Whole lines only: the last may be half written. */
	p = buf;
	if ((last = memrchr(buf, '\n', n)) == NULL)
		n = 0;
	else
		n = last - buf + 1;
	if (off > 0 && n > 0 && (p = memchr(buf, '\n', n)) != NULL) {
		p++;
		n -= p - buf;
	}
	npm = perfmap_parse(p, n);
	free(buf);
	npm->dev = sb.st_dev;
	npm->ino = sb.st_ino;
	npm->size = sb.st_size;
	npm->mtime = sb.st_mtim;
	log_debug("pid %d: perf map: %zu entries, %zu lines skipped",
	    (int)pp->pid, symtab_count(npm->st), npm->skipped);
	perfmap_free(pm);
	*pmp = npm;
	return 1;
}

void
perfmap_free(struct perfmap *pm)
{
	if (pm == NULL)
		return;
	symtab_free(pm->st);
	free(pm);
}

const char *
perfmap_lookup(const struct perfmap *pm, uint64_t addr)
{
	return pm == NULL ? NULL : symtab_lookup(pm->st, addr);
}

size_t
perfmap_count(const struct perfmap *pm)
{
	return pm == NULL ? 0 : symtab_count(pm->st);
}

size_t
perfmap_bytes(const struct perfmap *pm)
{
	return pm == NULL ? 0 : sizeof(*pm) + symtab_bytes(pm->st);
}

size_t
perfmap_skipped(const struct perfmap *pm)
{
	return pm == NULL ? 0 : pm->skipped;
}
