/*
 * Building the Pyroscope sink's requests.  Labels come from target
 * configuration and from processes (a comm, a unit name), so they are
 * made acceptable to the server here: one invalid label name would make
 * it reject a whole request, and a rejected request is not retried.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "push/push.pb-c.h"
#include "pyroscope_req.h"
#include "util/xmalloc.h"

#define PYROSCOPE_LABELS_MAX	30	/* Pyroscope's default limit */
#define PYROSCOPE_VALUE_MAX	1024	/* bytes; the server allows 2048 */
#define PYROSCOPE_NAME_MAX	128	/* bytes of a label name */

struct pyroscope_enc {
	const unsigned char *buf;
	size_t		 len;
	char		**names, **values;
	size_t		 nlabels;
};

void
pyroscope_req_free(struct pyroscope_req *r)
{
	if (r == NULL)
		return;
	free(r->target);
	free(r->body);
	free(r->series);
	free(r);
}

int
pyroscope_req_is_push(const char *target)
{
	return strcmp(target, PYROSCOPE_PUSH_PATH) == 0;
}

static const char *
pyroscope_req_metric(const struct profile *p)
{
	return profile_type(p) == PROFILE_TYPE_OFFCPU ? "offcpu" :
	    "process_cpu";
}

/* [a-zA-Z_][a-zA-Z0-9_]*: other bytes become '_'. */
static char *
pyroscope_req_label_name(const char *s)
{
	char	*d;
	size_t	 i;

	if (*s >= '0' && *s <= '9') {
		xasprintf(&d, "_%.*s", PYROSCOPE_NAME_MAX - 1, s);
		return d;
	}
	d = xstrndup(s, PYROSCOPE_NAME_MAX);
	for (i = 0; d[i] != '\0'; i++) {
		if (!((d[i] >= 'a' && d[i] <= 'z') ||
		    (d[i] >= 'A' && d[i] <= 'Z') ||
		    (d[i] >= '0' && d[i] <= '9') || d[i] == '_'))
			d[i] = '_';
	}
	return d;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t
pyroscope_req_utf8(const unsigned char *s, size_t n)
{
	size_t		 len, i;
	uint32_t	 c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return len;
}

/* Valid UTF-8 (other bytes become '?'), cut at a character boundary. */
static char *
pyroscope_req_label_value(const char *s)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 n = strlen(s), i = 0, k, o = 0;
	char			*d;

	d = xmalloc(PYROSCOPE_VALUE_MAX + 1);
	while (i < n) {
		k = pyroscope_req_utf8(u + i, n - i);
		if (o + (k == 0 ? 1 : k) > PYROSCOPE_VALUE_MAX)
			break;
		if (k == 0) {
			d[o++] = '?';
			i++;
		} else {
			memcpy(d + o, s + i, k);
			o += k;
			i += k;
		}
	}
	d[o] = '\0';
	return d;
}

static int
pyroscope_req_label_cmp(const void *a, const void *b)
{
	const char *const	*x = a, *const *y = b;

	return strcmp(x[0], y[0]);
}

void
pyroscope_req_labels_free(char **names, char **values, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(names[i]);
		free(values[i]);
	}
	free(names);
	free(values);
}

/* Add (name, value) unless the name is invalid, reserved or known. */
static void
pyroscope_req_label_add(char **pairs, size_t *n, const char *rawname,
    const char *v)
{
	char	*name;
	size_t	 j;

	if (v == NULL || *v == '\0')
		return;
	name = pyroscope_req_label_name(rawname);
	if (*name == '\0' || strncmp(name, "__", 2) == 0 ||
	    strcmp(name, "service_name") == 0) {
		free(name);
		return;
	}
	for (j = 0; j < *n; j++)
		if (strcmp(pairs[2 * j], name) == 0)
			break;
	if (j < *n || *n == PYROSCOPE_LABELS_MAX) {
		log_debug("pyroscope: label %s of %s left out", name,
		    pairs[3]);
		free(name);
		return;
	}
	pairs[2 * *n] = name;
	pairs[2 * *n + 1] = pyroscope_req_label_value(v);
	(*n)++;
}

size_t
pyroscope_req_labels(const struct profile *p,
    const struct pyroscope_globals *g, char ***namesp, char ***valuesp)
{
	const char	*svc = profile_label_get(p, "service_name");
	char		**pairs, **names, **values;
	size_t		 n = 0, i, np = profile_nlabels(p);
	size_t		 ng = g != NULL ? g->n : 0;

	/* Pairs (name, value) side by side, so that one sort orders both. */
	pairs = xcalloc(2 * (np + ng + 2), sizeof(*pairs));
	pairs[2 * n] = xstrdup("__name__");
	pairs[2 * n + 1] = xstrdup(pyroscope_req_metric(p));
	n++;
	pairs[2 * n] = xstrdup("service_name");
	pairs[2 * n + 1] = pyroscope_req_label_value(svc == NULL ||
	    *svc == '\0' ? "unknown" : svc);
	if (pairs[2 * n + 1][0] == '\0') {
		free(pairs[2 * n + 1]);
		pairs[2 * n + 1] = xstrdup("unknown");
	}
	n++;
	for (i = 0; i < np; i++)
		pyroscope_req_label_add(pairs, &n, profile_label_name(p, i),
		    profile_label_value(p, i));
	/* A target's own label wins over a global one of the same name. */
	for (i = 0; i < ng; i++)
		pyroscope_req_label_add(pairs, &n, g->names[i], g->values[i]);
	qsort(pairs, n, 2 * sizeof(*pairs), pyroscope_req_label_cmp);
	names = xcalloc(n, sizeof(*names));
	values = xcalloc(n, sizeof(*values));
	for (i = 0; i < n; i++) {
		names[i] = pairs[2 * i];
		values[i] = pairs[2 * i + 1];
	}
	free(pairs);
	*namesp = names;
	*valuesp = values;
	return n;
}

static struct pyroscope_req *
pyroscope_req_new(const char *target, unsigned char *body, size_t len,
    uint32_t nprofiles)
{
	struct pyroscope_req	*r;

	r = xcalloc(1, sizeof(*r));
	r->target = xstrdup(target);
	r->body = body;
	r->len = len;
	r->nprofiles = nprofiles;
	return r;
}

/* A random UUID (version 4) for RawSample.ID. */
static void
pyroscope_req_uuid(char *buf, size_t len)
{
	unsigned char	 u[16];

	arc4random_buf(u, sizeof(u));
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	    "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5],
	    u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* Pack encs[0 .. n - 1] into one PushRequest. */
static struct pyroscope_req *
pyroscope_req_pack(struct pyroscope_enc *encs, size_t n)
{
	Push__V1__PushRequest	  req = PUSH__V1__PUSH_REQUEST__INIT;
	Push__V1__RawProfileSeries *series, **seriesp;
	Push__V1__RawSample	 *samples, **samplep;
	Push__V1__LabelPair	 *lp, **lpp;
	char			(*ids)[37];
	unsigned char		 *buf;
	size_t			  i, j, k, nl = 0, len;

	for (i = 0; i < n; i++)
		nl += encs[i].nlabels;
	series = xcalloc(n, sizeof(*series));
	seriesp = xcalloc(n, sizeof(*seriesp));
	samples = xcalloc(n, sizeof(*samples));
	samplep = xcalloc(n, sizeof(*samplep));
	ids = xcalloc(n, sizeof(*ids));
	lp = xcalloc(nl, sizeof(*lp));
	lpp = xcalloc(nl, sizeof(*lpp));
	for (i = 0, k = 0; i < n; i++) {
		push__v1__raw_profile_series__init(&series[i]);
		series[i].labels = lpp + k;
		series[i].n_labels = encs[i].nlabels;
		for (j = 0; j < encs[i].nlabels; j++, k++) {
			push__v1__label_pair__init(&lp[k]);
			lp[k].name = encs[i].names[j];
			lp[k].value = encs[i].values[j];
			lpp[k] = &lp[k];
		}
		push__v1__raw_sample__init(&samples[i]);
		/* Only read: packed into the request. */
		samples[i].raw_profile.data = (uint8_t *)encs[i].buf;
		samples[i].raw_profile.len = encs[i].len;
		pyroscope_req_uuid(ids[i], sizeof(ids[i]));
		samples[i].id = ids[i];
		samplep[i] = &samples[i];
		series[i].samples = &samplep[i];
		series[i].n_samples = 1;
		seriesp[i] = &series[i];
	}
	req.series = seriesp;
	req.n_series = n;
	len = push__v1__push_request__get_packed_size(&req);
	buf = xmalloc(len > 0 ? len : 1);
	push__v1__push_request__pack(&req, buf);
	free(lpp);
	free(lp);
	free(ids);
	free(samplep);
	free(samples);
	free(seriesp);
	free(series);
	return pyroscope_req_new(PYROSCOPE_PUSH_PATH, buf, len, n);
}

size_t
pyroscope_req_push(struct pyroscope_reqs *q, struct profile *const *profs,
    size_t n, const struct pyroscope_globals *g)
{
	struct pprof_buf	*bufs;
	size_t			 failed;

	bufs = pprof_encode_all(profs, n);
	failed = pyroscope_req_push_enc(q, profs, bufs, n, g);
	pprof_bufs_free(bufs, n);
	return failed;
}

/* "name=value,..." of sorted labels: which series a request is of. */
static char *
pyroscope_req_series(char **names, char **values, size_t n)
{
	char	*s = xstrdup(""), *t;
	size_t	 i;

	for (i = 0; i < n; i++) {
		xasprintf(&t, "%s%s=%s,", s, names[i], values[i]);
		free(s);
		s = t;
	}
	return s;
}

/* The profile's start, in seconds, for the age limit of the spool. */
static int64_t
pyroscope_req_time(const struct profile *p)
{
	return profile_time(p) / 1000000000;
}

size_t
pyroscope_req_push_enc(struct pyroscope_reqs *q, struct profile *const *profs,
    const struct pprof_buf *bufs, size_t n, const struct pyroscope_globals *g)
{
	struct pyroscope_enc	 enc;
	struct pyroscope_req	*r;
	size_t			 i, failed = 0;

	for (i = 0; i < n; i++) {
		if (bufs[i].buf == NULL) {
			failed++;
			continue;
		}
		enc.buf = bufs[i].buf;
		enc.len = bufs[i].len;
		enc.nlabels = pyroscope_req_labels(profs[i], g, &enc.names,
		    &enc.values);
		r = pyroscope_req_pack(&enc, 1);
		r->time = pyroscope_req_time(profs[i]);
		r->series = pyroscope_req_series(enc.names, enc.values,
		    enc.nlabels);
		TAILQ_INSERT_TAIL(q, r, entry);
		pyroscope_req_labels_free(enc.names, enc.values, enc.nlabels);
	}
	return failed;
}

/* RFC 3986 percent-encoding of everything but unreserved characters. */
static void
pyroscope_req_urlenc(char **dst, size_t *len, size_t *cap, const char *s)
{
	static const char	 hex[] = "0123456789ABCDEF";
	unsigned char		 c;

	for (; *s != '\0'; s++) {
		if (*len + 4 > *cap) {
			*cap = *cap * 2 + 64;
			*dst = xreallocarray(*dst, *cap, 1);
		}
		c = *s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~')
			(*dst)[(*len)++] = c;
		else {
			(*dst)[(*len)++] = '%';
			(*dst)[(*len)++] = hex[c >> 4];
			(*dst)[(*len)++] = hex[c & 15];
		}
	}
	(*dst)[*len] = '\0';
}

/*
 * The legacy name "<service>{label=value,...}" (api/model/labelset in
 * Pyroscope's server): [A-Za-z0-9_.-/] in the service part, and a value
 * ends at ',' or '}'.  service_name is the part before the braces, not a
 * label.  For a pprof body no type suffix is stripped from the service
 * ("web.cpu" would be a service of its own): the server takes the series
 * name (__name__) from the profile's sample type instead.
 */
static char *
pyroscope_req_ingest_name(const struct profile *p,
    const struct pyroscope_globals *g)
{
	char	**names, **values, *s, *t, *c;
	size_t	 n, i, len;

	n = pyroscope_req_labels(p, g, &names, &values);
	s = NULL;
	for (i = 0; i < n; i++)
		if (strcmp(names[i], "service_name") == 0)
			s = xstrdup(values[i]);
	for (c = s; *c != '\0'; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' ||
		    *c == '-' || *c == '/'))
			*c = '_';
	xasprintf(&t, "%s{", s);
	free(s);
	s = t;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i], "__name__") == 0 ||
		    strcmp(names[i], "service_name") == 0)
			continue;
		for (c = values[i]; *c != '\0'; c++)
			if (*c == ',' || *c == '}' || *c == '{' || *c == '=')
				*c = '_';
		len = strlen(s);
		xasprintf(&t, "%s%s%s=%s", s, s[len - 1] == '{' ? "" : ",",
		    names[i], values[i]);
		free(s);
		s = t;
	}
	xasprintf(&t, "%s}", s);
	free(s);
	pyroscope_req_labels_free(names, values, n);
	return t;
}

size_t
pyroscope_req_ingest(struct pyroscope_reqs *q, struct profile *const *profs,
    size_t n, int64_t start_ns, int64_t end_ns, long long sample_rate,
    const struct pyroscope_globals *g)
{
	struct pprof_buf	*bufs;
	size_t			 failed;

	bufs = pprof_encode_all(profs, n);
	failed = pyroscope_req_ingest_enc(q, profs, bufs, n, start_ns, end_ns,
	    sample_rate, g);
	pprof_bufs_free(bufs, n);
	return failed;
}

size_t
pyroscope_req_ingest_enc(struct pyroscope_reqs *q,
    struct profile *const *profs, const struct pprof_buf *bufs, size_t n,
    int64_t start_ns, int64_t end_ns, long long sample_rate,
    const struct pyroscope_globals *g)
{
	struct pyroscope_req *r;
	unsigned char	*buf;
	char		*target, *name, rate[64];
	size_t		 i, tlen, cap, failed = 0;
	long long	 from, until;

	from = start_ns / 1000000000;
	until = (end_ns + 999999999) / 1000000000;
	if (until <= from)
		until = from + 1;
	for (i = 0; i < n; i++) {
		if (bufs[i].buf == NULL) {
			failed++;
			continue;
		}
		name = pyroscope_req_ingest_name(profs[i], g);
		cap = 64 + 3 * strlen(name);
		target = xmalloc(cap);
		tlen = snprintf(target, cap, "%s?name=", PYROSCOPE_INGEST_PATH);
		pyroscope_req_urlenc(&target, &tlen, &cap, name);
		/* The on-CPU profile samples at a rate; off-CPU does not. */
		rate[0] = '\0';
		if (profile_type(profs[i]) == PROFILE_TYPE_CPU)
			snprintf(rate, sizeof(rate), "&sampleRate=%lld",
			    sample_rate);
		/* The body is the request's own: the round's is shared. */
		buf = xmalloc(bufs[i].len > 0 ? bufs[i].len : 1);
		memcpy(buf, bufs[i].buf, bufs[i].len);
		r = pyroscope_req_new(PYROSCOPE_INGEST_PATH, buf, bufs[i].len,
		    1);
		free(r->target);
		xasprintf(&r->target, "%s&from=%lld&until=%lld%s"
		    "&spyName=ebpfspy&format=pprof", target, from, until, rate);
		r->time = pyroscope_req_time(profs[i]);
		/* The name, and the type the server guesses from the body. */
		xasprintf(&r->series, "%s %s", name,
		    profile_type_name(profile_type(profs[i])));
		TAILQ_INSERT_TAIL(q, r, entry);
		free(target);
		free(name);
	}
	return failed;
}
