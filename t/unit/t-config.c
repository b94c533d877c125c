/*
 * The configuration parser: defaults, every type, every kind of error
 * with its exact text and line, restart-only keys on reload, and the
 * dump of -n -v read back to the same configuration.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Not "config.h": -I. finds autoconf's before src/. */
#include "config.h"
#include "util/xmalloc.h"

#include "tap.h"

static char	 tmpdir[] = "/tmp/t-config.XXXXXX";
static char	*path;		/* the file every test writes */

static void
write_file(const char *text, size_t len)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL) {
		perror(path);
		exit(99);
	}
	if (fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(99);
	}
}

/* Load text as a config file; errs is cleared first. */
static struct config *
load(const char *text, struct config_errors *errs)
{
	config_errors_clear(errs);
	write_file(text, strlen(text));
	return config_load(path, 0, errs);
}

/* Load text that must fail with exactly one error: line: message. */
static void
is_error(const char *text, const char *want, const char *desc)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf;
	char			*line;

	xasprintf(&line, "%s:%s", path, want);
	conf = load(text, &errs);
	ok(conf == NULL, "%s: refused", desc);
	is_int(errs.n, 1, "%s: one error", desc);
	is_str(errs.n > 0 ? errs.v[0] : NULL, line, "%s: message", desc);
	config_free(conf);
	config_errors_clear(&errs);
	free(line);
}

static void
test_defaults(void)
{
	struct config		*conf;
	struct config_errors	 errs = { NULL, 0 };
	char			*missing;

	conf = config_defaults();
	is_int(conf->collect_interval, 15, "default collect_interval");
	is_int(conf->cpu, 1, "default cpu");
	is_int(conf->offcpu, 0, "default offcpu");
	is_int(conf->sample_rate, 97, "default sample_rate");
	is_int(conf->collect_user, 1, "default collect_user");
	is_int(conf->collect_kernel, 1, "default collect_kernel");
	is_int(conf->collect_kthreads, 0, "default collect_kthreads");
	is_int(conf->offcpu_states, CONFIG_OFFCPU_INTERRUPTIBLE |
	    CONFIG_OFFCPU_UNINTERRUPTIBLE, "default offcpu_states");
	is_int(conf->offcpu_min_block_us, 1, "default offcpu_min_block_us");
	is_int(conf->offcpu_max_block_us, 0, "default offcpu_max_block_us");
	is_int(conf->pid_map_entries, 32768, "default pid_map_entries");
	is_int(conf->ringbuf_kb, 256, "default ringbuf_kb");
	is_int(conf->demangle, CONFIG_DEMANGLE_SIMPLIFIED, "default demangle");
	is_str(conf->output_dir, EBPFSPY_OUTDIR, "default output dir");
	config_free(conf);

	/* An empty file and a missing default file both mean defaults. */
	conf = load("", &errs);
	ok(conf != NULL && errs.n == 0, "empty file loads");
	if (conf != NULL) {
		is_int(conf->sample_rate, 97, "empty file: defaults");
		is_str(conf->path, path, "path recorded");
	}
	config_free(conf);

	xasprintf(&missing, "%s/missing.conf", tmpdir);
	conf = config_load(missing, 1, &errs);
	ok(conf != NULL && errs.n == 0, "missing file, missing_ok: loads");
	if (conf != NULL)
		is_int(conf->collect_interval, 15, "missing file: defaults");
	config_free(conf);
	conf = config_load(missing, 0, &errs);
	ok(conf == NULL, "missing file, not missing_ok: refused");
	is_int(errs.n, 1, "missing file: one error");
	if (errs.n == 1)
		ok(strstr(errs.v[0], missing) != NULL &&
		    strstr(errs.v[0], "No such file or directory") != NULL,
		    "missing file: names the file and the reason (%s)",
		    errs.v[0]);
	config_errors_clear(&errs);
	free(missing);

	/* A directory opens for reading on Linux: it must be refused. */
	conf = config_load(tmpdir, 0, &errs);
	ok(conf == NULL, "directory refused");
	if (errs.n == 1) {
		char	*want;

		xasprintf(&want, "%s: not a regular file", tmpdir);
		is_str(errs.v[0], want, "directory: message");
		free(want);
	} else
		ok(0, "directory: one error, got %zu", errs.n);
	config_errors_clear(&errs);
}

static void
test_types(void)
{
	static const struct {
		const char	*text;
		int		 value;
	} bools[] = {
		{ "yes", 1 }, { "no", 0 }, { "true", 1 }, { "false", 0 },
		{ "on", 1 }, { "off", 0 }, { "1", 1 }, { "0", 0 },
		{ "YES", 1 }, { "Off", 0 },
	};
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf;
	char			*text;
	size_t			 i;

	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		xasprintf(&text, "[profile]\noffcpu = %s\ncpu = %s\n",
		    bools[i].text, bools[i].text);
		conf = load(text, &errs);
		ok(conf != NULL, "bool %s loads", bools[i].text);
		if (conf != NULL) {
			is_int(conf->offcpu, bools[i].value, "bool %s",
			    bools[i].text);
			is_int(conf->cpu, bools[i].value, "bool %s (cpu)",
			    bools[i].text);
		}
		config_free(conf);
		free(text);
	}

	conf = load("; comment\n# another\n\n[daemon]\n"
	    "collect_interval = 3600\n"
	    "[profile]\n  sample_rate=1  \n"
	    "offcpu_min_block_us = 0\n"
	    "offcpu_max_block_us = 3600000000\n"
	    "offcpu_states = uninterruptible\n"
	    "[symbols]\ndemangle = full\n"
	    "[output]\ndir = /srv/profiles dir\n", &errs);
	ok(conf != NULL, "ints, enums and a string load");
	if (conf != NULL) {
		is_int(conf->collect_interval, 3600, "int at its maximum");
		is_int(conf->sample_rate, 1, "int at its minimum, spaces");
		is_int(conf->offcpu_min_block_us, 0, "int 0");
		is_int(conf->offcpu_max_block_us, 3600000000LL,
		    "int beyond 32 bits");
		is_int(conf->offcpu_states, CONFIG_OFFCPU_UNINTERRUPTIBLE,
		    "enum");
		is_int(conf->demangle, CONFIG_DEMANGLE_FULL, "enum demangle");
		is_str(conf->output_dir, "/srv/profiles dir",
		    "string with a space");
	}
	config_free(conf);

	/* CRLF line ends, an inline comment, a UTF-8 byte order mark. */
	conf = load("\xef\xbb\xbf[profile]\r\ncpu = no ; off for now\r\n"
	    "sample_rate = 49\r\n", &errs);
	ok(conf != NULL, "BOM, CRLF and inline comment load");
	if (conf != NULL) {
		is_int(conf->cpu, 0, "CRLF: bool");
		is_int(conf->sample_rate, 49, "CRLF: int");
	}
	config_free(conf);
	config_errors_clear(&errs);
}

static void
test_errors(void)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf;
	char			*text, *want;
	size_t			 i;

	is_error("[profile]\ncpu = yes\n[bogus]\nx = 1\n",
	    "3: [bogus]: unknown section", "unknown section");
	is_error("[profile]\ncpu = yes\nnosuch = 1\n",
	    "3: [profile] nosuch: unknown key", "unknown key");
	is_error("[daemon]\nsample_rate = 97\n",
	    "2: [daemon] sample_rate: unknown key (a key of [profile])",
	    "key in the wrong section");
	is_error("[profile]\ncpu = maybe\n",
	    "2: [profile] cpu: maybe: expected yes or no", "bad bool");
	is_error("[profile]\nsample_rate = 12x\n",
	    "2: [profile] sample_rate: 12x: not a number", "not a number");
	is_error("[profile]\nsample_rate =\n",
	    "2: [profile] sample_rate: : not a number", "empty number");
	is_error("[profile]\nsample_rate = 0\n",
	    "2: [profile] sample_rate: 0: out of range (1 to 10000)",
	    "below the range");
	is_error("[profile]\nsample_rate = 10001\n",
	    "2: [profile] sample_rate: 10001: out of range (1 to 10000)",
	    "above the range");
	is_error("[profile]\nsample_rate = -5\n",
	    "2: [profile] sample_rate: -5: out of range (1 to 10000)",
	    "negative");
	is_error("[profile]\nsample_rate = 99999999999999999999\n",
	    "2: [profile] sample_rate: 99999999999999999999: out of range "
	    "(1 to 10000)", "overflows long long");
	is_error("[profile]\noffcpu_states = sleepy\n",
	    "2: [profile] offcpu_states: sleepy: expected one of both "
	    "interruptible uninterruptible", "bad enum");
	is_error("[profile]\ncpu = yes\n\n[profile]\ncpu = no\n",
	    "5: [profile] cpu: duplicate key (first at line 2)",
	    "duplicate key");
	is_error("[profile]\ncpu yes\n",
	    "2: syntax error: expected 'key = value' or '[section]'",
	    "syntax error");
	is_error("[profile\ncpu = yes\n", "1: missing ']' in section",
	    "missing ']'");
	is_error("[profile]\ncpu = y\x01s\n", "2: control character 0x01",
	    "control character");

	/* Binary data: a NUL in the middle of a line. */
	write_file("[profile]\ncpu\0 = yes\n", 21);
	conf = config_load(path, 0, &errs);
	ok(conf == NULL, "binary data refused");
	xasprintf(&want, "%s:2: binary data in configuration", path);
	is_str(errs.n > 0 ? errs.v[0] : NULL, want, "binary data: message");
	free(want);
	config_errors_clear(&errs);

	/* The longest line allowed, and one byte more. */
	text = xmalloc(5000);
	memcpy(text, "[output]\ndir = /", 16);
	memset(text + 16, 'a', 4093 - 8);
	text[9 + 4093 - 1] = '\n';
	text[9 + 4093] = '\0';
	conf = load(text, &errs);
	ok(conf != NULL, "line of 4093 bytes loads");
	if (conf != NULL)
		is_int(strlen(conf->output_dir), 4093 - 7,
		    "long value intact");
	config_free(conf);
	memcpy(text, "[output]\ndir = /", 16);
	memset(text + 16, 'a', 4094 - 8);
	text[9 + 4094 - 1] = '\n';
	text[9 + 4094] = '\0';
	is_error(text, "2: line too long (4094 bytes, at most 4093)",
	    "line of 4094 bytes");
	free(text);

	/* Every error of a file is reported, in order. */
	conf = load("[profile]\n"
	    "cpu = maybe\n"
	    "sample_rate = fast\n"
	    "nosuch = 1\n"
	    "[nowhere]\n"
	    "a = b\n"
	    "[symbols]\n"
	    "demangle = some\n"
	    "this is not ini\n", &errs);
	ok(conf == NULL, "several errors: refused");
	is_int(errs.n, 6, "several errors: all reported");
	if (errs.n == 6) {
		static const char *want_v[] = {
			"2: [profile] cpu: maybe: expected yes or no",
			"3: [profile] sample_rate: fast: not a number",
			"4: [profile] nosuch: unknown key",
			"5: [nowhere]: unknown section",
			"8: [symbols] demangle: some: expected one of none "
			    "simplified full",
			"9: syntax error: expected 'key = value' or "
			    "'[section]'",
		};

		for (i = 0; i < 6; i++) {
			xasprintf(&want, "%s:%s", path, want_v[i]);
			is_str(errs.v[i], want, "several errors: #%zu", i + 1);
			free(want);
		}
	}
	config_errors_clear(&errs);

	/* Many errors are capped, with a last line counting the rest. */
	text = xmalloc(200 * 16 + 16);
	strcpy(text, "[profile]\n");
	for (i = 0; i < 200; i++)
		strcat(text, "cpu = maybe\n");
	conf = load(text, &errs);
	ok(conf == NULL, "200 errors: refused");
	is_int(errs.n, 21, "200 errors: 20 reported and a last line");
	xasprintf(&want, "%s:21: [profile] cpu: duplicate key (first at "
	    "line 2)", path);
	is_str(errs.n > 1 ? errs.v[errs.n - 2] : NULL, want,
	    "200 errors: the 20th is the 20th of the file");
	free(want);
	xasprintf(&want, "%s: and 180 more errors", path);
	is_str(errs.n > 0 ? errs.v[errs.n - 1] : NULL, want,
	    "200 errors: the last line counts the others");
	free(want);
	free(text);
	config_errors_clear(&errs);

	conf = load("cpu = no\n[profile]\noffcpu = yes\n", &errs);
	ok(conf == NULL && errs.n == 1 && strstr(errs.v[0],
	    ":1: key outside a section") != NULL,
	    "a key before any section is an error");
	config_free(conf);
	config_errors_clear(&errs);
}

static void
test_keep_restart(void)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*old, *new;

	old = config_defaults();
	new = load("[profile]\npid_map_entries = 2048\nringbuf_kb = 512\n"
	    "sample_rate = 49\n", &errs);
	ok(new != NULL, "keep_restart: new config loads");
	if (new == NULL)
		return;
	is_int(config_keep_restart(old, new), 2,
	    "keep_restart: two restart-only changes");
	is_int(new->pid_map_entries, 32768, "keep_restart: old value kept");
	is_int(new->ringbuf_kb, 256, "keep_restart: old value kept (2)");
	is_int(new->sample_rate, 49, "keep_restart: live change kept");
	is_int(config_keep_restart(old, new), 0,
	    "keep_restart: nothing left to keep");
	config_free(old);
	config_free(new);
}

static void
test_dump(void)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf, *back;
	char			*dump = NULL;
	size_t			 i, len = 0, same = 0;
	FILE			*f;

	conf = load("[daemon]\ncollect_interval = 7\n"
	    "[profile]\ncpu = no\noffcpu = yes\nsample_rate = 1234\n"
	    "offcpu_states = interruptible\noffcpu_max_block_us = 5000000\n"
	    "counts_map_entries = 4096\n"
	    "[symbols]\ndemangle = none\ncache_files = 17\n"
	    "[output]\ndir = /var/tmp/x y\nfolded = no\n", &errs);
	ok(conf != NULL, "dump: config loads");
	if (conf == NULL)
		return;
	if ((f = open_memstream(&dump, &len)) == NULL) {
		perror("open_memstream");
		exit(99);
	}
	config_dump(conf, f);
	fclose(f);
	ok(strstr(dump, "[profile]\n") != NULL &&
	    strstr(dump, "sample_rate = 1234") != NULL, "dump: looks right");

	back = load(dump, &errs);
	ok(back != NULL, "dump: parses back");
	if (back != NULL) {
		for (i = 0; i < config_nkeys(); i++) {
			if (config_key_equal(config_key_at(i), conf, back))
				same++;
			else
				ok(0, "dump: [%s] %s differs",
				    config_key_at(i)->section,
				    config_key_at(i)->name);
		}
		is_int(same, config_nkeys(), "dump: every key equal");
		is_str(back->output_dir, "/var/tmp/x y", "dump: string");
		is_int(back->sample_rate, 1234, "dump: int");
	}
	for (i = 0; i < errs.n; i++)
		diag(errs.v[i]);
	config_errors_clear(&errs);
	config_free(back);
	config_free(conf);
	free(dump);
}

/*
 * The key tables, some of them the subsystems' own, put together: each
 * section's keys in one run (the dump starts a section once), no key
 * twice, and the checks of string keys where they belong.
 */
static void
test_tables(void)
{
	const struct config_key	*k, *o;
	size_t			 i, j, n = config_nkeys();
	int			 runs = 1, dups = 0, checks = 0;

	ok(n > 50 && config_key_at(n - 1) != NULL && config_key_at(n) == NULL,
	    "tables: %zu keys, then NULL", n);
	for (i = 0; i < n; i++) {
		k = config_key_at(i);
		for (j = 0; j < i; j++) {
			o = config_key_at(j);
			if (strcmp(o->section, k->section) == 0 &&
			    strcmp(o->name, k->name) == 0)
				dups++;
			if (j + 1 < i && strcmp(o->section, k->section) == 0 &&
			    strcmp(config_key_at(i - 1)->section,
			    k->section) != 0)
				runs = 0;
		}
		if (k->check != NULL) {
			checks++;
			if (k->type != CONFIG_STRING)
				ok(0, "tables: [%s] %s: a check on a key that "
				    "is no string", k->section, k->name);
		}
		if (config_key_find(k->section, k->name) != k)
			ok(0, "tables: [%s] %s not found", k->section,
			    k->name);
	}
	ok(runs, "tables: each section's keys in one run");
	is_int(dups, 0, "tables: no key twice");
	is_int(checks, 12, "tables: twelve keys checked by their subsystems");
	k = config_key_find("symbols", "debug_dirs");
	ok(k != NULL && k->check != NULL && k->check("/a:/b") == NULL &&
	    k->check("rel") != NULL, "tables: debug_dirs checked by debuginfo");
	k = config_key_find("metrics", "listen");
	ok(k != NULL && k->check != NULL && k->check("bogus") != NULL,
	    "tables: metrics listen checked by metrics");
	k = config_key_find("targets", "unknown_service");
	ok(k != NULL && k->check != NULL && k->check("other") == NULL &&
	    k->check("") != NULL && k->check("a/b") != NULL &&
	    k->check("..") != NULL,
	    "tables: unknown_service checked by target");
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 99;
	}
	xasprintf(&path, "%s/ebpfspy.conf", tmpdir);

	test_defaults();
	test_types();
	test_errors();
	test_keep_restart();
	test_dump();
	test_tables();

	unlink(path);
	rmdir(tmpdir);
	free(path);
	return done_testing();
}
