/*
 * The files sink, in a scratch directory: the layout and names, -N
 * suffixes, no temporary files left behind (also when a write fails),
 * service names that must not escape the directory, and a file where a
 * directory should be.
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "profile/folded.h"
#include "profile/pprof.h"
#include "profile/profile.h"
#include "sink/sink_file.h"
#include "util/xmalloc.h"
#include "tap.h"

#define WHEN		1796206500	/* 2026-12-02T10:15:00Z */
#define STAMP		"20261202T101500Z"

static char	 tmpdir[] = "/tmp/t-sink_file.XXXXXX";

static char *
path_of(const char *rel)
{
	char	*p;

	xasprintf(&p, "%s/%s", tmpdir, rel);
	return p;
}

/* st_mode of tmpdir/rel, or 0 when it does not exist. */
static mode_t
mode_of(const char *rel)
{
	struct stat	 sb;
	char		*p = path_of(rel);
	int		 rv;

	rv = lstat(p, &sb);
	free(p);
	return rv == 0 ? sb.st_mode : 0;
}

static char *
slurp(const char *rel, size_t *len)
{
	FILE	*f;
	char	*p = path_of(rel), *buf = NULL;
	size_t	 cap = 0, n;

	*len = 0;
	if ((f = fopen(p, "r")) != NULL) {
		do {
			cap += 65536;
			buf = xreallocarray(buf, cap + 1, 1);
			n = fread(buf + *len, 1, cap - *len, f);
			*len += n;
		} while (*len == cap);
		buf[*len] = '\0';
		fclose(f);
	}
	free(p);
	return buf;
}

/* Names in tmpdir/rel, sorted, space separated; "-" if unreadable. */
static char *
list(const char *rel)
{
	struct dirent	**ents;
	char		 *p = path_of(rel), *s = NULL, *t;
	int		  n, i;

	if ((n = scandir(p, &ents, NULL, alphasort)) == -1) {
		free(p);
		return xstrdup("-");
	}
	s = xstrdup("");
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") != 0 &&
		    strcmp(ents[i]->d_name, "..") != 0) {
			xasprintf(&t, "%s%s%s", s, *s ? " " : "",
			    ents[i]->d_name);
			free(s);
			s = t;
		}
		free(ents[i]);
	}
	free(ents);
	free(p);
	return s;
}

static struct profile *
make_profile(enum profile_type type, const char *service)
{
	struct profile	*p;
	const char	*s1[] = { "main", "foo", "bar" };
	const char	*s2[] = { "main", "a;b" };

	p = profile_create(type, 10000000, (int64_t)WHEN * 1000000000, 15);
	if (service != NULL)
		profile_label_set(p, "service_name", service);
	profile_add(p, s1, 3, 3);
	profile_add(p, s2, 2, 1);
	return p;
}

static struct config *
make_config(const char *rel)
{
	struct config	*conf;

	conf = config_defaults();
	free(conf->output_dir);
	conf->output_dir = path_of(rel);
	conf->pprof = 1;
	conf->folded = 1;
	return conf;
}

static void
test_layout(void)
{
	struct config	*conf;
	struct profile	*p;
	unsigned char	*gz;
	char		*s, *file;
	size_t		 len, gzlen;

	conf = make_config("out/nested");
	p = make_profile(PROFILE_TYPE_CPU, "web");
	/* The modes are the daemon's, not the umask's. */
	umask(022);
	is_int(sink_file_write(conf, p, WHEN), 0, "first write");
	ok(S_ISDIR(mode_of("out/nested/cpu/web")),
	    "<dir>/<type>/<service> created, parents too");
	is_int(mode_of("out/nested/cpu/web") & 07777, 0750, "dir mode 0750");
	s = list("out/nested/cpu/web");
	is_str(s, STAMP ".folded " STAMP ".pb.gz",
	    "UTC time names, no temporary files");
	free(s);
	is_int(mode_of("out/nested/cpu/web/" STAMP ".pb.gz") & 07777, 0640,
	    "file mode 0640");

	file = slurp("out/nested/cpu/web/" STAMP ".folded", &len);
	is_str(file, "main;a:b 1\nmain;foo;bar 3\n", "folded content");
	free(file);
	file = slurp("out/nested/cpu/web/" STAMP ".pb.gz", &len);
	ok(pprof_encode(p, &gz, &gzlen) == 0 && file != NULL &&
	    len == gzlen && memcmp(file, gz, len) == 0,
	    "pb.gz is the encoded profile");
	free(gz);
	free(file);

	is_int(sink_file_write(conf, p, WHEN), 0, "same second again");
	is_int(sink_file_write(conf, p, WHEN), 0, "and again");
	is_int(sink_file_write(conf, p, WHEN + 1), 0, "next second");
	s = list("out/nested/cpu/web");
	is_str(s, STAMP "-1.folded " STAMP "-1.pb.gz "
	    STAMP "-2.folded " STAMP "-2.pb.gz "
	    STAMP ".folded " STAMP ".pb.gz "
	    "20261202T101501Z.folded 20261202T101501Z.pb.gz",
	    "-1, -2 suffixes; a new second needs none");
	free(s);
	profile_free(p);

	/* Each kind alone; the suffix also skips a lone .folded. */
	p = make_profile(PROFILE_TYPE_OFFCPU, "web");
	conf->folded = 0;
	is_int(sink_file_write(conf, p, WHEN), 0, "offcpu, pprof only");
	conf->folded = 1;
	conf->pprof = 0;
	is_int(sink_file_write(conf, p, WHEN), 0, "offcpu, folded only");
	s = list("out/nested/offcpu/web");
	is_str(s, STAMP "-1.folded " STAMP ".pb.gz",
	    "offcpu dir; one kind each; names never shared");
	free(s);
	file = slurp("out/nested/offcpu/web/" STAMP "-1.folded", &len);
	is_str(file, "main;a:b 1\nmain;foo;bar 3\n", "offcpu folded");
	free(file);
	conf->folded = 0;
	is_int(sink_file_write(conf, p, WHEN), 0, "nothing to write: 0");
	s = list("out/nested/offcpu/web");
	is_str(s, STAMP "-1.folded " STAMP ".pb.gz", "and nothing written");
	free(s);
	profile_free(p);
	config_free(conf);
}

/*
 * With the round's encoding (sinks.c encodes once for every sink), the
 * .pb.gz holds its bytes as they are; a failed encoding fails the
 * write, and the .folded is written all the same.
 */
static void
test_enc(void)
{
	struct config		*conf;
	struct profile		*p;
	struct pprof_buf	 enc;
	unsigned char		 mark[] = "the round's bytes";
	char			*s, *file;
	size_t			 len;

	conf = make_config("out/enc");
	p = make_profile(PROFILE_TYPE_CPU, "web");
	enc.buf = mark;
	enc.len = sizeof(mark);
	is_int(sink_file_write_enc(conf, p, &enc, WHEN, NULL, NULL), 0,
	    "written with the encoding given");
	file = slurp("out/enc/cpu/web/" STAMP ".pb.gz", &len);
	ok(file != NULL && len == sizeof(mark) &&
	    memcmp(file, mark, len) == 0, "pb.gz holds those bytes");
	free(file);
	enc.buf = NULL;
	enc.len = 0;
	is_int(sink_file_write_enc(conf, p, &enc, WHEN + 1, NULL, NULL), -1,
	    "an encoding that failed: -1");
	s = list("out/enc/cpu/web");
	is_str(s, STAMP ".folded " STAMP ".pb.gz 20261202T101501Z.folded",
	    "its .folded written, no .pb.gz");
	free(s);
	profile_free(p);
	config_free(conf);
}

static void
test_service_names(void)
{
	struct config	*conf;
	struct profile	*p;
	char		*s;
	size_t		 i;
	const char	*names[] = { NULL, "", ".", "..", "../../etc",
	    ".hidden", "a/b", "tab\tnl\n", "ok-name_1.2" };

	conf = make_config("svc");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		p = make_profile(PROFILE_TYPE_CPU, names[i]);
		if (sink_file_write(conf, p, WHEN) != 0)
			ok(0, "write service %zu", i);
		profile_free(p);
	}
	s = list("svc/cpu");
	is_str(s, "_ _. _._.._etc _hidden a_b ok-name_1.2 tab_nl_ unknown",
	    "service names are one safe path component");
	free(s);
	s = list("svc/cpu/unknown");
	is_str(s, STAMP "-1.folded " STAMP "-1.pb.gz " STAMP ".folded "
	    STAMP ".pb.gz", "missing and empty are both unknown");
	free(s);
	s = list("");
	is_str(s, "out svc", "nothing escaped the output directories");
	free(s);
	config_free(conf);
}

static void
test_errors(void)
{
	struct config	*conf;
	struct profile	*p;
	struct rlimit	 rl, old;
	FILE		*f;
	char		*path, name[32];
	const char	*fr[2];
	int		 i;

	/* A file where the type directory should be. */
	conf = make_config("bad");
	path = path_of("bad");
	mkdir(path, 0755);
	free(path);
	path = path_of("bad/cpu");
	if ((f = fopen(path, "w")) != NULL)
		fclose(f);
	free(path);
	p = make_profile(PROFILE_TYPE_CPU, "web");
	is_int(sink_file_write(conf, p, WHEN), -1,
	    "file in place of a directory: -1");
	ok(S_ISREG(mode_of("bad/cpu")), "the file is left alone");
	config_free(conf);

	/* The output directory itself is a file. */
	conf = make_config("bad/cpu/deeper");
	is_int(sink_file_write(conf, p, WHEN), -1, "file as a parent: -1");
	config_free(conf);
	profile_free(p);

	/*
	 * A write that fails half way: the file size limit is below the
	 * profile's size.  Nothing may be left, not even a temporary file.
	 */
	conf = make_config("full");
	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	profile_label_set(p, "service_name", "web");
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "function_%d", i);
		fr[0] = "main";
		fr[1] = name;
		profile_add(p, fr, 2, 1);
	}
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	rl = old;
	rl.rlim_cur = 4096;
	if (setrlimit(RLIMIT_FSIZE, &rl) == -1) {
		printf("ok %d # SKIP setrlimit: %s\n", ++tap_n,
		    strerror(errno));
	} else {
		is_int(sink_file_write(conf, p, WHEN), -1,
		    "write beyond the file size limit: -1");
		setrlimit(RLIMIT_FSIZE, &old);
		path = list("full/cpu/web");
		is_str(path, "", "no file and no temporary file left");
		free(path);
	}
	config_free(conf);
	profile_free(p);
}

static void
cleanup(void)
{
	char	*cmd;

	xasprintf(&cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("cleanup failed");
	free(cmd);
}

int
main(void)
{
	umask(022);
	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_layout();
	test_enc();
	test_service_names();
	test_errors();
	cleanup();
	return done_testing();
}
