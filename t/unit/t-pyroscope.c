/*
 * The Pyroscope sink's requests and settings, without a server: labels
 * made acceptable to Pyroscope, the PushRequest read back with the
 * generated decoder, splitting, the legacy /ingest target, and the
 * checks of url, headers and secrets.
 */
#include <stdio.h>
#include <stdlib.h>

#include <zlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "push/push.pb-c.h"
#include "push/pyroscope.h"
#include "push/pyroscope_conf.h"
#include "push/pyroscope_req.h"
#include "push/pyroscope_trim.h"
#include "profile/profile.pb-c.h"
#include "util/xmalloc.h"
#include "tap.h"

static struct profile *
mkprofile(enum profile_type t, const char *svc, int nstacks)
{
	struct profile	*p;
	const char	*frames[3];
	char		 leaf[32];
	int		 i;

	p = profile_create(t, t == PROFILE_TYPE_CPU ? 10000000 : 1,
	    1700000000123456789LL, 15000000000LL);
	if (svc != NULL)
		profile_label_set(p, "service_name", svc);
	for (i = 0; i < nstacks; i++) {
		snprintf(leaf, sizeof(leaf), "leaf_%d", i);
		frames[0] = "main";
		frames[1] = "work";
		frames[2] = leaf;
		profile_add(p, frames, 3, i + 1);
	}
	return p;
}

/* "name=value,..." of a profile's series labels, with globals g. */
static char *
labels_with(const struct profile *p, const struct pyroscope_globals *g)
{
	char	**names, **values, *s = xstrdup(""), *t;
	size_t	 n, i;

	n = pyroscope_req_labels(p, g, &names, &values);
	for (i = 0; i < n; i++) {
		xasprintf(&t, "%s%s%s=%s", s, i ? "," : "", names[i],
		    values[i]);
		free(s);
		s = t;
	}
	pyroscope_req_labels_free(names, values, n);
	return s;
}

static char *
labels_of(const struct profile *p)
{
	return labels_with(p, NULL);
}

static void
test_labels(void)
{
	char		*gn[] = { "cluster", "zone" }, *gv[] = { "prod", "us" };
	struct pyroscope_globals globals = { gn, gv, 2 };
	struct profile	*p;
	char		*s, big[3000];

	p = mkprofile(PROFILE_TYPE_CPU, "api", 1);
	profile_label_set(p, "zone", "eu-1");
	profile_label_set(p, "Region", "x");
	s = labels_of(p);
	is_str(s, "Region=x,__name__=process_cpu,service_name=api,zone=eu-1",
	    "cpu: __name__, service_name and the rest, sorted by name");
	free(s);
	profile_free(p);

	p = mkprofile(PROFILE_TYPE_OFFCPU, "db", 1);
	profile_label_set(p, "host.name", "a");
	profile_label_set(p, "9lives", "b");
	profile_label_set(p, "__private", "c");
	profile_label_set(p, "empty", "");
	profile_label_set(p, "ok\xff", "bad\xc3\x28utf8\xe2\x82\xac");
	s = labels_of(p);
	is_str(s, "_9lives=b,__name__=offcpu,host_name=a,"
	    "ok_=bad?(utf8\xe2\x82\xac,service_name=db",
	    "offcpu: names made valid, __ and empty ones left out, values "
	    "made UTF-8");
	free(s);
	profile_free(p);

	p = mkprofile(PROFILE_TYPE_CPU, NULL, 1);
	profile_label_set(p, "service.name", "dup");
	profile_label_set(p, "service_name2", "x");
	s = labels_of(p);
	is_str(s, "__name__=process_cpu,service_name=unknown,"
	    "service_name2=x", "no service_name: \"unknown\"; a label "
	    "renamed onto service_name is left out");
	free(s);
	profile_free(p);

	p = mkprofile(PROFILE_TYPE_CPU, "web", 1);
	profile_label_set(p, "zone", "eu-1");
	s = labels_with(p, &globals);
	is_str(s, "__name__=process_cpu,cluster=prod,service_name=web,"
	    "zone=eu-1", "global labels are added; the target's own zone "
	    "wins over the global one");
	free(s);
	profile_free(p);

	p = mkprofile(PROFILE_TYPE_CPU, "big", 1);
	memset(big, 'v', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	profile_label_set(p, "long", big);
	s = labels_of(p);
	ok(strlen(s) < 1100, "a long value is cut (%zu bytes)", strlen(s));
	free(s);
	profile_free(p);
}

static void
test_push(void)
{
	struct pyroscope_reqs	 q;
	struct pyroscope_req	*r;
	struct profile		*profs[3];
	Push__V1__PushRequest	*pr;
	Push__V1__RawProfileSeries *s;
	size_t			 i, nreq = 0, nseries = 0;

	profs[0] = mkprofile(PROFILE_TYPE_CPU, "a", 10);
	profs[1] = mkprofile(PROFILE_TYPE_OFFCPU, "a", 10);
	profs[2] = mkprofile(PROFILE_TYPE_CPU, "b", 10);
	TAILQ_INIT(&q);
	is_int(pyroscope_req_push(&q, profs, 3, NULL), 0,
	    "three profiles encoded");
	TAILQ_FOREACH(r, &q, entry) {
		is_str(r->target, PYROSCOPE_PUSH_PATH, "to the Push API");
		ok(pyroscope_req_is_push(r->target), "which is_push knows");
		is_int(r->nprofiles, 1, "request %zu: one profile", nreq);
		is_int(r->time, 1700000000, "request %zu: its time", nreq);
		pr = push__v1__push_request__unpack(NULL, r->len, r->body);
		ok(pr != NULL && pr->n_series == 1, "request %zu: a "
		    "PushRequest of one series", nreq);
		if (pr == NULL || pr->n_series != 1)
			continue;
		s = pr->series[0];
		ok(s->n_labels == 2 &&
		    strcmp(s->labels[0]->name, "__name__") == 0 &&
		    strcmp(s->labels[1]->name, "service_name") == 0,
		    "series %zu: __name__, service_name", nreq);
		ok(s->n_samples == 1 && s->samples[0]->raw_profile.len > 18 &&
		    s->samples[0]->raw_profile.data[0] == 0x1f &&
		    s->samples[0]->raw_profile.data[1] == 0x8b,
		    "series %zu: one sample, a gzipped profile", nreq);
		is_int(strlen(s->samples[0]->id), 36, "series %zu: a UUID",
		    nreq);
		if (nreq == 1)
			is_str(s->labels[0]->value, "offcpu", "the off-CPU "
			    "one is offcpu");
		if (nreq == 2)
			is_str(s->labels[1]->value, "b", "the last one is b");
		push__v1__push_request__free_unpacked(pr, NULL);
		nreq++;
		nseries++;
	}
	is_int(nreq, 3, "three requests");
	while ((r = TAILQ_FIRST(&q)) != NULL) {
		TAILQ_REMOVE(&q, r, entry);
		pyroscope_req_free(r);
	}
	for (i = 0; i < 3; i++)
		profile_free(profs[i]);
	pyroscope_req_push(&q, profs, 0, NULL);
	ok(TAILQ_EMPTY(&q), "no profiles, no request");
}

static void
test_ingest(void)
{
	char			*gn[] = { "env" }, *gv[] = { "prod" };
	struct pyroscope_globals globals = { gn, gv, 1 };
	struct pyroscope_reqs	 q;
	struct pyroscope_req	*r;
	struct profile		*profs[2];

	profs[0] = mkprofile(PROFILE_TYPE_CPU, "my app/1", 2);
	profile_label_set(profs[0], "pod", "p,1}");
	profs[1] = mkprofile(PROFILE_TYPE_OFFCPU, "db", 2);
	TAILQ_INIT(&q);
	pyroscope_req_ingest(&q, profs, 2, 1700000000500000000LL,
	    1700000015100000000LL, 97, &globals);
	r = TAILQ_FIRST(&q);
	is_str(r->target, "/ingest?name=my_app%2F1%7Benv%3Dprod%2Cpod%3D"
	    "p_1_%7D&from=1700000000&until=1700000016&sampleRate=97"
	    "&spyName=ebpfspy&format=pprof", "cpu: the service with no "
	    "type suffix, labels and globals, times, rate");
	ok(!pyroscope_req_is_push(r->target), "not the Push API");
	r = TAILQ_NEXT(r, entry);
	is_str(r->target, "/ingest?name=db%7Benv%3Dprod%7D&from=1700000000"
	    "&until=1700000016&spyName=ebpfspy&format=pprof",
	    "offcpu: the same service name, no sample rate");
	ok(r->body[0] == 0x1f && r->nprofiles == 1, "a gzipped profile");
	while ((r = TAILQ_FIRST(&q)) != NULL) {
		TAILQ_REMOVE(&q, r, entry);
		pyroscope_req_free(r);
	}
	profile_free(profs[0]);
	profile_free(profs[1]);
}

/*
 * The round's encodings (sinks.c makes them once for every sink) go
 * into the requests as they are; one that failed drops its profile.
 */
static void
test_enc(void)
{
	struct pyroscope_reqs	 q;
	struct pyroscope_req	*r;
	struct profile		*profs[2];
	struct pprof_buf	 bufs[2];
	Push__V1__PushRequest	*pr;
	unsigned char		 mark[] = "not a gzip stream, as given";

	profs[0] = mkprofile(PROFILE_TYPE_CPU, "a", 3);
	profs[1] = mkprofile(PROFILE_TYPE_CPU, "b", 3);
	bufs[0].buf = mark;
	bufs[0].len = sizeof(mark);
	bufs[1].buf = NULL;
	bufs[1].len = 0;
	TAILQ_INIT(&q);
	is_int(pyroscope_req_push_enc(&q, profs, bufs, 2, NULL), 1,
	    "push: the profile whose encoding failed is dropped");
	r = TAILQ_FIRST(&q);
	pr = r != NULL ? push__v1__push_request__unpack(NULL, r->len,
	    r->body) : NULL;
	ok(pr != NULL && pr->n_series == 1 &&
	    pr->series[0]->samples[0]->raw_profile.len == sizeof(mark) &&
	    memcmp(pr->series[0]->samples[0]->raw_profile.data, mark,
	    sizeof(mark)) == 0, "push: the other's bytes, as given");
	if (pr != NULL)
		push__v1__push_request__free_unpacked(pr, NULL);
	while ((r = TAILQ_FIRST(&q)) != NULL) {
		TAILQ_REMOVE(&q, r, entry);
		pyroscope_req_free(r);
	}

	is_int(pyroscope_req_ingest_enc(&q, profs, bufs, 2, 0, 1000000000,
	    97, NULL), 1, "ingest: the one that failed is dropped");
	r = TAILQ_FIRST(&q);
	ok(r != NULL && TAILQ_NEXT(r, entry) == NULL &&
	    r->len == sizeof(mark) && r->body != mark &&
	    memcmp(r->body, mark, sizeof(mark)) == 0,
	    "ingest: the body is a copy of the bytes given");
	while ((r = TAILQ_FIRST(&q)) != NULL) {
		TAILQ_REMOVE(&q, r, entry);
		pyroscope_req_free(r);
	}
	profile_free(profs[0]);
	profile_free(profs[1]);
}

static void
test_checks(void)
{
	char	**h;
	size_t	 n;
	const char *why;

	ok(pyroscope_url_check("") == NULL, "empty url: off");
	ok(pyroscope_url_check("http://localhost:4040") == NULL, "http");
	ok(pyroscope_url_check("HTTPS://p.example.com/prefix/") == NULL,
	    "https with a path");
	ok(pyroscope_url_check("ftp://x") != NULL, "ftp");
	ok(pyroscope_url_check("localhost:4040") != NULL, "no scheme");
	ok(pyroscope_url_check("http://") != NULL, "no host");
	ok(pyroscope_url_check("http:///x") != NULL, "empty host");
	ok(pyroscope_url_check("http://a b") != NULL, "a space");
	ok(pyroscope_url_check("http://h/?q=1") != NULL, "a query");
	ok(pyroscope_url_check("http://h:99999999") != NULL, "a bad port");

	ok(pyroscope_conf_headers(" A: 1 |B-c:two; words|| ", &h, &n, &why) ==
	    0 && n == 2 && strcmp(h[0], "A: 1") == 0 &&
	    strcmp(h[1], "B-c: two; words") == 0, "two headers, trimmed");
	free(h[0]);
	free(h[1]);
	free(h);
	ok(pyroscope_headers_check("") == NULL, "no headers");
	ok(pyroscope_headers_check("NoColon") != NULL, "no colon");
	ok(pyroscope_headers_check(": x") != NULL, "no name");
	ok(pyroscope_headers_check("Bad Name: x") != NULL, "space in a name");
	ok(pyroscope_headers_check("A: x\r\nB: y") != NULL,
	    "CR LF in a value");
}

static void
test_conf(void)
{
	struct pyroscope_conf	*pc;
	struct config		*conf;
	char			 dir[] = "/tmp/t-pyroscope.XXXXXX", *path;
	FILE			*f;

	conf = config_defaults();
	pc = pyroscope_conf_create(conf);
	ok(pc != NULL && pc->url == NULL, "defaults: off");
	ok(pc->spool_dir != NULL && pc->timeout == 10 &&
	    pc->api == PYROSCOPE_API_PUSH, "defaults: a spool, 10 s, push");
	ok(strcmp(pc->spool_dir, EBPFSPY_OUTDIR "/spool") == 0,
	    "the spool is under the output directory");
	pyroscope_conf_free(pc);

	free(conf->pyroscope_url);
	conf->pyroscope_url = xstrdup("http://h:4040///");
	pc = pyroscope_conf_create(conf);
	is_str(pc->url, "http://h:4040", "trailing slashes go");
	pyroscope_conf_free(pc);

	if (mkdtemp(dir) == NULL)
		return;
	xasprintf(&path, "%s/token", dir);
	free(conf->pyroscope_bearer_token_file);
	conf->pyroscope_bearer_token_file = xstrdup(path);
	ok(pyroscope_conf_create(conf) == NULL, "a missing token file");
	f = fopen(path, "w");
	fputs("  abc \r\nsecond line\n", f);
	fclose(f);
	pc = pyroscope_conf_create(conf);
	is_str(pc ? pc->bearer : NULL, "abc", "the token: first line, "
	    "trimmed");
	f = fopen(path, "w");
	fputs("new\n", f);
	fclose(f);
	pyroscope_conf_refresh(pc);
	is_str(pc->bearer, "new", "re-read before a request");
	unlink(path);
	pyroscope_conf_refresh(pc);
	is_str(pc->bearer, "new", "a vanished file keeps the last token");
	pyroscope_conf_free(pc);
	f = fopen(path, "w");
	fputs("a\001b\n", f);
	fclose(f);
	ok(pyroscope_conf_create(conf) == NULL, "a control character");
	unlink(path);

	free(conf->pyroscope_bearer_token_file);
	conf->pyroscope_bearer_token_file = xstrdup("");
	free(conf->pyroscope_basic_auth_password);
	conf->pyroscope_basic_auth_password = xstrdup("pw");
	ok(pyroscope_conf_create(conf) == NULL, "a password without a user");
	free(conf->pyroscope_basic_auth_user);
	conf->pyroscope_basic_auth_user = xstrdup("u");
	free(conf->pyroscope_basic_auth_password_file);
	conf->pyroscope_basic_auth_password_file = xstrdup(path);
	ok(pyroscope_conf_create(conf) == NULL, "password and password_file");
	free(conf->pyroscope_basic_auth_password_file);
	conf->pyroscope_basic_auth_password_file = xstrdup("");
	pc = pyroscope_conf_create(conf);
	ok(pc != NULL && strcmp(pc->user, "u") == 0 &&
	    strcmp(pc->password, "pw") == 0, "user and password");
	pyroscope_conf_free(pc);
	rmdir(dir);
	free(path);
	config_free(conf);
}

/* Samples and total of a gzipped pprof; -1 if it does not decode. */
static int
pprof_count(const struct pprof_buf *b, size_t *nsamples, uint64_t *total,
    int *has_other)
{
	Perftools__Profiles__Profile	*pp;
	unsigned char			 raw[1 << 20];
	z_stream			 z;
	size_t				 i, j;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -1;
	z.next_in = b->buf;
	z.avail_in = b->len;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	if (inflate(&z, Z_FINISH) != Z_STREAM_END) {
		inflateEnd(&z);
		return -1;
	}
	inflateEnd(&z);
	pp = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	if (pp == NULL)
		return -1;
	*nsamples = pp->n_sample;
	*total = 0;
	*has_other = 0;
	for (i = 0; i < pp->n_sample; i++)
		*total += pp->sample[i]->value[0];
	for (i = 0; i < pp->n_string_table; i++)
		if (strcmp(pp->string_table[i], PYROSCOPE_TRIM_OTHER) == 0)
			*has_other = 1;
	j = z.total_out;
	perftools__profiles__profile__free_unpacked(pp, NULL);
	return (int)(j == pyroscope_trim_size(b));
}

static void
test_trim(void)
{
	struct pyroscope_trim_result	 res;
	struct profile			*p;
	struct pprof_buf		 in, out;
	size_t				 n;
	uint64_t			 total, want;
	int				 other;

	/* 200 stacks of values 1 .. 200 (times the 10 ms period). */
	want = 20100 * 10000000ULL;
	p = mkprofile(PROFILE_TYPE_CPU, "big", 200);
	ok(pprof_encode(p, &in.buf, &in.len) == 0, "encode 200 stacks");
	ok(pprof_count(&in, &n, &total, &other) == 1 && n == 200 &&
	    total == want && !other, "200 samples, their total, ISIZE is "
	    "the size");
	is_int(pyroscope_trim(p, &in, 0, 200, &out, &res), 0,
	    "at the sample limit: untouched");
	is_int(pyroscope_trim(p, &in, pyroscope_trim_size(&in), 0, &out,
	    &res), 0, "at the byte limit: untouched");

	is_int(pyroscope_trim(p, &in, 0, 50, &out, &res), 1,
	    "above 50 samples: trimmed");
	ok(res.samples == 200 && res.merged == 151, "49 kept, 151 merged "
	    "(%zu, %zu)", res.samples, res.merged);
	n = 0;
	ok(pprof_count(&out, &n, &total, &other) == 1 && n == 50 &&
	    total == want && other, "50 samples, one [other], the same "
	    "total (%zu, %llu)", n, (unsigned long long)total);
	free(out.buf);

	is_int(pyroscope_trim(p, &in, res.bytes / 2, 0, &out, &res), 1,
	    "above half its size: trimmed");
	ok(res.new_bytes <= res.bytes / 2 && res.merged > 0 &&
	    pprof_count(&out, &n, &total, &other) == 1 && total == want &&
	    n == 200 - res.merged + 1, "within the bytes (%zu of %zu), the "
	    "same total", res.new_bytes, res.bytes);
	free(out.buf);
	free(in.buf);
	profile_free(p);
}

static void
put_file(const char *path, const char *text)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) != 0)
		printf("# cannot write %s\n", path);
}

/* The errors of loading text as a config file, joined by "\n". */
static char *
load_errors(const char *cpath, const char *text, struct config **confp)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf;
	char			*all = xstrdup(""), *t;
	size_t			 i;

	put_file(cpath, text);
	conf = config_load(cpath, 0, &errs);
	for (i = 0; i < errs.n; i++) {
		xasprintf(&t, "%s%s%s", all, i ? "\n" : "", errs.v[i]);
		free(all);
		all = t;
	}
	config_errors_clear(&errs);
	if (confp != NULL)
		*confp = conf;
	else
		config_free(conf);
	return all;
}

/*
 * Secrets in files of their own: header_file.NAME, and files that cannot
 * be read are config errors at their line, whether the push is on or not.
 */
static void
test_secrets(void)
{
	struct pyroscope_conf	*pc;
	struct config		*conf;
	char			 dir[] = "/tmp/t-pyroscope.XXXXXX", *cpath;
	char			*tok, *pw, *text, *errs, *want, *dump;
	size_t			 len;
	FILE			*f;

	if (mkdtemp(dir) == NULL)
		return;
	xasprintf(&cpath, "%s/ebpfspy.conf", dir);
	xasprintf(&tok, "%s/token", dir);
	xasprintf(&pw, "%s/password", dir);
	put_file(tok, "tok-1\n");
	put_file(pw, "pw-1\n");

	xasprintf(&text, "[pyroscope]\nurl = http://127.0.0.1:1\n"
	    "header_file.X-Token = %s\nbasic_auth_user = u\n"
	    "basic_auth_password_file = %s\n", tok, pw);
	errs = load_errors(cpath, text, &conf);
	free(text);
	is_str(errs, "", "header_file.X-Token loads");
	free(errs);
	pc = conf != NULL ? pyroscope_conf_create(conf) : NULL;
	ok(pc != NULL && pc->nhfiles == 1 &&
	    strcmp(pc->hfile_lines[0], "X-Token: tok-1") == 0 &&
	    strcmp(pc->password, "pw-1") == 0,
	    "the header's value and the password are the files'");
	put_file(tok, "tok-2\n");
	if (pc != NULL)
		pyroscope_conf_refresh(pc);
	ok(pc != NULL && strcmp(pc->hfile_lines[0], "X-Token: tok-2") == 0,
	    "a rotated header file is read again");
	unlink(tok);
	if (pc != NULL)
		pyroscope_conf_refresh(pc);
	ok(pc != NULL && strcmp(pc->hfile_lines[0], "X-Token: tok-2") == 0,
	    "a vanished one keeps the last value");
	pyroscope_conf_free(pc);
	dump = NULL;
	if (conf != NULL && (f = open_memstream(&dump, &len)) != NULL) {
		config_dump(conf, f);
		fclose(f);
	}
	ok(dump != NULL && strstr(dump, "header_file.X-Token = ") != NULL &&
	    strstr(dump, "tok-") == NULL && strstr(dump, "pw-1") == NULL,
	    "the dump names the files, not what they hold");
	free(dump);
	config_free(conf);

	/* The file of line 3 is missing: an error at that line. */
	xasprintf(&text, "[pyroscope]\nurl =\nheader_file.X-Token = %s\n"
	    "bearer_token_file = %s\nbasic_auth_password_file = %s\n",
	    tok, tok, tok);
	errs = load_errors(cpath, text, NULL);
	free(text);
	xasprintf(&want, "%s:3: [pyroscope] header_file.X-Token: %s: No such "
	    "file or directory\n"
	    "%s:4: [pyroscope] bearer_token_file: %s: No such file or "
	    "directory\n"
	    "%s:5: [pyroscope] basic_auth_password_file: %s: No such file "
	    "or directory", cpath, tok, cpath, tok, cpath, tok);
	is_str(errs, want, "missing files are errors at their lines, the "
	    "push off or not");
	free(want);
	free(errs);

	put_file(tok, "tok\n");
	xasprintf(&text, "[pyroscope]\nheader_file.Bad Name = %s\n"
	    "header_file.X-A = %s\nheader_file.x-a = %s\n"
	    "header_file.X-Empty = %s\n", tok, tok, tok, dir);
	errs = load_errors(cpath, text, NULL);
	free(text);
	ok(strstr(errs, ":2: [pyroscope] header_file.Bad Name: ") != NULL &&
	    strstr(errs, "invalid character in a header name") != NULL,
	    "a bad header name");
	ok(strstr(errs, ":4: [pyroscope] header_file.x-a: ") != NULL &&
	    strstr(errs, "duplicate header") != NULL, "a header twice");
	ok(strstr(errs, ":5: [pyroscope] header_file.X-Empty: ") != NULL,
	    "a directory is no secret");
	free(errs);

	xasprintf(&text, "[pyroscope]\nurl = http://127.0.0.1:1\n"
	    "headers = x-token: inline\nheader_file.X-Token = %s\n", tok);
	errs = load_errors(cpath, text, &conf);
	free(text);
	ok(conf != NULL && pyroscope_conf_create(conf) == NULL,
	    "a header both inline and from a file");
	free(errs);
	config_free(conf);

	unlink(tok);
	unlink(pw);
	unlink(cpath);
	rmdir(dir);
	free(tok);
	free(pw);
	free(cpath);
}

int
main(void)
{
	test_labels();
	test_push();
	test_ingest();
	test_enc();
	test_checks();
	test_conf();
	test_secrets();
	test_trim();
	return done_testing();
}
