/*
 * The sink writers' output buffer: see outbuf.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "outbuf.h"
#include "xmalloc.h"

#define OUTBUF_MIN	(64 * 1024)

/* Room for at least n more bytes. */
void
outbuf_grow(struct outbuf *ob, size_t n)
{
	size_t	 cap = ob->cap > 0 ? ob->cap : OUTBUF_MIN;

	while (cap - ob->len < n) {
		if (cap > SIZE_MAX / 2)
			fatalx("outbuf: %zu bytes too large", ob->len + n);
		cap *= 2;
	}
	if (cap != ob->cap) {
		ob->buf = xreallocarray(ob->buf, cap, 1);
		ob->cap = cap;
	}
}

/* An unsigned integer in decimal. */
void
outbuf_u64(struct outbuf *ob, uint64_t v)
{
	outbuf_fixed(ob, v, 0);
}

/*
 * v / 10^decimals with exactly that many decimals, as printf's "%.Nf"
 * writes a value already rounded to them: 1234 with 2 is "12.34", 5
 * with 3 is "0.005".
 */
void
outbuf_fixed(struct outbuf *ob, uint64_t v, unsigned int decimals)
{
	char	 d[24];
	size_t	 n = sizeof(d);
	unsigned int i;

	if (decimals > 18)
		decimals = 18;
	for (i = 0; i < decimals; i++) {
		d[--n] = '0' + v % 10;
		v /= 10;
	}
	if (decimals > 0)
		d[--n] = '.';
	do {
		d[--n] = '0' + v % 10;
		v /= 10;
	} while (v > 0);
	outbuf_add(ob, d + n, sizeof(d) - n);
}

int
outbuf_flush(struct outbuf *ob, FILE *f)
{
	if (ob->len > 0 && fwrite(ob->buf, 1, ob->len, f) != ob->len) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	ob->len = 0;
	return 0;
}

void
outbuf_free(struct outbuf *ob)
{
	free(ob->buf);
	ob->buf = NULL;
	ob->len = ob->cap = 0;
}
