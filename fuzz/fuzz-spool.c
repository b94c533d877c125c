/*
 * The Pyroscope spool: files in the spool directory are read back after
 * a restart, so whatever is found there (a damaged or planted file) must
 * be refused or replayed, never crash the daemon.  The input is one file
 * of the spool, 0000000000000001.req.  Its first byte says what to fix
 * first, so that the fuzzer gets past the checks: bit 0 the sizes in
 * the header, bit 1 the checksum; bits 2-3 pick the size limit, bits
 * 4-5 the body limit (a request above it is dropped unread).
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz.h"
#include "push/spool.h"

#define FUZZ_SPOOL_HDR	32

static char	 fuzz_spool[PATH_MAX], fuzz_req[PATH_MAX + 32];

void
fuzz_setup(void)
{
	snprintf(fuzz_spool, sizeof(fuzz_spool), "%s/spool", fuzz_tmpdir());
	snprintf(fuzz_req, sizeof(fuzz_req), "%s/0000000000000001.req",
	    fuzz_spool);
}

static void
fuzz_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t
fuzz_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const uint64_t	 maxes[] = { 1 << 20, 100, 0, UINT64_MAX };
	static const uint64_t	 bodies[] = { UINT64_MAX, 0, 16, 4096 };
	struct spool_stats	 st;
	struct spool		*sp;
	uint8_t			*f;
	unsigned char		*body;
	char			*target;
	uint64_t		 seq, blen;
	uint32_t		 tlen, np;
	int64_t			 t;
	size_t			 flen, blenz;
	uLong			 crc;
	int			 how;

	if (len < 1)
		return 0;
	how = data[0];
	flen = len - 1;
	if ((f = malloc(flen > 0 ? flen : 1)) == NULL)
		abort();
	memcpy(f, data + 1, flen);
	if (flen >= FUZZ_SPOOL_HDR) {
		tlen = fuzz_get32(f + 8);
		if ((how & 1) && tlen <= flen - FUZZ_SPOOL_HDR) {
			blen = flen - FUZZ_SPOOL_HDR - tlen;
			fuzz_le32(f + 16, blen);
			fuzz_le32(f + 20, blen >> 32);
		}
		blen = fuzz_get32(f + 16) | (uint64_t)fuzz_get32(f + 20) << 32;
		if ((how & 2) && tlen <= flen - FUZZ_SPOOL_HDR &&
		    blen <= flen - FUZZ_SPOOL_HDR - tlen) {
			crc = crc32(0L, Z_NULL, 0);
			crc = crc32(crc, f + FUZZ_SPOOL_HDR, tlen);
			crc = crc32(crc, f + FUZZ_SPOOL_HDR + tlen, blen);
			fuzz_le32(f + 24, crc);
		}
	}

	fuzz_empty_dir(fuzz_tmpdir());
	mkdir(fuzz_spool, 0700);
	if (fuzz_write_file(fuzz_req, f, flen) == -1)
		abort();
	free(f);
	if ((sp = spool_open(fuzz_spool, maxes[(how >> 2) & 3])) == NULL)
		abort();
	spool_set_body_max(sp, bodies[(how >> 4) & 3]);
	while (spool_oldest(sp, &seq) == 0) {
		if (spool_read(sp, seq, &target, &body, &blenz, &np, &t) == 0) {
			if (strlen(target) == 0)
				abort();
			free(target);
			free(body);
		}
		spool_remove(sp, seq);
	}
	/* A new request beside what was found: the size limit holds. */
	spool_put(sp, spool_last_seq(sp) + 1, "/ingest?name=x", "body", 4, 1,
	    1700000000);
	spool_set_max(sp, 10);
	spool_stats(sp, &st);
	spool_close(sp);
	return 0;
}
