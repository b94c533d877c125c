/*
 * Separate debug information: the debug file of a stripped file, found
 * by build id or by .gnu_debuglink, and MiniDebugInfo, the xz-compressed
 * ELF file in .gnu_debugdata.
 *
 * By build id, each debug directory D holds
 * D/.build-id/xx/yyyy.debug, xx the first byte of the id in hex and yyyy
 * the rest.  By .gnu_debuglink NAME, as gdb looks: DIR/NAME,
 * DIR/.debug/NAME and D/DIR/NAME, DIR the directory of the file.  A
 * process in a container has its debug files in its own root: every
 * path is tried in that root first (proc_root.c: resolved inside it, so
 * a symlink there cannot lead out of it), then on the host.
 *
 * Every candidate is untrusted: it must be a regular file, an ELF file
 * we can read, with the same build id (by build id), or the CRC-32 the
 * link names and, when both files have one, the same build id (by
 * .gnu_debuglink).  A file already read for the same binary is never
 * read again, and the caller follows at most DEBUGINFO_DEPTH_MAX links,
 * so a loop of links ends.
 *
 * MiniDebugInfo is decompressed with liblzma into memory, with a memory
 * limit for the decoder and the caller's limit on the input and the
 * output (max_debugdata_bytes), whatever the stream claims.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "debuginfo.h"
#include "elf.h"
#include "util/log.h"
#include "proc/proc_root.h"
#include "util/xmalloc.h"

#define DEBUGINFO_CRC_CHUNK	(64 * 1024)
/* No debug file is this big; a file that claims to be is not read. */
#define DEBUGINFO_FILE_MAX	(8ULL * 1024 * 1024 * 1024)
#define DEBUGINFO_MINI_OUT_MAX	(128 * 1024 * 1024)
#define DEBUGINFO_LZMA_MEMLIMIT	(64 * 1024 * 1024)

struct debuginfo_want {
	const uint8_t	*build_id;	/* NULL: any (or none) */
	size_t		 build_id_len;
	int		 by_crc;
	uint32_t	 crc;
	int		 rel_ok;	/* dwz's supplementary file */
};

void
debuginfo_seen_add(struct debuginfo_seen *seen, dev_t dev, ino_t ino)
{
	if (seen->n < sizeof(seen->v) / sizeof(seen->v[0])) {
		seen->v[seen->n].dev = dev;
		seen->v[seen->n].ino = ino;
		seen->n++;
	}
}

static int
debuginfo_seen_has(const struct debuginfo_seen *seen, dev_t dev, ino_t ino)
{
	size_t	 i;

	for (i = 0; i < seen->n; i++)
		if (seen->v[i].dev == dev && seen->v[i].ino == ino)
			return 1;
	return 0;
}

/* The CRC-32 of the whole file, as .gnu_debuglink has it (zlib's). */
int
debuginfo_crc32(int fd, uint32_t *out)
{
	unsigned char	*buf;
	uLong		 crc;
	off_t		 off = 0;
	ssize_t		 n;

	buf = xmalloc(DEBUGINFO_CRC_CHUNK);
	crc = crc32(0L, Z_NULL, 0);
	for (;;) {
		n = pread(fd, buf, DEBUGINFO_CRC_CHUNK, off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		crc = crc32(crc, buf, n);
		off += n;
		if ((uint64_t)off > DEBUGINFO_FILE_MAX) {
			n = -1;
			break;
		}
	}
	free(buf);
	if (n == -1)
		return -1;
	*out = crc;
	return 0;
}

/* Open path as a debug file if it is what we want. */
static int
debuginfo_check(struct debuginfo_file *df, int fd, const char *path,
    const struct debuginfo_want *w, struct debuginfo_seen *seen)
{
	struct stat	 sb;
	struct elf_file	*ef;
	uint8_t		 id[ELF_FILE_BUILD_ID_MAX];
	size_t		 idlen;
	uint32_t	 crc;
	int		 has_id;

	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) || sb.st_size == 0 ||
	    (uint64_t)sb.st_size > DEBUGINFO_FILE_MAX ||
	    debuginfo_seen_has(seen, sb.st_dev, sb.st_ino))
		return -1;
	if (w->by_crc && (debuginfo_crc32(fd, &crc) == -1 || crc != w->crc)) {
		log_debug("%s: CRC does not match the debug link", path);
		return -1;
	}
	if ((ef = elf_file_open_rel(fd, w->rel_ok)) == NULL) {
		log_debug("%s: not an ELF file we can read", path);
		return -1;
	}
	has_id = elf_file_build_id(ef, id, sizeof(id), &idlen) == 0;
	if (w->build_id != NULL && (!w->by_crc || has_id) &&
	    (!has_id || idlen != w->build_id_len ||
	    memcmp(id, w->build_id, idlen) != 0)) {
		log_debug("%s: not the build id of the file", path);
		elf_file_close(ef);
		return -1;
	}
	debuginfo_seen_add(seen, sb.st_dev, sb.st_ino);
	df->fd = fd;
	df->ef = ef;
	return 0;
}

/* Try path through the process's root, then on the host. */
static int
debuginfo_try(struct debuginfo_file *df, const char *path,
    const struct debuginfo_ctx *ctx, int host, const struct debuginfo_want *w,
    struct debuginfo_seen *seen)
{
	struct stat	 sb;
	int		 fd, pass;

	for (pass = 0; pass < 2; pass++) {
		if (pass == 0 && ctx->pid <= 0)
			continue;
		if (pass == 1 && !host)
			continue;
		fd = proc_root_open(pass == 0 ? ctx->pid : 0, path, &sb);
		if (fd == -1)
			continue;
		if (debuginfo_check(df, fd, path, w, seen) == 0) {
			log_debug("%s%s: debug file", pass == 0 ? "[root] " :
			    "", path);
			return 0;
		}
		close(fd);
	}
	return -1;
}

/* Is the process's root our own?  Then the host need not be tried. */
static int
debuginfo_root_is_host(pid_t pid)
{
	struct stat	 a, b;
	char		 path[64];

	if (pid <= 0)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if (stat(path, &a) == -1 || stat("/", &b) == -1)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The next directory of dirs into buf; NULL after the last. */
static const char *
debuginfo_next_dir(const char *dirs, char *buf, size_t len)
{
	const char	*end;
	size_t		 n;

	while (*dirs == ':')
		dirs++;
	if (*dirs == '\0')
		return NULL;
	end = strchr(dirs, ':');
	n = end != NULL ? (size_t)(end - dirs) : strlen(dirs);
	if (n >= len)
		n = 0;		/* too long: skipped (refused by the check) */
	memcpy(buf, dirs, n);
	buf[n] = '\0';
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	return end != NULL ? end : dirs + strlen(dirs);
}

static int
debuginfo_by_build_id(struct debuginfo_file *df, const uint8_t *id,
    size_t len, const struct debuginfo_ctx *ctx, int host, int rel_ok,
    struct debuginfo_seen *seen)
{
	struct debuginfo_want	 w;
	const char		*p;
	char			 dir[PATH_MAX], path[2 * PATH_MAX];
	char			 hex[2 * ELF_FILE_BUILD_ID_MAX + 1];
	size_t			 i;

	if (len < 2 || len > ELF_FILE_BUILD_ID_MAX || ctx->dirs == NULL)
		return -1;
	for (i = 1; i < len; i++)
		snprintf(hex + 2 * (i - 1), 3, "%02x", id[i]);
	memset(&w, 0, sizeof(w));
	w.build_id = id;
	w.build_id_len = len;
	w.rel_ok = rel_ok;
	for (p = ctx->dirs; (p = debuginfo_next_dir(p, dir, sizeof(dir))) !=
	    NULL;) {
		if (dir[0] != '/')
			continue;
		snprintf(path, sizeof(path), "%s/.build-id/%02x/%s.debug",
		    dir, id[0], hex);
		if (debuginfo_try(df, path, ctx, host, &w, seen) == 0) {
			df->how = "build-id";
			return 0;
		}
	}
	return -1;
}

static int
debuginfo_by_link(struct debuginfo_file *df, struct elf_file *ef,
    const uint8_t *id, size_t len, const struct debuginfo_ctx *ctx,
    int host, struct debuginfo_seen *seen)
{
	struct debuginfo_want	 w;
	const char		*p, *slash;
	char			 name[ELF_FILE_DEBUGLINK_MAX];
	char			 dir[PATH_MAX], fdir[PATH_MAX], path[3 * PATH_MAX];
	size_t			 n;
	int			 i;

	if (elf_section_debuglink(ef, name, sizeof(name), &w.crc) == -1)
		return -1;
	if (ctx->path == NULL || ctx->path[0] != '/' ||
	    (slash = strrchr(ctx->path, '/')) == NULL ||
	    (n = slash - ctx->path) >= sizeof(fdir))
		return -1;
	memcpy(fdir, ctx->path, n);
	fdir[n] = '\0';
	w.build_id = len > 0 ? id : NULL;
	w.build_id_len = len;
	w.by_crc = 1;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), i == 0 ? "%s/%s" : "%s/.debug/%s",
		    fdir, name);
		if (debuginfo_try(df, path, ctx, host, &w, seen) == 0)
			goto found;
	}
	for (p = ctx->dirs; p != NULL && (p = debuginfo_next_dir(p, dir,
	    sizeof(dir))) != NULL;) {
		if (dir[0] != '/')
			continue;
		snprintf(path, sizeof(path), "%s%s/%s",
		    strcmp(dir, "/") == 0 ? "" : dir, fdir, name);
		if (debuginfo_try(df, path, ctx, host, &w, seen) == 0)
			goto found;
	}
	return -1;
found:
	df->how = "debuglink";
	return 0;
}

/*
 * The debug file for ef, whose build id (of the stripped file we are
 * naming) is id: by build id, else by ef's .gnu_debuglink.  0 with df
 * filled in, or -1.
 */
int
debuginfo_find(struct debuginfo_file *df, struct elf_file *ef,
    const uint8_t *id, size_t len, const struct debuginfo_ctx *ctx,
    struct debuginfo_seen *seen)
{
	int	 host;

	memset(df, 0, sizeof(*df));
	df->fd = -1;
	if (ctx->dirs == NULL)
		return -1;
	host = ctx->pid <= 0 || !debuginfo_root_is_host(ctx->pid);
	if (len > 0 && debuginfo_by_build_id(df, id, len, ctx, host, 0,
	    seen) == 0)
		return 0;
	return debuginfo_by_link(df, ef, id, len, ctx, host, seen);
}

/*
 * The dwz supplementary file of the debug file ef: .gnu_debugaltlink
 * names it (a path, then its build id), found by that build id in the
 * debug directories, else at that path if it is absolute; its build id
 * must match either way.  0 with df filled in, or -1.
 */
int
debuginfo_find_alt(struct debuginfo_file *df, struct elf_file *ef,
    const struct debuginfo_ctx *ctx, struct debuginfo_seen *seen)
{
	struct debuginfo_want	 w;
	struct elf_file_scn	 scn;
	char			*p;
	size_t			 n;
	int			 host, rc = -1;

	memset(df, 0, sizeof(*df));
	df->fd = -1;
	if (elf_section_find(ef, ".gnu_debugaltlink", &scn) == -1 ||
	    scn.size < 2 || (p = elf_section_data(ef, &scn,
	    PATH_MAX + ELF_FILE_BUILD_ID_MAX)) == NULL)
		return -1;
	memset(&w, 0, sizeof(w));
	if ((n = strnlen(p, scn.size)) == scn.size ||
	    (w.build_id_len = scn.size - n - 1) == 0 ||
	    w.build_id_len > ELF_FILE_BUILD_ID_MAX)
		goto done;
	w.build_id = (const uint8_t *)p + n + 1;
	host = ctx->pid <= 0 || !debuginfo_root_is_host(ctx->pid);
	w.rel_ok = 1;
	if (ctx->dirs != NULL && debuginfo_by_build_id(df, w.build_id,
	    w.build_id_len, ctx, host, 1, seen) == 0) {
		rc = 0;
	} else if (p[0] == '/' && debuginfo_try(df, p, ctx, host, &w,
	    seen) == 0) {
		df->how = "altlink";
		rc = 0;
	}
done:
	free(p);
	return rc;
}

void
debuginfo_close(struct debuginfo_file *df)
{
	if (df == NULL)
		return;
	elf_file_close(df->ef);
	df->ef = NULL;
	if (df->fd != -1)
		close(df->fd);
	df->fd = -1;
}

/*
 * MiniDebugInfo: the decompressed contents of .gnu_debugdata, an ELF
 * file with a .symtab of the functions .dynsym lacks.  NULL when there
 * is none, or it is damaged, or (errno EFBIG) bigger than max bytes,
 * compressed or not: a few KB of xz can claim gigabytes.
 */
void *
debuginfo_mini(struct elf_file *ef, size_t max, size_t *outlen)
{
	lzma_stream		 strm = LZMA_STREAM_INIT;
	struct elf_file_scn	 sc;
	lzma_ret		 ret;
	uint8_t			*in, *out = NULL;
	size_t			 cap;

	if (max == 0 || max > DEBUGINFO_MINI_OUT_MAX)
		max = DEBUGINFO_MINI_OUT_MAX;
	if (elf_section_find(ef, ".gnu_debugdata", &sc) == -1) {
		errno = ENOENT;
		return NULL;
	}
	if (sc.size > max) {
		errno = EFBIG;
		return NULL;
	}
	if ((in = elf_section_data(ef, &sc, max)) == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (lzma_stream_decoder(&strm, DEBUGINFO_LZMA_MEMLIMIT, 0) !=
	    LZMA_OK) {
		free(in);
		return NULL;
	}
	cap = sc.size * 4 < 64 * 1024 ? 64 * 1024 : sc.size * 4;
	if (cap > max)
		cap = max;
	out = xmalloc(cap);
	strm.next_in = in;
	strm.avail_in = sc.size;
	strm.next_out = out;
	strm.avail_out = cap;
	for (;;) {
		ret = lzma_code(&strm, LZMA_FINISH);
		if (ret == LZMA_STREAM_END)
			break;
		/* LZMA_BUF_ERROR: no progress, the input is cut short. */
		if (ret != LZMA_OK)
			goto bad;
		if (strm.avail_out > 0)
			continue;
		if (cap >= max) {
			log_debug(".gnu_debugdata: more than %zu bytes", max);
			lzma_end(&strm);
			free(in);
			free(out);
			errno = EFBIG;
			return NULL;
		}
		cap = cap * 2 > max ? max : cap * 2;
		out = xreallocarray(out, cap, 1);
		strm.next_out = out + strm.total_out;
		strm.avail_out = cap - strm.total_out;
	}
	*outlen = strm.total_out;
	lzma_end(&strm);
	free(in);
	return out;
bad:
	log_debug(".gnu_debugdata: cannot decompress (liblzma %d)", (int)ret);
	lzma_end(&strm);
	free(in);
	free(out);
	/* A dictionary over the memory limit is a bound too. */
	errno = ret == LZMA_MEMLIMIT_ERROR ? EFBIG : EINVAL;
	return NULL;
}

/* debug_dirs: absolute directories, separated by colons. */
const char *
debuginfo_dirs_check(const char *v)
{
	const char	*p, *end;
	size_t		 n;

	for (p = v; *p != '\0'; p = *end == ':' ? end + 1 : end) {
		end = p + strcspn(p, ":");
		n = end - p;
		if (n == 0)
			continue;
		if (*p != '/')
			return "expected absolute directories separated by "
			    "colons";
		if (n >= PATH_MAX / 2)
			return "directory name too long";
	}
	return NULL;
}
