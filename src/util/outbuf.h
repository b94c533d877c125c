#ifndef EBPFSPY_OUTBUF_H
#define EBPFSPY_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * A growable byte buffer the sink writers format into, then hand to
 * stdio in large pieces: a flame graph or a folded file is tens of
 * thousands of short items, and printf() and putc() per item cost a
 * round more than the layout itself.  Numbers are written as integers
 * or as fixed point (an integer count of 10^-decimals), never through
 * floating point.  Start from an all-zero struct outbuf.
 */
struct outbuf {
	char	*buf;
	size_t	 len;
	size_t	 cap;
};

/* A string literal, its length known at compile time. */
#define OUTBUF_LIT(ob, lit)	outbuf_add((ob), (lit), sizeof(lit) - 1)

void	 outbuf_grow(struct outbuf *, size_t);
void	 outbuf_u64(struct outbuf *, uint64_t);
void	 outbuf_fixed(struct outbuf *, uint64_t, unsigned int);
/* Write what is held to the file and empty it: 0, or -1 with errno. */
int	 outbuf_flush(struct outbuf *, FILE *);
void	 outbuf_free(struct outbuf *);

static inline void
outbuf_add(struct outbuf *ob, const void *p, size_t n)
{
	if (ob->cap - ob->len < n)
		outbuf_grow(ob, n);
	memcpy(ob->buf + ob->len, p, n);
	ob->len += n;
}

static inline void
outbuf_str(struct outbuf *ob, const char *s)
{
	outbuf_add(ob, s, strlen(s));
}

static inline void
outbuf_char(struct outbuf *ob, char c)
{
	if (ob->len == ob->cap)
		outbuf_grow(ob, 1);
	ob->buf[ob->len++] = c;
}

#endif
