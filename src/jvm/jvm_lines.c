/*
 * HotSpot's compressed streams (compressedStream.hpp, unsigned5.hpp):
 * numbers in UNSIGNED5, base-64 digits, little end first, a byte of
 * 192 or more saying another follows, at most five bytes.  JDK 20
 * stores every byte +1 so that a zero never occurs: without the shift,
 * JDK 25's Busy.main@66 decoded as line -12 here, with it as 25.
 *
 * A method's line table follows its bytecodes: 0 ends it, 0xff is
 * followed by two signed deltas (bci, line), any other byte b adds
 * b >> 3 to the bci and b & 7 to the line.  A compiled method's debug
 * information is its PcDescs (a pc, the offset of its scope) and its
 * scopes (the caller's scope, the Method, the bci + 1), the innermost
 * first: inlined methods are scopes too.
 */
#include <stddef.h>
#include <stdint.h>

#include "jvm_lines.h"

#define JVM_U5_L	192	/* bytes below end a number */
#define JVM_U5_MAX	5
#define JVM_LINES_MAX	(1 << 20)	/* entries of one table */

int
jvm_lines_unsigned5(const uint8_t *p, size_t len, size_t *pos, int x,
    uint32_t *v)
{
	uint64_t	 sum = 0;
	uint32_t	 b;
	int		 i, shift = 0;

	for (i = 0; i < JVM_U5_MAX; i++) {
		if (*pos >= len)
			return -1;
		b = p[(*pos)++];
		if (b < (uint32_t)x)
			return -1;
		b -= x;
		sum += (uint64_t)b << shift;
		if (b < JVM_U5_L || i == JVM_U5_MAX - 1)
			break;
		shift += 6;
	}
	if (sum > UINT32_MAX)
		return -1;
	*v = sum;
	return 0;
}

int
jvm_lines_signed5(const uint8_t *p, size_t len, size_t *pos, int x,
    int32_t *v)
{
	uint32_t	 u;

	if (jvm_lines_unsigned5(p, len, pos, x, &u) == -1)
		return -1;
	*v = (int32_t)((u >> 1) ^ -(u & 1));
	return 0;
}

/*
 * Walk a table, calling nothing: the entries in order, bci and line
 * summed, until the end byte.  The entry count is bounded, so a table
 * of garbage ends.
 */
static int
jvm_lines_next(const uint8_t *t, size_t len, size_t *pos, int x, int *bci,
    int *line)
{
	int32_t	 db, dl;
	uint8_t	 b;

	if (*pos >= len)
		return -1;
	if ((b = t[(*pos)++]) == 0)
		return 0;
	if (b == 0xff) {
		if (jvm_lines_signed5(t, len, pos, x, &db) == -1 ||
		    jvm_lines_signed5(t, len, pos, x, &dl) == -1)
			return -1;
	} else {
		db = b >> 3;
		dl = b & 7;
	}
	*bci += db;
	*line += dl;
	return 1;
}

size_t
jvm_lines_table_len(const uint8_t *t, size_t len, int x)
{
	size_t	 pos = 0, n;
	int	 bci = 0, line = 0, r;

	for (n = 0; n < JVM_LINES_MAX; n++) {
		if ((r = jvm_lines_next(t, len, &pos, x, &bci, &line)) == -1)
			return 0;
		if (r == 0)
			return pos;
	}
	return 0;
}

/* As Method::line_number_from_bci: the entry of the greatest bci <= it. */
int
jvm_lines_line(const uint8_t *t, size_t len, int x, int bci)
{
	size_t	 pos = 0, n;
	int	 b = 0, line = 0, best = -1, best_line = -1, r;

	for (n = 0; n < JVM_LINES_MAX; n++) {
		if ((r = jvm_lines_next(t, len, &pos, x, &b, &line)) != 1)
			break;
		if (b == bci)
			return line;
		if (b < bci && b >= best) {
			best = b;
			best_line = line;
		}
	}
	return best_line;
}

int
jvm_lines_pcdesc(const struct jvm_pcdesc *pd, size_t n, int32_t off,
    int leaf)
{
	size_t	 lo = 0, hi = n, mid;
	int32_t	 want = leaf ? off + 1 : off;

	/* The first at or after want: they are sorted by pc. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pd[mid].pc < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? (int)lo : -1;
}

int
jvm_lines_scope(const uint8_t *data, size_t len, uint32_t off, int x,
    struct jvm_scope *sc)
{
	size_t		 pos = off;
	uint32_t	 bci;

	if (off == 0 || off >= len)
		return -1;
	if (jvm_lines_unsigned5(data, len, &pos, x, &sc->next) == -1 ||
	    jvm_lines_unsigned5(data, len, &pos, x, &sc->method) == -1 ||
	    jvm_lines_unsigned5(data, len, &pos, x, &bci) == -1)
		return -1;
	/* A caller's scope comes before: a forward one is no scope. */
	if (sc->next >= off || sc->method == 0 || bci > 0xffff + 1)
		return -1;
	sc->bci = (int)bci - 1;
	return 0;
}
