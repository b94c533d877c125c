/*
 * The spool, in a scratch directory: requests come back as they went in
 * and oldest first (also after a reopen, which is a daemon restart), the
 * size limit drops the oldest but never the one being sent, and what is
 * not a sound request file -- half written, truncated, altered, a link,
 * someone else's file -- is never replayed.  A request reaches the disk
 * before it gets its name (fsync, checked by wrapping the calls), and a
 * spool in use by one daemon cannot be opened by another.  What someone
 * plants -- a name that would wrap the sequence, a link, a directory, a
 * FIFO, a huge request -- is ignored or removed, never followed, never
 * read whole.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "push/spool.h"
#include "util/xmalloc.h"
#include "tap.h"

#define HDR	32	/* spool.c's header */

static char	 tmpdir[] = "/tmp/t-spool.XXXXXX";
static char	*dir;

static char *
path_of(const char *rel)
{
	char	*p;

	xasprintf(&p, "%s/%s", dir, rel);
	return p;
}

static int
exists(const char *rel)
{
	struct stat	 sb;
	char		*p = path_of(rel);
	int		 rv;

	rv = lstat(p, &sb);
	free(p);
	return rv == 0;
}

static void
write_file(const char *rel, const void *buf, size_t len)
{
	char	*p = path_of(rel);
	FILE	*f;

	if ((f = fopen(p, "w")) == NULL || fwrite(buf, 1, len, f) != len ||
	    fclose(f) != 0)
		printf("# cannot write %s\n", p);
	free(p);
}

/*
 * The spool's syncs and renames, in order: 'f' an fsync of a file, 'd'
 * of a directory, 'r' a rename.  These definitions take the place of
 * libc's for the spool code linked into this program.
 */
static char	 syncs[64];

static void
syncs_add(char c)
{
	size_t	 n = strlen(syncs);

	if (n + 1 < sizeof(syncs))
		syncs[n] = c;
}

int
fsync(int fd)
{
	struct stat	 sb;

	if (fstat(fd, &sb) == 0)
		syncs_add(S_ISDIR(sb.st_mode) ? 'd' : 'f');
	return syscall(SYS_fsync, fd);
}

int
renameat(int ofd, const char *from, int nfd, const char *to)
{
	syncs_add('r');
	return syscall(SYS_renameat, ofd, from, nfd, to);
}

/* The names in the spool directory, sorted, joined by spaces. */
static char *
listing(void)
{
	struct dirent	**ents;
	char		*s = xstrdup(""), *t;
	int		 n, i;

	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") != 0 &&
		    strcmp(ents[i]->d_name, "..") != 0) {
			xasprintf(&t, "%s%s%s", s, *s ? " " : "",
			    ents[i]->d_name);
			free(s);
			s = t;
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return s;
}

static int
put(struct spool *sp, uint64_t seq, size_t bodylen, uint32_t nprof)
{
	char		 target[64];
	unsigned char	*body;
	size_t		 i;
	int		 rv;

	snprintf(target, sizeof(target), "/push?seq=%llu",
	    (unsigned long long)seq);
	body = xmalloc(bodylen + 1);
	for (i = 0; i < bodylen; i++)
		body[i] = (unsigned char)(seq * 31 + i);
	rv = spool_put(sp, seq, target, body, bodylen, nprof,
	    1700000000 + (int64_t)seq);
	free(body);
	return rv;
}

/* Read seq back and check it is what put() stored. */
static int
check(struct spool *sp, uint64_t seq, size_t bodylen, uint32_t nprof)
{
	char		 want[64], *target;
	unsigned char	*body;
	size_t		 len, i;
	uint32_t	 n;
	int64_t		 t;
	int		 good;

	if (spool_read(sp, seq, &target, &body, &len, &n, &t) == -1)
		return 0;
	snprintf(want, sizeof(want), "/push?seq=%llu",
	    (unsigned long long)seq);
	good = strcmp(target, want) == 0 && len == bodylen && n == nprof &&
	    t == 1700000000 + (int64_t)seq;
	for (i = 0; good && i < len; i++)
		good = body[i] == (unsigned char)(seq * 31 + i);
	free(target);
	free(body);
	return good;
}

static uint64_t
oldest(struct spool *sp)
{
	uint64_t	 seq;

	return spool_oldest(sp, &seq) == 0 ? seq : 0;
}

static void
test_roundtrip(void)
{
	struct spool		*sp;
	struct spool_stats	 st;
	struct stat		 sb;
	char			*s;

	dir = path_of("a/b/spool");
	ok((sp = spool_open(dir, 1 << 20)) != NULL, "open creates the "
	    "directory and its parents");
	ok(stat(dir, &sb) == 0 && (sb.st_mode & 0777) == 0700,
	    "the spool directory is private");
	ok(spool_oldest(sp, &(uint64_t){ 0 }) == -1, "a new spool is empty");
	syncs[0] = '\0';
	is_int(put(sp, 3, 1000, 2), 0, "put 3");
	is_str(syncs, "frd", "a request is synced, renamed, then its "
	    "directory synced");
	is_int(put(sp, 0x10, 0, 1), 0, "put 16, an empty body");
	is_int(put(sp, 9, 70000, 5), 0, "put 9, out of order");
	s = listing();
	is_str(s, ".lock 0000000000000003.req 0000000000000009.req "
	    "0000000000000010.req", "one file per request, lexical order is "
	    "sequence order, no temporary file left, and the lock");
	free(s);
	is_int(oldest(sp), 3, "the oldest is 3");
	is_int(spool_last_seq(sp), 16, "the newest is 16");
	ok(check(sp, 3, 1000, 2), "3 reads back as written");
	ok(check(sp, 9, 70000, 5), "9 reads back as written");
	ok(check(sp, 16, 0, 1), "16 reads back as written");
	spool_stats(sp, &st);
	is_int(st.files, 3, "3 files");
	is_int(st.bytes, 3 * HDR + 11 + 12 + 11 + 1000 + 70000, "their bytes");
	spool_remove(sp, 3);
	is_int(oldest(sp), 9, "after removing 3 the oldest is 9");
	ok(!exists("0000000000000003.req"), "its file is gone");
	ok(put(sp, 9, 10, 1) == 0 && check(sp, 9, 70000, 5),
	    "putting a seq again keeps the first");
	ok(spool_open(dir, 1 << 20) == NULL,
	    "a spool in use cannot be opened a second time");
	spool_close(sp);

	/* A restart: the same requests, in the same order. */
	ok((sp = spool_open(dir, 1 << 20)) != NULL, "reopen");
	is_int(oldest(sp), 9, "after a reopen the oldest is 9");
	is_int(spool_last_seq(sp), 16, "and the newest 16");
	ok(check(sp, 9, 70000, 5) && check(sp, 16, 0, 1),
	    "both read back after a reopen");
	spool_remove(sp, 9);
	spool_remove(sp, 16);
	spool_stats(sp, &st);
	ok(st.files == 0 && st.bytes == 0, "empty again");
	spool_close(sp);
	free(dir);
}

static void
test_limit(void)
{
	struct spool		*sp;
	struct spool_stats	 st;
	size_t			 one = HDR + 11 + 1000;	/* "/push?seq=N" */

	dir = path_of("limit");
	sp = spool_open(dir, 3 * one);
	ok(put(sp, 1, 1000, 1) == 0 && put(sp, 2, 1000, 2) == 0 &&
	    put(sp, 3, 1000, 3) == 0, "three requests fill the spool");
	spool_stats(sp, &st);
	is_int(st.dropped_files, 0, "nothing dropped yet");
	is_int(put(sp, 4, 1000, 4), 0, "a fourth");
	spool_stats(sp, &st);
	is_int(st.files, 3, "still three files");
	is_int(oldest(sp), 2, "the oldest, 1, was dropped");
	ok(!exists("0000000000000001.req"), "and its file removed");
	is_int(st.dropped_files, 1, "one file dropped");
	is_int(st.dropped_profiles, 1, "with its one profile");

	/* The oldest is being sent: the next oldest goes instead. */
	spool_hold(sp, 2);
	is_int(put(sp, 5, 1000, 5), 0, "a fifth while 2 is being sent");
	ok(exists("0000000000000002.req") && !exists("0000000000000003.req"),
	    "3 was dropped, not 2");
	spool_stats(sp, &st);
	is_int(st.dropped_profiles, 1 + 3, "3's profiles are counted");
	spool_remove(sp, 2);

	/* An older request coming back from a failed send is the oldest. */
	is_int(put(sp, 7, 1000, 7), 0, "7 fills the spool again");
	is_int(put(sp, 1, 1000, 1), 0, "1 again, older than all");
	spool_stats(sp, &st);
	ok(!exists("0000000000000001.req") && st.files == 3 &&
	    oldest(sp) == 4, "the oldest one is what goes when full");
	is_int(st.dropped_profiles, 1 + 3 + 1, "and it is counted");

	is_int(put(sp, 8, 5 * 1000, 8), 0, "a request bigger than the spool");
	spool_stats(sp, &st);
	ok(!exists("0000000000000008.req") && oldest(sp) == 4 &&
	    st.files == 3, "is dropped alone");
	is_int(st.dropped_profiles, 1 + 3 + 1 + 8, "and counted");

	spool_set_max(sp, one);
	spool_stats(sp, &st);
	ok(st.files == 1 && oldest(sp) == 7, "a smaller limit drops the "
	    "oldest");
	spool_close(sp);

	/* A reopen with a smaller limit too. */
	sp = spool_open(dir, 100);
	spool_stats(sp, &st);
	is_int(st.files, 0, "reopened with a tiny limit: all dropped");
	spool_close(sp);
	free(dir);
}

static void
test_corrupt(void)
{
	struct spool		*sp;
	struct spool_stats	 st;
	char			*p, *q, *target;
	unsigned char		*body;
	size_t			 len;
	uint32_t		 n;
	int64_t			 t;
	int			 fd;

	dir = path_of("corrupt");
	sp = spool_open(dir, 1 << 20);
	ok(put(sp, 1, 500, 1) == 0 && put(sp, 2, 500, 1) == 0 &&
	    put(sp, 3, 500, 1) == 0 && put(sp, 4, 500, 1) == 0,
	    "four requests");
	spool_close(sp);

	/* 1: truncated (a crash without the rename would not do this). */
	p = path_of("0000000000000001.req");
	ok(truncate(p, HDR + 200) == 0, "truncate 1");
	free(p);
	/* 2: one byte of the body altered. */
	p = path_of("0000000000000002.req");
	fd = open(p, O_WRONLY);
	ok(fd != -1 && pwrite(fd, "X", 1, HDR + 300) == 1 && close(fd) == 0,
	    "alter 2");
	free(p);
	/* 5: no header at all; 6: a link; a temporary file; a stranger. */
	write_file("0000000000000005.req", "hello", 5);
	p = path_of("0000000000000004.req");
	q = path_of("0000000000000006.req");
	ok(symlink(p, q) == 0, "link 6 to 4");
	free(p);
	free(q);
	write_file(".0000000000000007.tmp", "EBSPOOL1half", 12);
	write_file("README", "not ours", 8);
	write_file("00000000000000zz.req", "not ours", 8);

	sp = spool_open(dir, 1 << 20);
	ok(sp != NULL, "reopen");
	ok(!exists("0000000000000001.req"), "the truncated file is removed "
	    "at the scan");
	ok(!exists("0000000000000005.req"), "so is the one with no header");
	ok(!exists(".0000000000000007.tmp"), "so is the temporary file");
	ok(exists("README") && exists("00000000000000zz.req"),
	    "files that are not ours stay");
	is_int(oldest(sp), 2, "2 is the oldest indexed");
	ok(spool_read(sp, 2, &target, &body, &len, &n, &t) == -1,
	    "the altered one does not read");
	ok(!exists("0000000000000002.req"), "and is removed");
	is_int(oldest(sp), 3, "3 is next");
	ok(check(sp, 3, 500, 1) && check(sp, 4, 500, 1),
	    "the sound ones read back");
	spool_remove(sp, 3);
	spool_remove(sp, 4);
	ok(spool_oldest(sp, &(uint64_t){ 0 }) == -1,
	    "the link was never indexed");
	ok(!exists("0000000000000006.req"), "but removed");
	spool_stats(sp, &st);
	is_int(st.corrupt, 4, "four corrupt files counted");
	spool_close(sp);
	free(dir);

	dir = tmpdir;
	write_file("plainfile", "x", 1);
	p = path_of("plainfile");
	ok(spool_open(p, 1 << 20) == NULL, "a file is not a spool");
	free(p);
	ok(spool_open("", 1 << 20) == NULL, "no path, no spool");
	spool_close(NULL);
}

/* A file a daemon of spool version 1 left: read, its time its mtime. */
static void
test_version1(void)
{
	struct spool	*sp;
	struct timespec	 ts[2] = { { 1700000123, 0 }, { 1700000123, 0 } };
	unsigned char	 f[HDR + 6], *body;
	char		*p, *target;
	size_t		 len;
	uint32_t	 n, crc;
	int64_t		 t;

	dir = path_of("v1");
	sp = spool_open(dir, 1 << 20);
	spool_close(sp);
	memset(f, 0, sizeof(f));
	memcpy(f, "EBSPOOL1", 8);
	f[8] = 2;			/* target "/x" */
	f[12] = 4;			/* profiles */
	f[16] = 4;			/* body "body" */
	memcpy(f + HDR, "/xbody", 6);
	crc = crc32(crc32(0L, Z_NULL, 0), f + HDR, 6);
	f[24] = crc;
	f[25] = crc >> 8;
	f[26] = crc >> 16;
	f[27] = crc >> 24;
	write_file("0000000000000001.req", f, sizeof(f));
	p = path_of("0000000000000001.req");
	ok(utimensat(AT_FDCWD, p, ts, 0) == 0, "a version 1 file, dated");
	free(p);
	sp = spool_open(dir, 1 << 20);
	ok(spool_read(sp, 1, &target, &body, &len, &n, &t) == 0 &&
	    strcmp(target, "/x") == 0 && len == 4 && n == 4,
	    "version 1 reads");
	is_int(t, 1700000123, "its time is its modification time");
	free(target);
	free(body);
	spool_close(sp);
	free(dir);
}

static long
rss_kb(void)
{
	struct rusage	 ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Planted entries: never followed, never read whole, never a wrap. */
static void
test_hostile(void)
{
	struct spool		*sp;
	struct spool_stats	 st;
	unsigned char		 h[HDR], *body;
	char			*p, *q, *target, *outside, msg[80];
	size_t			 len;
	uint32_t		 n;
	int64_t			 t;
	long			 before;
	int			 fd;

	dir = path_of("hostile");
	sp = spool_open(dir, 4ULL << 30);
	ok(put(sp, 1, 500, 1) == 0, "one request");
	spool_close(sp);

	/* (a) A sound copy of it, named to wrap the sequence. */
	p = path_of("0000000000000001.req");
	xasprintf(&q, "cp '%s' '%s/ffffffffffffffff.req'", p, dir);
	ok(system(q) == 0, "a copy named ffffffffffffffff.req");
	free(q);
	free(p);
	/* (b) A link out of the spool, directories, a FIFO. */
	outside = path_of("../outside");
	write_file("../outside", "keep me", 7);
	ok(symlink(outside, (p = path_of("0000000000000003.req"))) == 0,
	    "a link out of the spool");
	free(p);
	ok(mkdir((p = path_of("0000000000000004.req")), 0700) == 0,
	    "an empty directory");
	free(p);
	ok(mkdir((p = path_of("0000000000000005.req")), 0700) == 0,
	    "a directory with a file");
	free(p);
	write_file("0000000000000005.req/x", "x", 1);
	ok(mkfifo((p = path_of("0000000000000006.req")), 0600) == 0,
	    "a FIFO");
	free(p);
	ok(mkdir((p = path_of(".0000000000000007.tmp")), 0700) == 0,
	    "a directory named as a temporary file");
	free(p);

	sp = spool_open(dir, 4ULL << 30);
	ok(sp != NULL, "the spool opens");
	is_int(spool_last_seq(sp), 1, "the sequence does not wrap");
	ok(exists("ffffffffffffffff.req"), "that name is not ours: it stays");
	ok(!exists("0000000000000003.req"), "the link is removed");
	ok(exists("../outside"), "not what it points to");
	ok(!exists("0000000000000004.req"), "the empty directory is removed");
	ok(!exists("0000000000000005.req") &&
	    exists(".bad.0000000000000005.req/x"),
	    "the other is moved aside, unwalked");
	ok(!exists("0000000000000006.req"), "the FIFO is removed");
	ok(!exists(".0000000000000007.tmp"), "so is the directory .tmp");
	is_int(oldest(sp), 1, "1 is the oldest");
	ok(put(sp, 0xffffffffffffffffULL, 10, 1) == -1,
	    "a seq beyond the bound is refused");

	/* (b) A link put in place of a request after the scan. */
	ok(put(sp, 2, 500, 1) == 0, "request 2");
	p = path_of("0000000000000001.req");
	ok(unlink(p) == 0 && symlink(outside, p) == 0,
	    "request 1 replaced by a link");
	free(p);
	ok(spool_read(sp, 1, &target, &body, &len, &n, &t) == -1,
	    "it does not read");
	ok(!exists("0000000000000001.req") && exists("../outside"),
	    "the link is removed, not what it points to");
	is_int(oldest(sp), 2, "2 is next: the spool is not stuck");
	ok(check(sp, 2, 500, 1), "and reads");
	spool_remove(sp, 2);

	/*
	 * (c) A sound header for a body of 1 GiB less a bit, the file
	 * sparse: refused above the body limit before any allocation.
	 */
	memset(h, 0, sizeof(h));
	memcpy(h, "EBSPOOL2", 8);
	h[8] = 2;
	h[12] = 7;
	h[19] = 0x3f;			/* 0x3f000000 bytes */
	p = path_of("0000000000000008.req");
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ok(fd != -1 && write(fd, h, sizeof(h)) == sizeof(h) &&
	    ftruncate(fd, HDR + 2 + 0x3f000000LL) == 0 && close(fd) == 0,
	    "a sparse request of 1008 MiB");
	free(p);
	spool_close(sp);
	sp = spool_open(dir, 4ULL << 30);
	spool_set_body_max(sp, 4 << 20);
	is_int(oldest(sp), 8, "it is indexed");
	before = rss_kb();
	ok(spool_read(sp, 8, &target, &body, &len, &n, &t) == -1,
	    "it does not read");
	snprintf(msg, sizeof(msg), "peak RSS %ld kB before the read, %ld "
	    "kB after", before, rss_kb());
	diag(msg);
	ok(rss_kb() - before < 16 * 1024, "nothing near its size was "
	    "allocated");
	ok(!exists("0000000000000008.req"), "it is removed");
	spool_stats(sp, &st);
	is_int(st.dropped_files, 1, "and counted as dropped");
	is_int(st.dropped_profiles, 7, "with its profiles");
	ok(spool_oldest(sp, &(uint64_t){ 0 }) == -1, "the spool is empty");
	spool_close(sp);
	free(outside);
	free(dir);
}

int
main(void)
{
	char	*cmd;

	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	dir = tmpdir;
	test_roundtrip();
	dir = tmpdir;
	test_limit();
	dir = tmpdir;
	test_corrupt();
	dir = tmpdir;
	test_version1();
	dir = tmpdir;
	test_hostile();
	xasprintf(&cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		diag("cannot remove the scratch directory");
	free(cmd);
	return done_testing();
}
