/*
 * pprof output: the profile as a perftools.profiles.Profile message,
 * packed by protobuf-c and gzipped by zlib, as go tool pprof and
 * Pyroscope read it.
 *
 * The profile's interned names are the start of the string table as
 * they are (id 0 is ""), so frames need no translation.  Locations and
 * Functions are pprof_loc.c's: one Location per address sampled, with
 * its mapping and address in the file's terms and its Lines.  The
 * mappings are the profile's, the main program's first.  Strings the encoder needs besides the names (the value type,
 * the labels, the comments) are appended after them, reusing a name
 * when one is equal.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util/log.h"
#include "frametab.h"
#include "pprof.h"
#include "pprof_int.h"
#include "profile.h"
#include "profile/profile.pb-c.h"
#include "util/xmalloc.h"

/* Labels on samples: Pyroscope's limits (a series' labels, bytes). */
#define PPROF_LABELS_MAX	30
#define PPROF_LABEL_NAME_MAX	128
#define PPROF_LABEL_VALUE_MAX	1024

static int64_t	pprof_string(struct pprof_enc *, const char *);
static int64_t	pprof_value(const struct profile *, uint64_t);
static void	pprof_mappings(struct pprof_enc *);
static int	pprof_label_is_plain(const char *, const char *);
static size_t	pprof_target_labels(struct pprof_enc *);
static void	pprof_samples(struct pprof_enc *);
static void	pprof_header(struct pprof_enc *);
static void	pprof_strings(struct pprof_enc *);
static void	pprof_enc_clear(struct pprof_enc *);
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

/*
 * The Mappings, from the profile's frames: the main program's first,
 * as go tool pprof takes the first for it (a file that is no library),
 * so the others move up one.
 */
static void
pprof_mappings(struct pprof_enc *e)
{
	const struct frametab		*ft = profile_frames(e->p);
	const struct frametab_map	*fm;
	Perftools__Profiles__Mapping	*m;
	const char			*path, *base;
	size_t				 n, i, main = 0;

	n = frametab_nmaps(ft);
	e->maps = xcalloc(n + 1, sizeof(*e->maps));
	e->mapp = xcalloc(n + 1, sizeof(*e->mapp));
	e->mapid = xcalloc(n + 1, sizeof(*e->mapid));
	for (i = 1; i <= n && main == 0; i++) {
		path = profile_string(e->p, frametab_map(ft, i)->file);
		base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 :
		    path;
		if (*path != '[' && strstr(base, ".so") == NULL)
			main = i;
	}
	for (i = 1; i <= n; i++)
		e->mapid[i] = i == main ? 1 : i < main ? i + 1 : i;
	for (i = 1; i <= n; i++) {
		fm = frametab_map(ft, i);
		m = &e->maps[e->mapid[i] - 1];
		perftools__profiles__mapping__init(m);
		m->id = e->mapid[i];
		m->memory_start = fm->start;
		m->memory_limit = fm->limit;
		m->file_offset = fm->offset;
		m->filename = fm->file;
		m->build_id = fm->build_id;
		m->has_functions = (fm->flags & FRAMETAB_MAP_FUNCTIONS) != 0;
		m->has_filenames = (fm->flags & FRAMETAB_MAP_FILENAMES) != 0;
		m->has_line_numbers = (fm->flags & FRAMETAB_MAP_LINES) != 0;
		e->mapp[m->id - 1] = m;
	}
	e->pb.mapping = e->mapp;
	e->pb.n_mapping = n;
}

/*
 * May a label go on the samples?  Only one that Pyroscope takes as it
 * is, and that the push sends as it is among the series' labels: a
 * name of Prometheus form, not one of the reserved __names__, a value
 * of printable ASCII, short.  Pyroscope adds a sample's labels to its
 * series' unless the series has that name: such a label changes
 * nothing there, where another (a name the push had to rewrite) would
 * be added as it is and get the whole request rejected.
 */
static int
pprof_label_is_plain(const char *name, const char *value)
{
	size_t	 i;

	if (strncmp(name, "__", 2) == 0 || *value == '\0' ||
	    strlen(name) > PPROF_LABEL_NAME_MAX ||
	    strlen(value) > PPROF_LABEL_VALUE_MAX ||
	    (*name >= '0' && *name <= '9'))
		return 0;
	for (i = 0; name[i] != '\0'; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= 'A' && name[i] <= 'Z') ||
		    (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return 0;
	for (i = 0; value[i] != '\0'; i++)
		if (value[i] < 0x20 || value[i] > 0x7e)
			return 0;
	return i > 0;
}

/*
 * The profile's labels (the target's), on every sample as string
 * labels, so that go tool pprof -tags shows them and a file uploaded
 * keeps them; those that are not plain stay in the comments only.  One
 * Label each, which every sample points to, after its own labels.
 */
static size_t
pprof_target_labels(struct pprof_enc *e)
{
	const char	*name, *value;
	size_t		 i, n = 0;

	e->tlabels = xcalloc(profile_nlabels(e->p) + 1, sizeof(*e->tlabels));
	for (i = 0; i < profile_nlabels(e->p) && n < PPROF_LABELS_MAX; i++) {
		name = profile_label_name(e->p, i);
		value = profile_label_value(e->p, i);
		if (!pprof_label_is_plain(name, value))
			continue;
		perftools__profiles__label__init(&e->tlabels[n]);
		e->tlabels[n].key = pprof_string(e, name);
		e->tlabels[n].str = pprof_string(e, value);
		n++;
	}
	return n;
}

/*
 * One Sample per stack, location ids leaf first as pprof has them, with
 * the sample's labels (their strings are in the profile's table), then
 * the target's.
 */
static void
pprof_samples(struct pprof_enc *e)
{
	const uint32_t	*lids;
	uint64_t	 value;
	size_t		 nstacks, nframes = 0, nlabels = 0, i, j, k, l, n, nl;
	size_t		 nt, p;

	nt = pprof_target_labels(e);
	nstacks = profile_nstacks(e->p);
	for (i = 0; i < nstacks; i++) {
		profile_stack(e->p, i, &n, NULL);
		profile_stack_labels(e->p, i, &nl);
		nframes += n;
		nlabels += nl;
	}
	e->labels = xcalloc(nlabels + 1, sizeof(*e->labels));
	e->labelp = xcalloc(nlabels + nstacks * nt + 1, sizeof(*e->labelp));
	e->samples = xcalloc(nstacks + 1, sizeof(*e->samples));
	e->samplep = xcalloc(nstacks + 1, sizeof(*e->samplep));
	e->values = xcalloc(nstacks + 1, sizeof(*e->values));
	e->locids = xcalloc(nframes + 1, sizeof(*e->locids));
	for (i = 0, k = 0, l = 0, p = 0; i < nstacks; i++) {
		(void)profile_stack(e->p, i, &n, &value);
		perftools__profiles__sample__init(&e->samples[i]);
		e->samples[i].location_id = e->locids + k;
		e->samples[i].n_location_id = pprof_sample_locs(e, i,
		    e->locids + k);
		k += e->samples[i].n_location_id;
		e->values[i] = pprof_value(e->p, value);
		e->samples[i].value = &e->values[i];
		e->samples[i].n_value = 1;
		e->samples[i].label = e->labelp + p;
		lids = profile_stack_labels(e->p, i, &nl);
		for (j = 0; j < nl; j++, l++) {
			perftools__profiles__label__init(&e->labels[l]);
			e->labels[l].key = lids[2 * j];
			e->labels[l].str = lids[2 * j + 1];
			e->labelp[p++] = &e->labels[l];
		}
		for (j = 0; j < nt; j++)
			e->labelp[p++] = &e->tlabels[j];
		e->samples[i].n_label = nl + nt;
		e->samplep[i] = &e->samples[i];
	}
	e->pb.sample = e->samplep;
	e->pb.n_sample = nstacks;
}

/* Value type, period, times; the profile's labels as comments. */
static void
pprof_header(struct pprof_enc *e)
{
	const struct profile	*p = e->p;
	char			*comment;
	size_t			 i;

	e->vt.type = pprof_string(e, profile_type_name(profile_type(p)));
	e->vt.unit = pprof_string(e, "nanoseconds");
	e->vtp = &e->vt;
	e->pb.n_sample_type = 1;
	e->pb.sample_type = &e->vtp;
	/*
	 * Off-CPU time is not sampled: no period, as Grafana Alloy writes
	 * it, so that Pyroscope's profile type (name:type:unit:period
	 * type:period unit) is offcpu:offcpu:nanoseconds:: for both.
	 */
	if (profile_type(p) == PROFILE_TYPE_CPU) {
		e->pb.period_type = &e->vt;
		e->pb.period = (int64_t)profile_period(p);
		if (e->pb.period <= 0)
			e->pb.period = 1;
	}
	e->pb.time_nanos = profile_time(p);
	e->pb.duration_nanos = profile_duration(p);

	e->comments = xcalloc(profile_nlabels(p) + 1, sizeof(*e->comments));
	for (i = 0; i < profile_nlabels(p); i++) {
		xasprintf(&comment, "%s=%s", profile_label_name(p, i),
		    profile_label_value(p, i));
		e->comments[i] = pprof_string(e, comment);
		free(comment);
	}
	e->pb.comment = e->comments;
	e->pb.n_comment = profile_nlabels(p);
}

/* The profile's names as they are, then the strings added here. */
static void
pprof_strings(struct pprof_enc *e)
{
	size_t	 nstr, i;

	nstr = profile_nstrings(e->p);
	e->pb.n_string_table = nstr + e->nextra;
	e->pb.string_table = xcalloc(e->pb.n_string_table,
	    sizeof(*e->pb.string_table));
	for (i = 0; i < nstr; i++)
		e->pb.string_table[i] = (char *)profile_string(e->p, i);
	for (i = 0; i < e->nextra; i++)
		e->pb.string_table[nstr + i] = e->extra[i];
}

static void
pprof_enc_clear(struct pprof_enc *e)
{
	size_t	 i;

	free(e->pb.string_table);
	for (i = 0; i < e->nextra; i++)
		free(e->extra[i]);
	free(e->extra);
	free(e->comments);
	free(e->locids);
	free(e->values);
	free(e->samplep);
	free(e->samples);
	free(e->labelp);
	free(e->labels);
	free(e->tlabels);
	pprof_locations_clear(e);
	free(e->mapp);
	free(e->maps);
	free(e->mapid);
}

int
pprof_encode(const struct profile *p, unsigned char **bufp, size_t *lenp)
{
	struct pprof_enc	 e;
	unsigned char		*packed;
	size_t			 len;
	int			 rv;

	*bufp = NULL;
	*lenp = 0;
	memset(&e, 0, sizeof(e));
	e.p = p;
	perftools__profiles__profile__init(&e.pb);
	perftools__profiles__value_type__init(&e.vt);

	pprof_mappings(&e);
	pprof_locations(&e);
	pprof_samples(&e);
	pprof_header(&e);
	pprof_strings(&e);

	len = perftools__profiles__profile__get_packed_size(&e.pb);
	packed = xmalloc(len + 1);
	perftools__profiles__profile__pack(&e.pb, packed);
	rv = pprof_gzip(packed, len, bufp, lenp);
	free(packed);
	pprof_enc_clear(&e);
	return rv;
}

struct pprof_buf *
pprof_encode_all(struct profile *const *p, size_t n)
{
	struct pprof_buf	*v;
	size_t			 i;

	v = xcalloc(n > 0 ? n : 1, sizeof(*v));
	for (i = 0; i < n; i++)
		(void)pprof_encode(p[i], &v[i].buf, &v[i].len);
	return v;
}

void
pprof_bufs_free(struct pprof_buf *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i].buf);
	free(v);
}
