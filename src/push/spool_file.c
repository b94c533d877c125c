/*
 * The spool's files: their names, their header, and reading and writing
 * them whole.  Nothing here trusts what it reads.
 *
 * File "<16 hex digits>.req":
 *	0	"EBSPOOL2" ("EBSPOOL1": the same, time zero)
 *	8	target length (uint32, little endian)
 *	12	profiles in the request (uint32)
 *	16	body length (uint64)
 *	24	crc32 of target and body (uint32)
 *	28	the profiles' time, seconds since the epoch; 0: unknown
 *		(uint32)
 *	32	target, then body
 */
#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool_file.h"
#include "util/xmalloc.h"

void
spool_file_le32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

uint32_t
spool_file_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

uint64_t
spool_file_get64(const unsigned char *p)
{
	return (uint64_t)spool_file_get32(p) |
	    (uint64_t)spool_file_get32(p + 4) << 32;
}

void
spool_file_name(char *buf, size_t len, uint64_t seq, int tmp)
{
	if (tmp)
		snprintf(buf, len, ".%016" PRIx64 ".tmp", seq);
	else
		snprintf(buf, len, "%016" PRIx64 ".req", seq);
}

/* "<16 lowercase hex digits>.req" -> seq; anything else is not ours. */
int
spool_file_parse_name(const char *name, uint64_t *seq)
{
	uint64_t	 v = 0;
	int		 i, c;

	if (strlen(name) != SPOOL_NAME_LEN || strcmp(name + 16, ".req") != 0)
		return -1;
	for (i = 0; i < 16; i++) {
		c = (unsigned char)name[i];
		if (c >= '0' && c <= '9')
			v = v << 4 | (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (c - 'a' + 10);
		else
			return -1;
	}
	*seq = v;
	return 0;
}

/* Check a header against the size of its file; 0 if it is sound. */
int
spool_file_check_header(const unsigned char *h, uint64_t size,
    uint32_t *tlen, uint64_t *blen)
{
	if (memcmp(h, SPOOL_MAGIC, 8) != 0 &&
	    (memcmp(h, SPOOL_MAGIC_V1, 8) != 0 ||
	    spool_file_get32(h + 28) != 0))
		return -1;
	*tlen = spool_file_get32(h + 8);
	*blen = spool_file_get64(h + 16);
	if (*tlen == 0 || *tlen > SPOOL_TARGET_MAX || *blen > SPOOL_BODY_MAX)
		return -1;
	if (size != SPOOL_HDR + (uint64_t)*tlen + *blen)
		return -1;
	return 0;
}

int
spool_file_mkdirs(const char *path)
{
	char	*p, *s;
	int	 rc = 0;

	p = xstrdup(path);
	for (s = p + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0750) == -1 && errno != EEXIST) {
			rc = -1;
			break;
		}
		*s = '/';
	}
	if (rc == 0 && mkdir(p, 0700) == -1 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

int
spool_file_write_all(int fd, struct iovec *iov, int iovcnt)
{
	ssize_t	 w;

	while (iovcnt > 0) {
		if ((w = writev(fd, iov, iovcnt)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (iovcnt > 0 && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

int
spool_file_pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t	 got = 0;
	ssize_t	 r;

	while (got < len) {
		r = pread(fd, (char *)buf + got, len - got, off + got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += r;
	}
	return 0;
}
