/*
 * pprof encoding: unpacked again with protobuf-c and checked field by
 * field, then read back by two independent decoders when they are here:
 * t/helper/pprof_decode.py and go tool pprof.
 */
#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "profile/folded.h"
#include "profile/frametab.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "profile/profile.pb-c.h"
#include "tap.h"
#include "util/intern.h"

#define PERIOD		10000000ULL		/* 100 Hz */
#define T0		1764670500000000000LL	/* 2025-12-02T10:15:00Z */
#define DURATION	15000000000LL

typedef Perftools__Profiles__Profile Profile;

static char	 tmpdir[] = "/tmp/t-pprof.XXXXXX";

/* gunzip buf; NULL unless it is one whole gzip stream. */
static unsigned char *
gunzip(const unsigned char *buf, size_t len, size_t *outlen)
{
	z_stream	 zs;
	unsigned char	*out = NULL;
	size_t		 cap = 0;
	int		 rv;

	memset(&zs, 0, sizeof(zs));
	/* 15 + 16: gzip only, a zlib or raw stream is an error. */
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return NULL;
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = len;
	do {
		cap = cap ? cap * 2 : 4096;
		out = realloc(out, cap);
		zs.next_out = out + zs.total_out;
		zs.avail_out = cap - zs.total_out;
		rv = inflate(&zs, Z_NO_FLUSH);
	} while (rv == Z_OK || (rv == Z_BUF_ERROR && zs.avail_out == 0));
	*outlen = zs.total_out;
	if (rv != Z_STREAM_END || zs.avail_in != 0) {
		free(out);
		out = NULL;
	}
	inflateEnd(&zs);
	return out;
}

static Profile *
encode_unpack(const struct profile *p, unsigned char **gz, size_t *gzlen)
{
	unsigned char	*raw;
	size_t		 rawlen;
	Profile		*pb;

	if (pprof_encode(p, gz, gzlen) == -1)
		return NULL;
	if ((raw = gunzip(*gz, *gzlen, &rawlen)) == NULL)
		return NULL;
	pb = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	free(raw);
	return pb;
}

static const char *
str(const Profile *pb, int64_t i)
{
	if (i < 0 || (size_t)i >= pb->n_string_table)
		return NULL;
	return pb->string_table[i];
}

static const Perftools__Profiles__Function *
find_function(const Profile *pb, uint64_t id)
{
	size_t	 i;

	for (i = 0; i < pb->n_function; i++)
		if (pb->function[i]->id == id)
			return pb->function[i];
	return NULL;
}

static const Perftools__Profiles__Location *
find_location(const Profile *pb, uint64_t id)
{
	size_t	 i;

	for (i = 0; i < pb->n_location; i++)
		if (pb->location[i]->id == id)
			return pb->location[i];
	return NULL;
}

/*
 * The stacks of pb folded ("root;...;leaf value\n"), in sample order;
 * NULL if a reference does not resolve.
 */
static char *
fold(const Profile *pb)
{
	const Perftools__Profiles__Location	*loc;
	const Perftools__Profiles__Function	*fn;
	FILE					*f;
	char					*buf = NULL;
	size_t					 len, i, j, n;
	int					 bad = 0;

	f = open_memstream(&buf, &len);
	for (i = 0; i < pb->n_sample; i++) {
		n = pb->sample[i]->n_location_id;
		for (j = 0; j < n; j++) {
			/* location_id[0] is the leaf. */
			loc = find_location(pb, pb->sample[i]->location_id[
			    n - 1 - j]);
			if (loc == NULL || loc->n_line != 1 ||
			    (fn = find_function(pb,
			    loc->line[0]->function_id)) == NULL ||
			    str(pb, fn->name) == NULL) {
				bad = 1;
				continue;
			}
			fprintf(f, "%s%s", j ? ";" : "", str(pb, fn->name));
		}
		fprintf(f, " %" PRId64 "\n", pb->sample[i]->n_value == 1 ?
		    pb->sample[i]->value[0] : -1);
	}
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void
add(struct profile *p, const char *a, const char *b, const char *c,
    const char *d, uint64_t v)
{
	const char	*f[4] = { a, b, c, d };
	size_t		 n = d ? 4 : c ? 3 : b ? 2 : 1;

	profile_add(p, f, n, v);
}

static struct profile *
cpu_profile(void)
{
	struct profile	*p;

	p = profile_create(PROFILE_TYPE_CPU, PERIOD, T0, DURATION);
	profile_label_set(p, "service_name", "web");
	profile_label_set(p, "env", "prod");
	add(p, "main", "foo", "bar", NULL, 3);
	add(p, "main", "foo", NULL, NULL, 2);
	add(p, "main", "baz qux", "a;b", NULL, 1);
	add(p, "main", "foo", "bar", NULL, 1);
	add(p, "main", "main", "[unknown]", NULL, 5);
	add(p, "bash", "cpu", NULL, NULL, 6);	/* a frame named "cpu" */
	return p;
}

/* Stacks of cpu_profile() in the order they were first added. */
static const char cpu_folded[] =
    "main;foo;bar 40000000\n"
    "main;foo 20000000\n"
    "main;baz qux;a;b 10000000\n"
    "main;main;[unknown] 50000000\n"
    "bash;cpu 60000000\n";

/* The same, sorted, cleaned, as pprof_decode.py prints them. */
static const char cpu_decoded[] =
    "bash;cpu 60000000\n"
    "main;baz qux;a:b 10000000\n"
    "main;foo 20000000\n"
    "main;foo;bar 40000000\n"
    "main;main;[unknown] 50000000\n";

static void
test_cpu(void)
{
	struct profile				*p;
	Profile					*pb;
	const Perftools__Profiles__Location	*loc;
	const Perftools__Profiles__Function	*fn;
	unsigned char				*gz;
	char					*s;
	size_t					 gzlen, i;
	int					 good;

	p = cpu_profile();
	pb = encode_unpack(p, &gz, &gzlen);
	ok(pb != NULL, "cpu: encoded, gunzipped, unpacked");
	if (pb == NULL)
		return;
	ok(gzlen > 18 && gz[0] == 0x1f && gz[1] == 0x8b, "gzip magic");

	ok(pb->n_string_table > 0 && strcmp(pb->string_table[0], "") == 0,
	    "string_table[0] is \"\"");
	is_int(pb->n_sample_type, 1, "one sample type");
	is_str(str(pb, pb->sample_type[0]->type), "cpu", "sample type cpu");
	is_str(str(pb, pb->sample_type[0]->unit), "nanoseconds",
	    "unit nanoseconds");
	ok(pb->period_type != NULL, "period type present");
	is_str(str(pb, pb->period_type->type), "cpu", "period type cpu");
	is_str(str(pb, pb->period_type->unit), "nanoseconds",
	    "period unit nanoseconds");
	is_int(pb->period, PERIOD, "period is the sampling period");
	is_int(pb->time_nanos, T0, "time_nanos");
	is_int(pb->duration_nanos, DURATION, "duration_nanos");
	is_int(pb->n_comment, 2, "two comments");
	if (pb->n_comment == 2) {
		is_str(str(pb, pb->comment[0]), "service_name=web",
		    "comment 0 is a label");
		is_str(str(pb, pb->comment[1]), "env=prod", "comment 1");
	}

	/* main foo bar baz_qux a;b [unknown] bash cpu */
	is_int(pb->n_function, 8, "one function per distinct name");
	is_int(pb->n_location, 8, "one location per function");
	good = 1;
	for (i = 0; i < pb->n_function; i++) {
		fn = pb->function[i];
		if (fn->id == 0 || fn->name != fn->system_name ||
		    str(pb, fn->name) == NULL || fn->name == 0)
			good = 0;
		if (find_function(pb, fn->id) != fn)
			good = 0;	/* duplicate id */
	}
	ok(good, "functions: unique nonzero ids, name == system_name");
	good = 1;
	for (i = 0; i < pb->n_location; i++) {
		loc = pb->location[i];
		if (loc->id == 0 || loc->n_line != 1 ||
		    find_function(pb, loc->line[0]->function_id) == NULL ||
		    find_location(pb, loc->id) != loc)
			good = 0;
	}
	ok(good, "locations: unique ids, one line naming a function");

	is_int(pb->n_sample, 5, "one sample per distinct stack");
	good = 1;
	for (i = 0; i < pb->n_sample; i++)
		if (pb->sample[i]->n_value != 1 ||
		    pb->sample[i]->n_label != 2 ||
		    strcmp(str(pb, pb->sample[i]->label[0]->key),
		    "service_name") != 0 ||
		    strcmp(str(pb, pb->sample[i]->label[0]->str), "web") != 0 ||
		    strcmp(str(pb, pb->sample[i]->label[1]->key), "env") != 0 ||
		    strcmp(str(pb, pb->sample[i]->label[1]->str), "prod") != 0)
			good = 0;
	ok(good, "one value per sample, the target's labels as its own");
	s = fold(pb);
	is_str(s, cpu_folded, "stacks leaf first, values samples * period");
	free(s);

	perftools__profiles__profile__free_unpacked(pb, NULL);
	free(gz);
	profile_free(p);
}

static void
test_offcpu(void)
{
	struct profile	*p;
	Profile		*pb;
	unsigned char	*gz;
	char		*s;
	size_t		 gzlen;

	p = profile_create(PROFILE_TYPE_OFFCPU, 0, T0, DURATION);
	add(p, "sleep", "nanosleep", NULL, NULL, 1500000000ULL);
	add(p, "sleep", "read", NULL, NULL, 7);
	add(p, "sleep", "nanosleep", NULL, NULL, 25000000000ULL);
	pb = encode_unpack(p, &gz, &gzlen);
	ok(pb != NULL, "offcpu: unpacked");
	if (pb == NULL)
		return;
	is_str(str(pb, pb->sample_type[0]->type), "offcpu",
	    "sample type offcpu");
	is_str(str(pb, pb->sample_type[0]->unit), "nanoseconds",
	    "unit nanoseconds");
	ok(pb->period_type == NULL, "no period type, as Alloy's");
	is_int(pb->period, 0, "no period");
	is_int(pb->n_comment, 0, "no labels, no comments");
	s = fold(pb);
	is_str(s, "sleep;nanosleep 26500000000\nsleep;read 7\n",
	    "values are nanoseconds as added");
	free(s);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	free(gz);
	profile_free(p);

	p = profile_create(PROFILE_TYPE_OFFCPU, 1000, 0, 0);
	pb = encode_unpack(p, &gz, &gzlen);
	ok(pb != NULL, "empty offcpu profile: unpacked");
	if (pb == NULL)
		return;
	ok(pb->period_type == NULL && pb->period == 0,
	    "period given: not written either");
	is_int(pb->n_sample, 0, "no samples");
	is_int(pb->n_function, 0, "no functions");
	perftools__profiles__profile__free_unpacked(pb, NULL);
	free(gz);
	profile_free(p);
}

/* What a test of frames with their details holds, freed. */
static void
frames_free(Profile *pb, unsigned char *gz, struct profile *p,
    struct frametab *ft, struct intern *names)
{
	if (pb != NULL)
		perftools__profiles__profile__free_unpacked(pb, NULL);
	free(gz);
	profile_free(p);
	frametab_free(ft);
	intern_free(names);
}

/* The location of the frame named name, or NULL. */
static const Perftools__Profiles__Location *
location_named(const Profile *pb, const char *name, int64_t line)
{
	const Perftools__Profiles__Function	*fn;
	size_t					 i;

	for (i = 0; i < pb->n_location; i++) {
		fn = find_function(pb, pb->location[i]->line[0]->function_id);
		if (fn != NULL && strcmp(str(pb, fn->name), name) == 0 &&
		    pb->location[i]->line[0]->line == line)
			return pb->location[i];
	}
	return NULL;
}

static const Perftools__Profiles__Mapping *
find_mapping(const Profile *pb, uint64_t id)
{
	size_t	 i;

	for (i = 0; i < pb->n_mapping; i++)
		if (pb->mapping[i]->id == id)
			return pb->mapping[i];
	return NULL;
}

/*
 * Frames with details, as a round gives them (names and details kept
 * by ids of another table): mappings, addresses, mangled names, Python
 * functions with files and lines, the kernel's mapping.
 */
static void
test_rich(void)
{
	const Perftools__Profiles__Location	*lf, *la, *lk, *l10, *l12;
	const Perftools__Profiles__Function	*ff, *f10, *f12;
	const Perftools__Profiles__Mapping	*m;
	struct intern				*names;
	struct frametab				*ft;
	struct frametab_map			 fm;
	struct frametab_frame			 fr;
	struct profile				*p;
	Profile					*pb;
	unsigned char				*gz;
	size_t					 gzlen, i;
	uint32_t				 ml, ma, mk, s1[4], s2[3];
	uint32_t				 other;
	int					 good;

	names = intern_create();
	ft = frametab_create();
	intern_add(names, "");
	memset(&fm, 0, sizeof(fm));
	fm.start = 0x1000;
	fm.limit = 0x5000;
	fm.offset = 0x1000;
	fm.file = intern_add(names, "/usr/lib/libfoo.so.1");
	fm.build_id = intern_add(names, "abcd01");
	fm.flags = FRAMETAB_MAP_FUNCTIONS;
	ml = frametab_map_add(ft, &fm);
	fm.file = intern_add(names, "/usr/bin/app");
	fm.build_id = 0;
	fm.flags = 0;
	ma = frametab_map_add(ft, &fm);
	memset(&fm, 0, sizeof(fm));
	fm.file = intern_add(names, "[kernel.kallsyms]");
	fm.limit = UINT64_MAX;
	fm.flags = FRAMETAB_MAP_FUNCTIONS;
	mk = frametab_map_add(ft, &fm);
	is_int(frametab_map_add(ft, &fm), mk, "a mapping added again: same");

	s1[0] = frametab_loc_add(ft, intern_add(names, "app"), NULL);
	memset(&fr, 0, sizeof(fr));
	fr.map = ma;
	fr.addr = 0x1234;
	s1[1] = frametab_loc_add(ft, intern_add(names, "app+0x1234"), &fr);
	fr.map = ml;
	fr.addr = 0x1a2b;
	fr.system = intern_add(names, "_ZN3foo3barEv");
	s1[2] = frametab_loc_add(ft, intern_add(names, "foo::bar()"), &fr);
	ok(frametab_loc_add(ft, intern_add(names, "foo::bar()"), &fr) ==
	    s1[2] && frametab_loc(ft, s1[2])->f.addr == 0x1a2b,
	    "a name at one address of a mapping: one location");
	fr.map = ma;
	other = frametab_loc_add(ft, intern_add(names, "foo::bar()"), &fr);
	ok(other != s1[2], "the same name in another mapping: another");
	memset(&fr, 0, sizeof(fr));
	fr.map = mk;
	fr.addr = 0xffffffff81000000ULL;
	s1[3] = frametab_loc_add(ft, intern_add(names, "schedule"), &fr);

	s2[0] = s1[0];
	memset(&fr, 0, sizeof(fr));
	fr.func = intern_add(names, "Job.run");
	fr.file = intern_add(names, "/srv/a.py");
	fr.line = 10;
	s2[1] = frametab_loc_add(ft, intern_add(names, "Job.run (a.py:10)"),
	    &fr);
	fr.line = 12;
	s2[2] = frametab_loc_add(ft, intern_add(names, "Job.run (a.py:12)"),
	    &fr);

	p = profile_create(PROFILE_TYPE_CPU, PERIOD, T0, DURATION);
	profile_label_set(p, "service_name", "app");
	profile_label_set(p, "__reserved__", "x");
	profile_label_set(p, "host.name", "box");
	profile_label_set(p, "note", "caf\xc3\xa9");
	profile_label_set(p, "empty", "");
	profile_add_ids(p, names, ft, s1, 4, 3, NULL, 0);
	profile_add_ids(p, names, ft, s2, 3, 2, NULL, 0);
	s1[2] = other;
	profile_add_ids(p, names, ft, s1, 4, 1, NULL, 0);
	pb = encode_unpack(p, &gz, &gzlen);
	ok(pb != NULL, "rich: unpacked");
	if (pb == NULL)
		goto out;
	is_int(pb->n_mapping, 3, "three mappings");
	ok(pb->n_mapping > 0 && strcmp(str(pb, pb->mapping[0]->filename),
	    "/usr/bin/app") == 0 && pb->mapping[0]->id == 1,
	    "the program first, for go tool pprof's main binary");
	lf = location_named(pb, "foo::bar()", 0);
	la = location_named(pb, "app+0x1234", 0);
	lk = location_named(pb, "schedule", 0);
	ok(lf != NULL && la != NULL && lk != NULL, "native locations");
	if (lf == NULL || la == NULL || lk == NULL)
		goto out;
	is_int(lf->address, 0x1a2b, "address in the file's terms");
	m = find_mapping(pb, lf->mapping_id);
	ok(m != NULL && strcmp(str(pb, m->filename),
	    "/usr/lib/libfoo.so.1") == 0 && m->memory_start == 0x1000 &&
	    m->memory_limit == 0x5000 && m->file_offset == 0x1000 &&
	    strcmp(str(pb, m->build_id), "abcd01") == 0 && m->has_functions &&
	    !m->has_filenames && !m->has_line_numbers,
	    "the library's mapping: range, offset, build id, flags");
	ff = find_function(pb, lf->line[0]->function_id);
	ok(ff != NULL && strcmp(str(pb, ff->system_name), "_ZN3foo3barEv") ==
	    0, "system_name: the symbol as the file spells it");
	m = find_mapping(pb, la->mapping_id);
	ok(m != NULL && m->id == 1 && !m->has_functions && la->address ==
	    0x1234, "an unnamed frame: the program's mapping, no functions");
	m = find_mapping(pb, lk->mapping_id);
	ok(m != NULL && strcmp(str(pb, m->filename), "[kernel.kallsyms]") ==
	    0 && lk->address == 0xffffffff81000000ULL,
	    "a kernel frame: the kernel's mapping, its address");
	l10 = location_named(pb, "Job.run", 10);
	l12 = location_named(pb, "Job.run", 12);
	ok(l10 != NULL && l12 != NULL && l10 != l12,
	    "python: a location per line");
	if (l10 == NULL || l12 == NULL)
		goto out;
	f10 = find_function(pb, l10->line[0]->function_id);
	f12 = find_function(pb, l12->line[0]->function_id);
	ok(f10 == f12 && f10 != NULL && strcmp(str(pb, f10->filename),
	    "/srv/a.py") == 0 && l10->mapping_id == 0,
	    "python: one function, its file, lines on the locations");
	good = 1;
	for (i = 0; i < pb->n_sample; i++)
		if (pb->sample[i]->n_label != 1 ||
		    strcmp(str(pb, pb->sample[i]->label[0]->key),
		    "service_name") != 0)
			good = 0;
	ok(good, "labels on samples, but not __names__, names Pyroscope "
	    "would not take, values not plain ASCII, empty values");
	is_int(pb->n_comment, 5, "all in the comments still");
out:
	frames_free(pb, gz, p, ft, names);
}

/*
 * Locations by address: a function sampled at two addresses is two
 * Locations of one Function, each with its own line; the frames of one
 * address (a Go function and the one inlined into it) are one Location
 * whose Lines go innermost first; a stack by names only keeps one
 * Location per name.  Folded lines add up what pprof keeps apart.
 */
static void
test_addresses(void)
{
	struct intern				*names;
	struct frametab				*ft;
	struct frametab_map			 fm;
	struct frametab_frame			 fr;
	struct profile				*p;
	Profile					*pb;
	const Perftools__Profiles__Location	*l1, *l2, *li;
	const Perftools__Profiles__Function	*fa, *fb;
	unsigned char				*gz;
	const char				*byname[2] = { "app", "hot" };
	char					*text = NULL;
	size_t					 gzlen, textlen, i, nloc = 0;
	uint32_t				 s1[3], s2[3], s3[4];
	FILE					*f;

	names = intern_create();
	ft = frametab_create();
	intern_add(names, "");
	memset(&fm, 0, sizeof(fm));
	fm.start = 0x1000;
	fm.limit = 0x9000;
	fm.file = intern_add(names, "/usr/bin/app");
	fm.flags = FRAMETAB_MAP_FUNCTIONS | FRAMETAB_MAP_FILENAMES |
	    FRAMETAB_MAP_LINES;
	memset(&fr, 0, sizeof(fr));
	fr.map = frametab_map_add(ft, &fm);
	fr.file = intern_add(names, "/src/app.go");

	s1[0] = s2[0] = s3[0] = frametab_loc_add(ft, intern_add(names, "app"),
	    NULL);
	fr.addr = 0x1100;
	fr.line = 5;
	s1[1] = s2[1] = s3[1] = frametab_loc_add(ft,
	    intern_add(names, "main"), &fr);
	fr.addr = 0x2010;
	fr.line = 20;
	s1[2] = frametab_loc_add(ft, intern_add(names, "hot"), &fr);
	fr.addr = 0x2040;
	fr.line = 23;
	s2[2] = frametab_loc_add(ft, intern_add(names, "hot"), &fr);
	ok(s1[2] != s2[2], "two addresses of a function: two locations");
	/* At 0x3000: outer, and inner inlined into it. */
	fr.addr = 0x3000;
	fr.line = 41;
	fr.flags = FRAMETAB_FRAME_INLINES;
	s3[2] = frametab_loc_add(ft, intern_add(names, "outer"), &fr);
	fr.line = 7;
	fr.flags = 0;
	s3[3] = frametab_loc_add(ft, intern_add(names, "inner"), &fr);

	p = profile_create(PROFILE_TYPE_CPU, PERIOD, T0, DURATION);
	profile_add_ids(p, names, ft, s1, 3, 3, NULL, 0);
	profile_add_ids(p, names, ft, s2, 3, 1, NULL, 0);
	profile_add_ids(p, names, ft, s1, 3, 2, NULL, 0);
	profile_add_ids(p, names, ft, s3, 4, 4, NULL, 0);
	profile_add(p, byname, 2, 1);
	is_int(profile_nstacks(p), 4, "a stack per address, one by names");
	ok(profile_stack_locs(p, 0) != NULL && profile_stack_locs(p, 3) ==
	    NULL, "locations kept with the stacks that came with them");
	f = open_memstream(&text, &textlen);
	ok(folded_write(p, f) == 0, "folded");
	fclose(f);
	is_str(text, "app;hot 1\napp;main;hot 6\napp;main;outer;inner 4\n",
	    "folded: the names, the addresses added up");
	free(text);

	pb = encode_unpack(p, &gz, &gzlen);
	ok(pb != NULL, "addresses: unpacked");
	if (pb == NULL)
		goto out;
	l1 = location_named(pb, "hot", 20);
	l2 = location_named(pb, "hot", 23);
	ok(l1 != NULL && l2 != NULL && l1 != l2 && l1->address == 0x2010 &&
	    l2->address == 0x2040 && l1->mapping_id != 0,
	    "a Location per address, its own line");
	if (l1 == NULL || l2 == NULL)
		goto out;
	fa = find_function(pb, l1->line[0]->function_id);
	fb = find_function(pb, l2->line[0]->function_id);
	ok(fa != NULL && fa == fb, "one Function for both");
	li = location_named(pb, "inner", 7);
	ok(li != NULL && li->n_line == 2 && li->address == 0x3000,
	    "the frames of one address: one Location, two Lines");
	if (li != NULL && li->n_line == 2) {
		fa = find_function(pb, li->line[1]->function_id);
		ok(fa != NULL && strcmp(str(pb, fa->name), "outer") == 0 &&
		    li->line[1]->line == 41,
		    "innermost first, the function it is inlined into last");
	}
	ok(location_named(pb, "outer", 41) == NULL,
	    "no Location of the outer function alone");
	for (i = 0; i < pb->n_sample; i++)
		if (pb->sample[i]->value[0] == 4 * PERIOD)
			nloc = pb->sample[i]->n_location_id;
	is_int(nloc, 3, "its sample: three Locations for four frames");
	is_int(pb->n_sample, 4, "a sample per stack");
	is_int(pb->n_location, 7, "seven Locations: app twice (by name "
	    "and not), main, hot twice, inner, hot by name");
out:
	frames_free(pb, gz, p, ft, names);
}

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
test_big(void)
{
	struct profile	*p;
	Profile		*pb;
	unsigned char	*gz;
	char		 names[2000][16];
	const char	*f[20];
	double		 t0, t1;
	int64_t		 total;
	size_t		 gzlen, i, k;

	for (i = 0; i < 2000; i++)
		snprintf(names[i], sizeof(names[i]), "fn_%zu", i);
	p = profile_create(PROFILE_TYPE_CPU, PERIOD, T0, DURATION);
	for (i = 0; i < 10000; i++) {
		for (k = 0; k < 18; k++)
			f[k] = names[(i * 3 + k * 11) % 2000];
		f[18] = names[i % 2000];
		f[19] = names[i / 2000];
		profile_add(p, f, 20, 1 + i % 5);
	}
	t0 = now();
	pb = encode_unpack(p, &gz, &gzlen);
	t1 = now();
	ok(pb != NULL, "10,000 stacks: unpacked");
	if (pb == NULL)
		return;
	printf("# encode+decode of 10,000 stacks: %.1f ms, %zu bytes\n",
	    (t1 - t0) * 1e3, gzlen);
	is_int(pb->n_sample, 10000, "10,000 samples");
	is_int(pb->n_function, 2000, "2,000 functions");
	total = 0;
	for (i = 0; i < pb->n_sample; i++)
		total += pb->sample[i]->value[0];
	is_int(total, (int64_t)profile_total(p) * (int64_t)PERIOD,
	    "total preserved");
	perftools__profiles__profile__free_unpacked(pb, NULL);
	free(gz);
	profile_free(p);
}

/* Write buf to tmpdir/name; the path, to be freed, or NULL. */
static char *
write_file(const char *name, const unsigned char *buf, size_t len)
{
	FILE	*f;
	char	*path;

	if (asprintf(&path, "%s/%s", tmpdir, name) == -1)
		return NULL;
	if ((f = fopen(path, "w")) == NULL) {
		free(path);
		return NULL;
	}
	fwrite(buf, 1, len, f);
	if (fclose(f) == EOF) {
		free(path);
		return NULL;
	}
	return path;
}

/* Run a shell command; its standard output, to be freed. */
static char *
run(const char *cmd, int *status)
{
	FILE	*p, *out;
	char	*buf = NULL, chunk[4096];
	size_t	 len, n;

	out = open_memstream(&buf, &len);
	if ((p = popen(cmd, "r")) == NULL) {
		*status = -1;
		fclose(out);
		return buf;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, n, out);
	*status = pclose(p);
	fclose(out);
	return buf;
}

static int
have(const char *prog)
{
	char	*cmd;
	int	 rv;

	if (asprintf(&cmd, "command -v %s >/dev/null 2>&1", prog) == -1)
		return 0;
	rv = system(cmd) == 0;
	free(cmd);
	return rv;
}

/* A hand-made protobuf message, for the wire forms protobuf-c avoids. */
struct wire {
	unsigned char	 b[1024];
	size_t		 n;
};

static void
wire_varint(struct wire *w, uint64_t v)
{
	do {
		w->b[w->n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v != 0);
}

static void
wire_int(struct wire *w, int field, uint64_t v)
{
	wire_varint(w, (uint64_t)field << 3);
	wire_varint(w, v);
}

static void
wire_bytes(struct wire *w, int field, const void *p, size_t len)
{
	wire_varint(w, (uint64_t)field << 3 | 2);
	wire_varint(w, len);
	memcpy(w->b + w->n, p, len);
	w->n += len;
}

static void
wire_msg(struct wire *w, int field, const struct wire *m)
{
	wire_bytes(w, field, m->b, m->n);
}

static void
wire_string(struct wire *w, const char *s)
{
	wire_bytes(w, 6, s, strlen(s));
}

/*
 * A profile as other encoders may write it: repeated fields not packed,
 * multi-byte and negative varints, an inlined location, fields the
 * decoder does not know, no gzip.
 */
static void
test_python_wire(const char *src)
{
	struct wire	 pb, m, sub, packed;
	char		*path, *cmd, *out;
	int		 st;

	memset(&pb, 0, sizeof(pb));
	wire_string(&pb, "");
	wire_string(&pb, "cpu");
	wire_string(&pb, "nanoseconds");
	wire_string(&pb, "main");
	wire_string(&pb, "leaf");
	wire_string(&pb, "inl");
	memset(&m, 0, sizeof(m));
	wire_int(&m, 1, 1);
	wire_int(&m, 2, 2);
	wire_msg(&pb, 1, &m);			/* sample_type */
	wire_msg(&pb, 11, &m);			/* period_type */
	wire_int(&pb, 9, (uint64_t)-1);		/* time_nanos -1 */
	/* fixed64 and fixed32 fields of a newer schema: skipped. */
	wire_varint(&pb, 15 << 3 | 1);
	memset(pb.b + pb.n, 0xff, 8);
	pb.n += 8;
	wire_varint(&pb, 16 << 3 | 5);
	memset(pb.b + pb.n, 0xff, 4);
	pb.n += 4;

	/* Functions 1 main, 2 leaf, 3 inl. */
	memset(&m, 0, sizeof(m));
	wire_int(&m, 1, 1);
	wire_int(&m, 2, 3);
	wire_msg(&pb, 5, &m);
	memset(&m, 0, sizeof(m));
	wire_int(&m, 1, 2);
	wire_int(&m, 2, 4);
	wire_msg(&pb, 5, &m);
	memset(&m, 0, sizeof(m));
	wire_int(&m, 1, 3);
	wire_int(&m, 2, 5);
	wire_msg(&pb, 5, &m);

	/* Location 10: main; 1 << 40: leaf; 30: inl inlined into leaf. */
	memset(&m, 0, sizeof(m));
	wire_int(&m, 1, 10);
	memset(&sub, 0, sizeof(sub));
	wire_int(&sub, 1, 1);
	wire_msg(&m, 4, &sub);
	wire_msg(&pb, 4, &m);
	memset(&m, 0, sizeof(m));
	wire_int(&m, 1, 1ULL << 40);
	memset(&sub, 0, sizeof(sub));
	wire_int(&sub, 1, 2);
	wire_msg(&m, 4, &sub);
	wire_msg(&pb, 4, &m);
	memset(&m, 0, sizeof(m));
	wire_int(&m, 1, 30);
	memset(&sub, 0, sizeof(sub));
	wire_int(&sub, 1, 3);
	wire_msg(&m, 4, &sub);
	memset(&sub, 0, sizeof(sub));
	wire_int(&sub, 1, 2);
	wire_msg(&m, 4, &sub);
	wire_msg(&pb, 4, &m);

	/* Sample main;leaf 5, location ids and value unpacked. */
	memset(&m, 0, sizeof(m));
	wire_int(&m, 1, 1ULL << 40);
	wire_int(&m, 1, 10);
	wire_int(&m, 2, 5);
	wire_msg(&pb, 2, &m);
	/* The same stack again, packed, value 300. */
	memset(&m, 0, sizeof(m));
	memset(&packed, 0, sizeof(packed));
	wire_varint(&packed, 1ULL << 40);
	wire_varint(&packed, 10);
	wire_bytes(&m, 1, packed.b, packed.n);
	memset(&packed, 0, sizeof(packed));
	wire_varint(&packed, 300);
	wire_bytes(&m, 2, packed.b, packed.n);
	wire_msg(&pb, 2, &m);
	/* main;leaf;inl 7. */
	memset(&m, 0, sizeof(m));
	wire_int(&m, 1, 30);
	wire_int(&m, 1, 10);
	wire_int(&m, 2, 7);
	wire_msg(&pb, 2, &m);

	if ((path = write_file("wire.pb", pb.b, pb.n)) == NULL) {
		ok(0, "write wire.pb");
		return;
	}
	if (asprintf(&cmd, "python3 '%s/t/helper/pprof_decode.py' '%s'",
	    src, path) == -1)
		abort();
	out = run(cmd, &st);
	is_str(out, "main;leaf 305\nmain;leaf;inl 7\n",
	    "pprof_decode.py: unpacked, packed, inlined, not gzipped");
	free(out);
	free(cmd);
	if (asprintf(&cmd, "python3 '%s/t/helper/pprof_decode.py' --summary "
	    "'%s'", src, path) == -1)
		abort();
	out = run(cmd, &st);
	ok(out != NULL && strstr(out, "\ntotal: 312\n") != NULL &&
	    strstr(out, "\ntime_nanos: -1\n") != NULL &&
	    strstr(out, "samples: 3\n") != NULL,
	    "pprof_decode.py --summary: total, negative int64");
	free(out);
	free(cmd);
	free(path);
}

static void
test_python(void)
{
	struct profile	*p;
	unsigned char	*gz;
	const char	*src;
	char		*path, *cmd, *out;
	size_t		 gzlen;
	int		 st;

	src = getenv("EBPFSPY_SOURCE_DIR");
	if (!have("python3") || src == NULL) {
		printf("ok %d # SKIP %s\n", ++tap_n, src == NULL ?
		    "EBPFSPY_SOURCE_DIR not set" : "python3 not found");
		return;
	}
	p = cpu_profile();
	if (pprof_encode(p, &gz, &gzlen) == -1 ||
	    (path = write_file("cpu.pb.gz", gz, gzlen)) == NULL) {
		ok(0, "python: write the profile");
		profile_free(p);
		return;
	}

	if (asprintf(&cmd, "python3 '%s/t/helper/pprof_decode.py' '%s'",
	    src, path) == -1)
		abort();
	out = run(cmd, &st);
	is_int(st, 0, "pprof_decode.py exits 0");
	is_str(out, cpu_decoded, "pprof_decode.py: the same stacks");
	free(out);
	free(cmd);

	if (asprintf(&cmd, "python3 '%s/t/helper/pprof_decode.py' --summary "
	    "'%s'", src, path) == -1)
		abort();
	out = run(cmd, &st);
	is_str(out,
	    "sample_types: cpu/nanoseconds\n"
	    "period_type: cpu/nanoseconds\n"
	    "period: 10000000\n"
	    "samples: 5\n"
	    "total: 180000000\n"
	    "time_nanos: 1764670500000000000\n"
	    "duration_nanos: 15000000000\n"
	    "comment: service_name=web\n"
	    "comment: env=prod\n",
	    "pprof_decode.py --summary");
	free(out);
	free(cmd);

	/* A truncated file is an error, not a traceback or a result. */
	free(path);
	path = write_file("short.pb.gz", gz, gzlen / 2);
	if (asprintf(&cmd, "python3 '%s/t/helper/pprof_decode.py' '%s' "
	    "2>/dev/null", src, path) == -1)
		abort();
	out = run(cmd, &st);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 1, "truncated file: exit 1");
	is_str(out, "", "truncated file: no output");
	free(out);
	free(cmd);
	free(path);
	free(gz);
	profile_free(p);

	test_python_wire(src);
}

/*
 * go tool pprof -raw prints "Samples:" then "value: loc loc ..." lines
 * (leaf first) and "Locations" with "id: 0xaddr M=n name file:line
 * s=n" lines.  Rebuild the stacks from them.
 */
static char *
go_fold(char *text, int64_t *total)
{
	FILE	*f;
	char	*buf = NULL, *line, *save, *p, *q, *names[64];
	char	*samples[32];
	size_t	 len, nsamples = 0, i, n;
	long	 id, ids[64];
	int64_t	 v;
	int	 section = 0;

	memset(names, 0, sizeof(names));
	*total = 0;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, "Samples:") == 0)
			section = 1;
		else if (strcmp(line, "Locations") == 0)
			section = 2;
		else if (strcmp(line, "Mappings") == 0)
			section = 3;
		else if (section == 1 && strchr(line, ':') != NULL &&
		    strstr(line, ":[") == NULL && nsamples < 32)
			samples[nsamples++] = line;
		else if (section == 2) {
			id = strtol(line, &p, 10);
			if (id <= 0 || id >= 64 || *p != ':' ||
			    (p = strstr(p, " M=")) == NULL ||
			    (p = strchr(p + 1, ' ')) == NULL ||
			    (q = strstr(p, " :0 s=")) == NULL)
				continue;
			*q = '\0';
			names[id] = p + 1;
		}
	}
	f = open_memstream(&buf, &len);
	for (i = 0; i < nsamples; i++) {
		n = 0;
		v = strtoll(samples[i], &p, 10);
		*total += v;
		for (p++; n < 64 && (id = strtol(p, &q, 10)) > 0; p = q)
			ids[n++] = id;
		while (n > 0) {
			n--;
			fprintf(f, "%s%s", ids[n] > 0 && ids[n] < 64 &&
			    names[ids[n]] ? names[ids[n]] : "?", n ? ";" : "");
		}
		fprintf(f, " %" PRId64 "\n", v);
	}
	fclose(f);
	return buf;
}

static void
test_go(void)
{
	struct profile	*p;
	unsigned char	*gz;
	char		*path, *cmd, *out, *folded;
	size_t		 gzlen;
	int64_t		 total;
	int		 st;

	if (!have("go")) {
		printf("ok %d # SKIP go not found\n", ++tap_n);
		return;
	}
	p = cpu_profile();
	if (pprof_encode(p, &gz, &gzlen) == -1 ||
	    (path = write_file("go.pb.gz", gz, gzlen)) == NULL) {
		ok(0, "go: write the profile");
		profile_free(p);
		return;
	}
	if (asprintf(&cmd, "go tool pprof -raw '%s' 2>/dev/null", path) == -1)
		abort();
	out = run(cmd, &st);
	is_int(st, 0, "go tool pprof -raw exits 0");
	ok(strstr(out, "PeriodType: cpu nanoseconds\n") != NULL,
	    "go: period type cpu nanoseconds");
	ok(strstr(out, "Period: 10000000\n") != NULL, "go: period");
	ok(strstr(out, "Duration: 15s\n") != NULL, "go: duration");
	ok(strstr(out, "Comment: service_name=web\n") != NULL,
	    "go: the label as a comment");
	ok(strstr(out, "cpu/nanoseconds\n") != NULL, "go: sample type");
	folded = go_fold(out, &total);
	is_int(total, 180000000, "go: total of the samples");
	is_str(folded, cpu_folded, "go: the same stacks, leaf first");
	free(folded);
	free(out);
	free(cmd);
	free(path);
	free(gz);
	profile_free(p);
}

static void
cleanup(void)
{
	char	*cmd;

	if (asprintf(&cmd, "rm -rf '%s'", tmpdir) != -1) {
		if (system(cmd) != 0)
			diag("cleanup failed");
		free(cmd);
	}
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_cpu();
	test_offcpu();
	test_rich();
	test_addresses();
	test_big();
	test_python();
	test_go();
	cleanup();
	return done_testing();
}
