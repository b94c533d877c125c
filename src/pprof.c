/*
 * pprof output: the profile as a perftools.profiles.Profile message,
 * gzipped by zlib, as go tool pprof and Pyroscope read it.
 *
 * The profile's interned names are the start of the string table as
 * they are (id 0 is ""), so frames need no translation.  Each distinct
 * name used by a stack becomes one Function and one Location with the
 * same id, numbered in order of first use: there are no addresses or
 * mappings to tell two locations of one function apart.  Strings the
 * encoder needs besides the names (the value type, the comments) are
 * appended after them, reusing a name when one is equal.
 *
 * The message is written directly in the protobuf wire format (proto3:
 * fields in order, scalars of 0 left out, repeated numbers packed), the
 * bytes protobuf-c packs, without building its structures: one Sample
 * per stack, built and packed, cost a round as much as the gzip.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "log.h"
#include "outbuf.h"
#include "pprof.h"
#include "profile.h"
#include "xmalloc.h"

/* Wire types. */
#define PPROF_VARINT	0
#define PPROF_LEN	2

/* Fields of the messages written. */
#define PPROF_PROFILE_SAMPLE_TYPE	1
#define PPROF_PROFILE_SAMPLE		2
#define PPROF_PROFILE_LOCATION		4
#define PPROF_PROFILE_FUNCTION		5
#define PPROF_PROFILE_STRING_TABLE	6
#define PPROF_PROFILE_TIME_NANOS	9
#define PPROF_PROFILE_DURATION_NANOS	10
#define PPROF_PROFILE_PERIOD_TYPE	11
#define PPROF_PROFILE_PERIOD		12
#define PPROF_PROFILE_COMMENT		13
#define PPROF_VALUE_TYPE_TYPE		1
#define PPROF_VALUE_TYPE_UNIT		2
#define PPROF_SAMPLE_LOCATION_ID	1
#define PPROF_SAMPLE_VALUE		2
#define PPROF_SAMPLE_LABEL		3
#define PPROF_LABEL_KEY			1
#define PPROF_LABEL_STR			2
#define PPROF_LOCATION_ID		1
#define PPROF_LOCATION_LINE		4
#define PPROF_LINE_FUNCTION_ID		1
#define PPROF_FUNCTION_ID		1
#define PPROF_FUNCTION_NAME		2
#define PPROF_FUNCTION_SYSTEM_NAME	3

/* One encoding. */
struct pprof_enc {
	const struct profile	 *p;
	uint32_t		 *fid;	/* string id -> function id */
	uint32_t		 *byfid;	/* function id - 1 -> string id */
	size_t			  nfunc;
	/* Strings appended after the profile's names, owned. */
	char			**extra;
	size_t			  nextra;
};

static int64_t	pprof_string(struct pprof_enc *, const char *);
static int64_t	pprof_value(const struct profile *, uint64_t);
static void	pprof_varint(struct outbuf *, uint64_t);
static void	pprof_key(struct outbuf *, unsigned int, unsigned int);
static void	pprof_int(struct outbuf *, unsigned int, uint64_t);
static void	pprof_nested(struct outbuf *, unsigned int,
		    const struct outbuf *);
static void	pprof_value_type(struct outbuf *, unsigned int, int64_t,
		    int64_t);
static void	pprof_functions(struct pprof_enc *);
static void	pprof_samples(struct pprof_enc *, struct outbuf *);
static void	pprof_tables(struct pprof_enc *, struct outbuf *);
static int	pprof_gzip(const unsigned char *, size_t, unsigned char **,
		    size_t *);

static int64_t
pprof_string(struct pprof_enc *e, const char *str)
{
	uint32_t	 id;
	size_t		 i;

	if (profile_string_find(e->p, str, &id) == 0)
		return id;
	for (i = 0; i < e->nextra; i++)
		if (strcmp(e->extra[i], str) == 0)
			return profile_nstrings(e->p) + i;
	e->extra = xreallocarray(e->extra, e->nextra + 1, sizeof(*e->extra));
	e->extra[e->nextra] = xstrdup(str);
	return profile_nstrings(e->p) + e->nextra++;
}

/* cpu stacks count samples; pprof wants time, so scale by the period. */
static int64_t
pprof_value(const struct profile *p, uint64_t v)
{
	uint64_t	 r;

	if (profile_type(p) != PROFILE_TYPE_CPU)
		r = v;
	else if (__builtin_mul_overflow(v, profile_period(p), &r))
		return INT64_MAX;
	return r > INT64_MAX ? INT64_MAX : (int64_t)r;
}

static int
pprof_gzip(const unsigned char *in, size_t inlen, unsigned char **out,
    size_t *outlen)
{
	z_stream	 zs;
	unsigned char	*buf;
	uLong		 bound;
	int		 rv;

	*out = NULL;
	if (inlen > UINT_MAX) {
		log_warnx("pprof: profile of %zu bytes too large", inlen);
		return -1;
	}
	memset(&zs, 0, sizeof(zs));
	/*
	 * windowBits 15 + 16 asks for a gzip wrapper.  Fastest level: the
	 * encoder runs on the event loop, and on a profile's repetitive
	 * tables it compresses nearly as well as the default.
	 */
	if ((rv = deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY)) != Z_OK) {
		log_warnx("pprof: deflateInit2: %s", zError(rv));
		return -1;
	}
	bound = deflateBound(&zs, inlen);
	buf = xmalloc(bound);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = inlen;
	zs.next_out = buf;
	zs.avail_out = bound;
	/* deflateBound() is enough for one Z_FINISH call. */
	if ((rv = deflate(&zs, Z_FINISH)) != Z_STREAM_END) {
		log_warnx("pprof: deflate: %s", zs.msg != NULL ? zs.msg :
		    zError(rv));
		deflateEnd(&zs);
		free(buf);
		return -1;
	}
	*outlen = zs.total_out;
	deflateEnd(&zs);
	*out = buf;
	return 0;
}

static void
pprof_varint(struct outbuf *ob, uint64_t v)
{
	unsigned char	 b[10];
	size_t		 n = 0;

	while (v >= 0x80) {
		b[n++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	b[n++] = v;
	outbuf_add(ob, b, n);
}

static void
pprof_key(struct outbuf *ob, unsigned int field, unsigned int wire)
{
	pprof_varint(ob, (uint64_t)field << 3 | wire);
}

/* A number field; 0 is proto3's default, not written. */
static void
pprof_int(struct outbuf *ob, unsigned int field, uint64_t v)
{
	if (v == 0)
		return;
	pprof_key(ob, field, PPROF_VARINT);
	pprof_varint(ob, v);
}

/* A message, or packed numbers, held in sub. */
static void
pprof_nested(struct outbuf *ob, unsigned int field, const struct outbuf *sub)
{
	pprof_key(ob, field, PPROF_LEN);
	pprof_varint(ob, sub->len);
	outbuf_add(ob, sub->buf, sub->len);
}

static void
pprof_value_type(struct outbuf *ob, unsigned int field, int64_t type,
    int64_t unit)
{
	struct outbuf	 m;

	memset(&m, 0, sizeof(m));
	pprof_int(&m, PPROF_VALUE_TYPE_TYPE, type);
	pprof_int(&m, PPROF_VALUE_TYPE_UNIT, unit);
	pprof_nested(ob, field, &m);
	outbuf_free(&m);
}

/* Function ids for the names stacks use, in order of first use. */
static void
pprof_functions(struct pprof_enc *e)
{
	const uint32_t	*ids;
	size_t		 nstr, i, j, n;

	nstr = profile_nstrings(e->p);
	e->fid = xcalloc(nstr + 1, sizeof(*e->fid));
	e->byfid = xcalloc(nstr + 1, sizeof(*e->byfid));
	for (i = 0; (ids = profile_stack(e->p, i, &n, NULL)) != NULL; i++)
		for (j = 0; j < n; j++)
			if (e->fid[ids[j]] == 0) {
				e->byfid[e->nfunc] = ids[j];
				e->fid[ids[j]] = ++e->nfunc;
			}
}

/*
 * One Sample per stack, location ids leaf first as pprof has them, with
 * the sample's labels (their strings are in the profile's table).
 */
static void
pprof_samples(struct pprof_enc *e, struct outbuf *ob)
{
	struct outbuf	 s, f, l;
	const uint32_t	*ids, *lids;
	uint64_t	 value;
	size_t		 i, j, n, nl;

	memset(&s, 0, sizeof(s));
	memset(&f, 0, sizeof(f));
	memset(&l, 0, sizeof(l));
	for (i = 0; (ids = profile_stack(e->p, i, &n, &value)) != NULL;
	    i++) {
		s.len = 0;
		f.len = 0;
		for (j = 0; j < n; j++)
			pprof_varint(&f, e->fid[ids[n - 1 - j]]);
		if (f.len > 0)
			pprof_nested(&s, PPROF_SAMPLE_LOCATION_ID, &f);
		f.len = 0;
		pprof_varint(&f, (uint64_t)pprof_value(e->p, value));
		pprof_nested(&s, PPROF_SAMPLE_VALUE, &f);
		lids = profile_stack_labels(e->p, i, &nl);
		for (j = 0; j < nl; j++) {
			l.len = 0;
			pprof_int(&l, PPROF_LABEL_KEY, lids[2 * j]);
			pprof_int(&l, PPROF_LABEL_STR, lids[2 * j + 1]);
			pprof_nested(&s, PPROF_SAMPLE_LABEL, &l);
		}
		pprof_nested(ob, PPROF_PROFILE_SAMPLE, &s);
	}
	outbuf_free(&s);
	outbuf_free(&f);
	outbuf_free(&l);
}

/* Locations, functions, then the string table. */
static void
pprof_tables(struct pprof_enc *e, struct outbuf *ob)
{
	struct outbuf	 m, line;
	const char	*str;
	size_t		 k, nstr, i;

	memset(&m, 0, sizeof(m));
	memset(&line, 0, sizeof(line));
	for (k = 1; k <= e->nfunc; k++) {
		m.len = 0;
		line.len = 0;
		pprof_int(&m, PPROF_LOCATION_ID, k);
		pprof_int(&line, PPROF_LINE_FUNCTION_ID, k);
		pprof_nested(&m, PPROF_LOCATION_LINE, &line);
		pprof_nested(ob, PPROF_PROFILE_LOCATION, &m);
	}
	for (k = 1; k <= e->nfunc; k++) {
		m.len = 0;
		pprof_int(&m, PPROF_FUNCTION_ID, k);
		pprof_int(&m, PPROF_FUNCTION_NAME, e->byfid[k - 1]);
		pprof_int(&m, PPROF_FUNCTION_SYSTEM_NAME, e->byfid[k - 1]);
		pprof_nested(ob, PPROF_PROFILE_FUNCTION, &m);
	}
	nstr = profile_nstrings(e->p);
	for (i = 0; i < nstr + e->nextra; i++) {
		str = i < nstr ? profile_string(e->p, i) : e->extra[i - nstr];
		pprof_key(ob, PPROF_PROFILE_STRING_TABLE, PPROF_LEN);
		pprof_varint(ob, strlen(str));
		outbuf_str(ob, str);
	}
	outbuf_free(&m);
	outbuf_free(&line);
}

int
pprof_encode(const struct profile *p, unsigned char **bufp, size_t *lenp)
{
	struct pprof_enc	 e;
	struct outbuf		 ob, c;
	int64_t			 type, unit, period;
	char			*comment;
	size_t			 i;
	int			 rv;

	*bufp = NULL;
	*lenp = 0;
	memset(&e, 0, sizeof(e));
	memset(&ob, 0, sizeof(ob));
	memset(&c, 0, sizeof(c));
	e.p = p;

	/* The strings the header needs, appended first. */
	type = pprof_string(&e, profile_type_name(profile_type(p)));
	unit = pprof_string(&e, "nanoseconds");
	for (i = 0; i < profile_nlabels(p); i++) {
		xasprintf(&comment, "%s=%s", profile_label_name(p, i),
		    profile_label_value(p, i));
		pprof_varint(&c, pprof_string(&e, comment));
		free(comment);
	}
	pprof_functions(&e);

	pprof_value_type(&ob, PPROF_PROFILE_SAMPLE_TYPE, type, unit);
	pprof_samples(&e, &ob);
	pprof_tables(&e, &ob);
	pprof_int(&ob, PPROF_PROFILE_TIME_NANOS, (uint64_t)profile_time(p));
	pprof_int(&ob, PPROF_PROFILE_DURATION_NANOS,
	    (uint64_t)profile_duration(p));
	pprof_value_type(&ob, PPROF_PROFILE_PERIOD_TYPE, type, unit);
	/* offcpu time is not sampled, but pprof wants a period. */
	period = (int64_t)profile_period(p);
	pprof_int(&ob, PPROF_PROFILE_PERIOD, period > 0 ? period : 1);
	if (c.len > 0)
		pprof_nested(&ob, PPROF_PROFILE_COMMENT, &c);

	rv = pprof_gzip((unsigned char *)ob.buf, ob.len, bufp, lenp);
	outbuf_free(&ob);
	outbuf_free(&c);
	for (i = 0; i < e.nextra; i++)
		free(e.extra[i]);
	free(e.extra);
	free(e.fid);
	free(e.byfid);
	return rv;
}
