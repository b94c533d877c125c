/*
 * procmaps: parsing /proc/PID/maps text, hostile lines included, and
 * looking addresses up.
 */
#include <sys/types.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procmaps.h"

#include "tap.h"

static const char fixture[] =
    "55d0c0a00000-55d0c0a02000 r--p 00000000 fe:00 247134"
    "                     /usr/bin/cat\n"
    "55d0c0a02000-55d0c0a07000 r-xp 00002000 fe:00 247134"
    "                     /usr/bin/cat\n"
    "7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n"
    "7f0000002000-7f0000003000 r-xp 00001000 103:02 12345678901"
    "                /opt/app/lib/libx.so (deleted)\n"
    /* Overlaps the one before: dropped. */
    "7f0000002800-7f0000002900 r-xp 00000000 08:01 5 /overlap\n"
    "7f0000004000-7f0000005000 r-xp 00000000 00:00 0"
    "                          [vdso]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
    "                  [vsyscall]\n"
    "7f0000006000-7f0000007000 r-xp 00000000 08:01 42"
    "                         /path with spaces/lib y.so\n"
    "7f0000008000-7f0000009000 r-xp 00000000 00:00 0"
    "                          [anon:jit]\n"
    /* Hostile or broken lines, all skipped. */
    "7f000000a000-7f0000009000 r-xp 00000000 08:01 1 /end/before/start\n"
    "zzzz-yyyy r-xp 00000000 08:01 1 /not/hex\n"
    "7f000000c000-7f000000d000 r-xp 00000000000000000 08:01 1 /17digits\n"
    "7f000000e000-7f000000f000 r-xp 00000000 08:01 "
    "99999999999999999999999 /inode/overflow\n"
    "7f0000010000-7f0000011000 r-xp\n"
    "7f0000010000-7f0000011000 r-xp 00000000 08:01\n"
    "7f0000010000-7f0000011000 r-xp 00000000 08:01 7x /bad/inode\n"
    "7f0000010000-7f0000011000 rwxq00000000 08:01 7 /bad/perms\n"
    "\n"
    "-\n"
    "7f0000012000-7f0000013000 rw-p 00000000 00:00 0\n";

static const char tail[] =
    "7f0000014000-7f0000015000 r-xp 00000000 08:01 7 /after/long/line\n"
    "7f0000016000-7f0000017000 r-xp 00000000 08:01 8 /no/newline/at/end";

static void
test_fixture(void)
{
	const struct procmaps_entry	*e;
	struct procmaps			*m;
	char				*buf, *p;
	size_t				 len, longlen = 20000;

	/* The fixture, a line far longer than a path, a NUL, the tail. */
	len = strlen(fixture) + longlen + 200 + strlen(tail);
	buf = calloc(1, len + 1);
	p = buf;
	p += sprintf(p, "%s", fixture);
	p += sprintf(p, "7f0000030000-7f0000031000 r-xp 00000000 08:01 9 /");
	memset(p, 'a', longlen);
	p += longlen;
	*p++ = '\n';
	p += sprintf(p, "7f0000032000-7f0000033000 r-xp 00000000 08:01 9 /n");
	*p++ = '\0';
	p += sprintf(p, "ul\n");
	p += sprintf(p, "%s", tail);
	len = p - buf;

	m = procmaps_parse_buf(buf, len);
	free(buf);
	ok(m != NULL, "fixture parses");
	if (m == NULL)
		return;
	is_int(m->n, 9, "nine executable mappings kept");

	e = procmaps_lookup(m, 0x55d0c0a02000);
	ok(e != NULL, "lookup at a mapping's first byte");
	if (e != NULL) {
		is_str(e->path, "/usr/bin/cat", "path");
		is_int(e->kind, PROCMAPS_FILE, "a file");
		is_int(e->offset, 0x2000, "offset");
		is_int(e->dev_major, 0xfe, "dev major");
		is_int(e->dev_minor, 0, "dev minor");
		is_int(e->inode, 247134, "inode");
		is_int(e->deleted, 0, "not deleted");
		is_str(procmaps_basename(e), "cat", "basename");
	}
	ok(procmaps_lookup(m, 0x55d0c0a06fff) == e, "lookup at the last byte");
	ok(procmaps_lookup(m, 0x55d0c0a07000) == NULL,
	    "one past the end: nothing");
	ok(procmaps_lookup(m, 0x55d0c0a01fff) == NULL,
	    "the r--p mapping is not kept");
	ok(procmaps_lookup(m, 0x1000) == NULL, "below every mapping");
	ok(procmaps_lookup(m, UINT64_MAX) == NULL, "above every mapping");

	e = procmaps_lookup(m, 0x7f0000000800);
	ok(e != NULL && e->kind == PROCMAPS_ANON && e->path[0] == '\0',
	    "anonymous executable mapping");

	e = procmaps_lookup(m, 0x7f0000002850);
	ok(e != NULL, "deleted mapping found");
	if (e != NULL) {
		is_str(e->path, "/opt/app/lib/libx.so", "(deleted) stripped");
		is_int(e->deleted, 1, "deleted flag");
		is_int(e->dev_major, 0x103, "three-digit major");
		is_int(e->dev_minor, 2, "minor");
		is_int(e->inode, 12345678901ULL, "inode over 32 bits");
		is_int(e->start, 0x7f0000002000, "overlapping line dropped");
	}

	e = procmaps_lookup(m, 0x7f0000004100);
	ok(e != NULL && e->kind == PROCMAPS_SPECIAL &&
	    strcmp(e->path, "[vdso]") == 0, "[vdso]");
	if (e != NULL)
		is_str(procmaps_basename(e), "[vdso]", "[vdso] basename");
	e = procmaps_lookup(m, 0xffffffffff600000);
	ok(e != NULL && e->kind == PROCMAPS_SPECIAL &&
	    strcmp(e->path, "[vsyscall]") == 0, "[vsyscall] (--xp)");
	e = procmaps_lookup(m, 0x7f0000006000);
	ok(e != NULL && strcmp(e->path, "/path with spaces/lib y.so") == 0,
	    "path with spaces");
	if (e != NULL)
		is_str(procmaps_basename(e), "lib y.so", "basename with space");
	e = procmaps_lookup(m, 0x7f0000008000);
	ok(e != NULL && e->kind == PROCMAPS_ANON, "[anon:jit] is anonymous");

	ok(procmaps_lookup(m, 0x7f000000a000) == NULL, "end before start");
	ok(procmaps_lookup(m, 0x7f000000c000) == NULL, "17-digit offset");
	ok(procmaps_lookup(m, 0x7f000000e000) == NULL, "inode overflow");
	ok(procmaps_lookup(m, 0x7f0000010000) == NULL, "truncated lines");
	ok(procmaps_lookup(m, 0x7f0000012000) == NULL, "rw-p not kept");
	ok(procmaps_is_data(m, 0x7f0000012000) &&
	    procmaps_is_data(m, 0x7f0000012fff), "rw-p: data");
	ok(procmaps_is_data(m, 0x55d0c0a01fff), "r--p: data");
	ok(!procmaps_is_data(m, 0x55d0c0a02000), "r-xp: no data");
	ok(!procmaps_is_data(m, 0x7f0000013000), "past the rw-p: no data");
	ok(!procmaps_is_data(m, 0x1000), "below every mapping: no data");
	ok(!procmaps_is_data(NULL, 0x1000), "no maps: no data");
	ok(procmaps_lookup(m, 0x7f0000030000) == NULL, "over-long line");
	ok(procmaps_lookup(m, 0x7f0000032000) == NULL, "line with a NUL");
	e = procmaps_lookup(m, 0x7f0000014000);
	ok(e != NULL && strcmp(e->path, "/after/long/line") == 0,
	    "the line after the long one");
	e = procmaps_lookup(m, 0x7f0000016fff);
	ok(e != NULL && strcmp(e->path, "/no/newline/at/end") == 0,
	    "last line without a newline");
	procmaps_free(m);
}

static void
test_unsorted(void)
{
	static const char	 text[] =
	    "7f0000003000-7f0000004000 r-xp 00000000 08:01 3 /c\n"
	    "7f0000001000-7f0000002000 r-xp 00000000 08:01 1 /a\n"
	    "7f0000002000-7f0000003000 r-xp 00000000 08:01 2 /b\n";
	struct procmaps		*m;
	const struct procmaps_entry *e;

	m = procmaps_parse_buf(text, strlen(text));
	ok(m != NULL && m->n == 3, "unsorted input: three mappings");
	if (m == NULL)
		return;
	e = procmaps_lookup(m, 0x7f0000001000);
	ok(e != NULL && strcmp(e->path, "/a") == 0, "sorted: a");
	e = procmaps_lookup(m, 0x7f0000002fff);
	ok(e != NULL && strcmp(e->path, "/b") == 0, "sorted: b");
	e = procmaps_lookup(m, 0x7f0000003000);
	ok(e != NULL && strcmp(e->path, "/c") == 0, "sorted: c");
	procmaps_free(m);

	m = procmaps_parse_buf("", 0);
	ok(m != NULL && m->n == 0 && procmaps_lookup(m, 1) == NULL,
	    "empty input");
	procmaps_free(m);
	procmaps_free(NULL);
	ok(procmaps_lookup(NULL, 1) == NULL, "lookup in NULL");
}

/* Random bytes and random near-miss lines: no crash, bounded output. */
static void
test_garbage(void)
{
	struct procmaps	*m;
	char		*buf;
	size_t		 len = 1 << 20, i, bad = 0;
	unsigned int	 seed = 42;

	buf = malloc(len);
	for (i = 0; i < len; i++)
		buf[i] = "0123456789abcdef- :xrwp/\n()[]"[rand_r(&seed) % 29];
	m = procmaps_parse_buf(buf, len);
	ok(m != NULL, "1 MiB of noise parses");
	if (m != NULL) {
		for (i = 0; i < m->n; i++)
			if (m->v[i].start >= m->v[i].end ||
			    (i > 0 && m->v[i].start < m->v[i - 1].end))
				bad++;
		is_int(bad, 0, "every kept entry sane and sorted");
	}
	procmaps_free(m);
	free(buf);
}

/* Long paths beyond the per-process budget are dropped, not kept. */
static void
test_path_budget(void)
{
	static const char twice[] =
	    "7f0000000000-7f0000001000 r-xp 00000000 08:01 1 /s\n"
	    "7f0000001000-7f0000002000 r-xp 00001000 08:01 1 /s\n";
	struct procmaps	*m;
	char		*buf, *p;
	size_t		 i, n = 5000, empty = 0, shared = 0;

	buf = malloc(n * 4200 + 200);
	p = buf;
	for (i = 0; i < n; i++) {
		p += sprintf(p, "%llx-%llx r-xp 00000000 08:01 %zu /%04zu",
		    0x10000000ULL + i * 0x2000, 0x10001000ULL + i * 0x2000,
		    i + 1, i);
		memset(p, 'p', 4000);
		p += 4000;
		*p++ = '\n';
	}
	m = procmaps_parse_buf(buf, p - buf);
	free(buf);
	ok(m != NULL && m->n == n, "%zu long paths: every mapping kept", n);
	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		if (m->v[i].path[0] == '\0')
			empty++;
	ok(empty > 0 && empty < n, "past 16 MiB of paths, paths dropped "
	    "(%zu)", empty);
	ok(m->v[0].path[0] == '/' && strlen(m->v[0].path) == 4005,
	    "the first paths kept whole");
	procmaps_free(m);

	m = procmaps_parse_buf(twice, strlen(twice));
	shared = m != NULL && m->n == 2 && m->v[0].path == m->v[1].path;
	ok(shared && strcmp(m->v[1].path, "/s") == 0,
	    "one file mapped twice: one path");
	procmaps_free(m);
}

static void
test_self(void)
{
	const struct procmaps_entry	*e;
	struct procmaps			*m;
	char				 exe[PATH_MAX];
	ssize_t				 n;

	m = procmaps_read(getpid());
	ok(m != NULL && m->n > 0, "procmaps_read(self)");
	if (m == NULL)
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	e = procmaps_lookup(m, (uint64_t)(uintptr_t)test_self);
	ok(e != NULL && strcmp(e->path, exe) == 0,
	    "our own code is in our executable's mapping");
	if (e != NULL)
		is_str(procmaps_basename(e), "t-procmaps", "its basename");
	procmaps_free(m);
	ok(procmaps_read(INT_MAX) == NULL, "no such process: NULL");
}

/* A copy is whole and stands alone: the original can go first. */
/* Non-executable mappings that touch are one range; out of order too. */
static void
test_data(void)
{
	static const char	 buf[] =
	    "7f0000004000-7f0000005000 rw-p 00000000 00:00 0\n"
	    "7f0000001000-7f0000002000 r--p 00000000 08:01 3 /lib/a.so\n"
	    "7f0000002000-7f0000003000 rw-p 00001000 08:01 3 /lib/a.so\n"
	    "7f0000003000-7f0000004000 r-xp 00002000 08:01 3 /lib/a.so\n";
	struct procmaps		*m, *c;

	m = procmaps_parse_buf(buf, sizeof(buf) - 1);
	ok(m != NULL && m->ndata == 2, "data: two ranges (%zu)",
	    m != NULL ? m->ndata : 0);
	if (m == NULL)
		return;
	ok(procmaps_is_data(m, 0x7f0000001000) &&
	    procmaps_is_data(m, 0x7f0000002fff), "data: merged range");
	ok(!procmaps_is_data(m, 0x7f0000003000), "data: the code between");
	ok(procmaps_is_data(m, 0x7f0000004800), "data: sorted");
	c = procmaps_copy(m);
	procmaps_free(m);
	ok(c->ndata == 2 && procmaps_is_data(c, 0x7f0000004800),
	    "data: copied");
	procmaps_free(c);
}

static void
test_copy(void)
{
	struct procmaps	*m, *c, *e;
	size_t		 i, same = 0;
	uint64_t	 reads;

	reads = procmaps_reads();
	m = procmaps_read(getpid());
	ok(procmaps_reads() == reads + 1, "a read is counted");
	if (m == NULL)
		return;
	c = procmaps_copy(m);
	ok(c->n == m->n && c->paths != m->paths, "the copy has its own paths");
	for (i = 0; i < m->n; i++) {
		if (c->v[i].start == m->v[i].start &&
		    strcmp(c->v[i].path, m->v[i].path) == 0)
			same++;
	}
	procmaps_free(m);
	ok(same == c->n, "every entry the same");
	ok(procmaps_lookup(c, (uint64_t)(uintptr_t)test_copy) != NULL &&
	    strcmp(procmaps_basename(procmaps_lookup(c,
	    (uint64_t)(uintptr_t)test_copy)), "t-procmaps") == 0,
	    "the copy names our code after the original is freed");
	procmaps_free(c);
	e = procmaps_parse_buf("", 0);
	c = procmaps_copy(e);
	ok(c->n == 0 && procmaps_lookup(c, 1) == NULL, "an empty copy");
	procmaps_free(c);
	procmaps_free(e);
	ok(procmaps_reads() == reads + 1, "parsing and copying read nothing");
}

int
main(void)
{
	test_fixture();
	test_unsorted();
	test_garbage();
	test_path_budget();
	test_self();
	test_data();
	test_copy();
	return done_testing();
}
