/*
 * Flame graphs: the layout (widths that add up to the totals, stacks
 * merged, callees by name, narrow frames left out, a bounded document),
 * reading folded files back, hostile names in the XML, the hover titles,
 * and latest.svg / last-hour.svg in a scratch output directory, the
 * hour's sums merged a minute at a time and held to their byte bounds.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "sink/flamegraph.h"
#include "profile/profile.h"
#include "sink/sink_file.h"
#include "util/xmalloc.h"
#include "tap.h"

#define WHEN		1796206500	/* 2026-12-02T10:15:00Z */
#define FW		(FLAMEGRAPH_WIDTH - 2 * FLAMEGRAPH_XPAD)

struct frames {
	struct flamegraph_frame	*v;
	char			**names;
	size_t			 n;
};

static char	 tmpdir[] = "/tmp/t-flamegraph.XXXXXX";

static int
collect_cb(const struct flamegraph_frame *fr, void *arg)
{
	struct frames	*fs = arg;

	fs->v = xreallocarray(fs->v, fs->n + 1, sizeof(*fs->v));
	fs->names = xreallocarray(fs->names, fs->n + 1, sizeof(*fs->names));
	fs->v[fs->n] = *fr;
	fs->names[fs->n] = xstrdup(fr->name);
	fs->v[fs->n].name = fs->names[fs->n];
	fs->n++;
	return 0;
}

static void
frames_get(const struct profile *p, struct frames *fs)
{
	struct flamegraph	*fg;

	memset(fs, 0, sizeof(*fs));
	fg = flamegraph_create(p);
	flamegraph_walk(fg, collect_cb, fs);
	flamegraph_free(fg);
}

static void
frames_free(struct frames *fs)
{
	size_t	 i;

	for (i = 0; i < fs->n; i++)
		free(fs->names[i]);
	free(fs->names);
	free(fs->v);
}

/* The frame of that name at that depth; NULL unless exactly one. */
static const struct flamegraph_frame *
frame_find(const struct frames *fs, unsigned int depth, const char *name)
{
	const struct flamegraph_frame	*found = NULL;
	size_t				 i;

	for (i = 0; i < fs->n; i++) {
		if (fs->v[i].depth != depth || strcmp(fs->v[i].name, name) != 0)
			continue;
		if (found != NULL)
			return NULL;
		found = &fs->v[i];
	}
	return found;
}

static uint64_t
depth_sum(const struct frames *fs, unsigned int depth)
{
	uint64_t	 s = 0;
	size_t		 i;

	for (i = 0; i < fs->n; i++)
		if (fs->v[i].depth == depth)
			s += fs->v[i].value;
	return s;
}

static int
frame_cmp(const void *va, const void *vb)
{
	const struct flamegraph_frame	*a = va, *b = vb;

	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

/* Frames drawn without their caller: the layout must never do that. */
static int
orphans(const struct frames *fs)
{
	struct flamegraph_frame	*v;
	size_t			 i, lo, hi, mid, first = 0, n = 0;
	int			 bad = 0;

	v = xcalloc(fs->n + 1, sizeof(*v));
	memcpy(v, fs->v, fs->n * sizeof(*v));
	qsort(v, fs->n, sizeof(*v), frame_cmp);
	for (i = 0; i < fs->n; i++) {
		if (v[i].depth == 0)
			continue;
		if (i == 0 || v[i - 1].depth != v[i].depth) {
			/* The callers: [first, first + n). */
			for (first = 0; first < i &&
			    v[first].depth + 1 != v[i].depth; first++)
				;
			for (n = 0; first + n < i &&
			    v[first + n].depth + 1 == v[i].depth; n++)
				;
		}
		/* The last caller starting at or before it. */
		for (lo = 0, hi = n; lo < hi; ) {
			mid = (lo + hi) / 2;
			if (v[first + mid].start <= v[i].start)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || v[i].start + v[i].value >
		    v[first + lo - 1].start + v[first + lo - 1].value)
			bad++;
	}
	free(v);
	return bad;
}

static void
add(struct profile *p, const char *folded, uint64_t v)
{
	char		*s = xstrdup(folded), *t;
	const char	*frames[64];
	size_t		 n = 0;

	for (t = strtok(s, ";"); t != NULL && n < 64; t = strtok(NULL, ";"))
		frames[n++] = t;
	profile_add(p, frames, n, v);
	free(s);
}

static char *
svg_of(const struct profile *p, const char *title, size_t *len)
{
	struct flamegraph	*fg;
	FILE			*f;
	char			*buf = NULL;

	f = open_memstream(&buf, len);
	fg = flamegraph_create(p);
	if (flamegraph_svg_write(fg, title, f) == -1)
		ok(0, "svg write: %s", strerror(errno));
	flamegraph_free(fg);
	fclose(f);
	return buf;
}

/* Root frames' data-v and rect widths, summed, from the document. */
static void
svg_roots(const char *svg, uint64_t *values, double *widths, size_t *n)
{
	const char	*s = svg, *w;
	uint64_t	 v;
	double		 x;

	*values = 0;
	*widths = 0;
	*n = 0;
	while ((s = strstr(s, "<g data-d=\"0\" ")) != NULL) {
		if (sscanf(s, "<g data-d=\"0\" data-s=\"%*[0-9]\" "
		    "data-v=\"%" SCNu64 "\"", &v) == 1 &&
		    (w = strstr(s, " width=\"")) != NULL &&
		    sscanf(w, " width=\"%lf\"", &x) == 1) {
			*values += v;
			*widths += x;
			(*n)++;
		}
		s++;
	}
}

static int
count(const char *hay, const char *needle)
{
	int	 n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay++;
	}
	return n;
}

/* xmllint --noout on the document: 0 ok, 1 error, -1 no xmllint. */
static int
xmllint(const char *svg, size_t len)
{
	char	*path, *cmd;
	FILE	*f;
	int	 rv;

	if (system("xmllint --version >/dev/null 2>&1") != 0)
		return -1;
	xasprintf(&path, "%s/lint.svg", tmpdir);
	f = fopen(path, "w");
	fwrite(svg, 1, len, f);
	fclose(f);
	xasprintf(&cmd, "xmllint --noout '%s'", path);
	rv = system(cmd) == 0 ? 0 : 1;
	unlink(path);
	free(cmd);
	free(path);
	return rv;
}

static void
lint_ok(const char *svg, size_t len, const char *what)
{
	int	 rv = xmllint(svg, len);

	if (rv == -1 && getenv("EBPFSPY_REQUIRE_BPF") == NULL)
		printf("ok %d - %s # skip no xmllint\n", ++tap_n, what);
	else
		ok(rv == 0, "%s", what);
}

static void
test_layout(void)
{
	struct profile			*p;
	struct frames			 fs;
	const struct flamegraph_frame	*f;

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	/* Out of order on purpose: the layout sorts. */
	add(p, "other;z", 4);
	add(p, "main;d", 5);
	add(p, "main;a;c", 2);
	add(p, "other;b", 6);
	add(p, "main;a;b", 3);
	add(p, "main", 4);
	add(p, "main;a;b", 1);	/* the same stack again */
	frames_get(p, &fs);

	is_int(fs.n, 8, "one frame per distinct prefix");
	is_int(depth_sum(&fs, 0), 25, "roots add up to the total");
	f = frame_find(&fs, 0, "main");
	ok(f != NULL && f->start == 0 && f->value == 15,
	    "main: start 0, value 15 (callees and self)");
	f = frame_find(&fs, 0, "other");
	ok(f != NULL && f->start == 15 && f->value == 10,
	    "other follows main by name");
	/* main's own 4 first, then its callees by name. */
	f = frame_find(&fs, 1, "a");
	ok(f != NULL && f->start == 4 && f->value == 6, "main;a merged");
	f = frame_find(&fs, 2, "b");
	ok(f != NULL && f->start == 4 && f->value == 4,
	    "main;a;b merged across adds");
	f = frame_find(&fs, 2, "c");
	ok(f != NULL && f->start == 8 && f->value == 2, "main;a;c after b");
	f = frame_find(&fs, 1, "d");
	ok(f != NULL && f->start == 10 && f->value == 5, "main;d after a");
	f = frame_find(&fs, 1, "b");
	ok(f != NULL && f->start == 15 && f->value == 6,
	    "other;b before other;z");
	f = frame_find(&fs, 1, "z");
	ok(f != NULL && f->start == 21 && f->value == 4, "other;z last");
	is_int(depth_sum(&fs, 1), 21, "depth 1 holds all but main's self");
	frames_free(&fs);
	profile_free(p);
}

static void
test_min_width(void)
{
	struct profile	*p;
	struct frames	 fs;

	/* 0.1 px of 1180 px is 1/11800 of the total. */
	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	add(p, "root;wide", 1000000 - 151);
	add(p, "root;narrow;deeper", 84);	/* 0.099 px */
	add(p, "root;smaller", 67);		/* 0.0791 px */
	frames_get(p, &fs);
	ok(frame_find(&fs, 1, "narrow") == NULL &&
	    frame_find(&fs, 2, "deeper") == NULL,
	    "a frame under 0.1 px is left out with its callees");
	ok(frame_find(&fs, 1, "smaller") == NULL, "so is a smaller one");
	is_int(depth_sum(&fs, 0), 1000000, "the root keeps their value");
	frames_free(&fs);
	profile_free(p);

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	add(p, "root;wide", 1000000 - 85);
	add(p, "root;fits", 85);		/* 0.1003 px */
	frames_get(p, &fs);
	ok(frame_find(&fs, 1, "fits") != NULL, "0.1 px is drawn");
	frames_free(&fs);
	profile_free(p);
}

/* 100k distinct stacks: a bounded document, whole stacks from the root. */
static void
test_bounded(void)
{
	struct profile	*p;
	struct frames	 fs;
	char		 buf[256], *svg;
	size_t		 i, len, n;
	uint64_t	 values;
	double		 widths;

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	for (i = 0; i < 100000; i++) {
		snprintf(buf, sizeof(buf), "app;mod%zu;fn%zu;leaf%zu",
		    i % 7, i % 1013, i);
		add(p, buf, 1 + i % 5);
	}
	frames_get(p, &fs);
	ok(fs.n > 1000 && fs.n <= FLAMEGRAPH_MAX_FRAMES,
	    "100k stacks: %zu frames drawn, at most %d", fs.n,
	    FLAMEGRAPH_MAX_FRAMES);
	is_int(orphans(&fs), 0, "no frame is drawn without its caller");
	frames_free(&fs);

	svg = svg_of(p, "bounded", &len);
	ok(len < 8 * 1024 * 1024, "the document is %zu bytes", len);
	svg_roots(svg, &values, &widths, &n);
	ok(n == 1 && values == profile_total(p) && widths > FW - 0.01 &&
	    widths < FW + 0.01, "the root spans %.2f px", widths);
	lint_ok(svg, len, "the bounded document is well-formed XML");
	free(svg);
	profile_free(p);

	/*
	 * 30001 frames, all but the root worth the same: the cap keeps the
	 * shallowest, and exactly as many as it may.
	 */
	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "root;a%zu;b%zu;c%zu;d%zu;e%zu;f%zu",
		    i, i, i, i, i, i);
		add(p, buf, 1);
	}
	frames_get(p, &fs);
	is_int(fs.n, FLAMEGRAPH_MAX_FRAMES, "ties: exactly the cap is drawn");
	is_int(depth_sum(&fs, 3) + depth_sum(&fs, 4), 5000 + 4999,
	    "ties: the shallowest are kept");
	is_int(depth_sum(&fs, 5), 0, "ties: the deepest are not");
	is_int(orphans(&fs), 0, "ties: no frame without its caller");
	frames_free(&fs);
	profile_free(p);
}

static void
test_folded_read(void)
{
	struct profile	*p;
	struct frames	 fs;
	FILE		*f;
	char		*buf = NULL, *big;
	size_t		 len = 0, budget;
	long		 n;

	f = open_memstream(&buf, &len);
	fputs("a;b 3\n", f);
	fputs("not a stack\n", f);
	fputs("a;b   2\n", f);			/* several spaces */
	fputs("a;c 12abc\n", f);		/* not a count */
	fputs(" 5\n", f);			/* no frames */
	fputs("a;c 0\n", f);
	fputs("a;c 99999999999999999999999\n", f);	/* too big */
	big = xmalloc(300 * 1024);
	memset(big, 'x', 300 * 1024 - 1);
	big[300 * 1024 - 1] = '\0';
	fprintf(f, "a;%s 7\n", big);		/* over the line bound */
	free(big);
	fputs("a;;d 1\n", f);			/* an empty frame */
	fputc('a', f);
	fputc('\0', f);				/* a NUL in a line */
	fputs(";e 1\n", f);
	fputs("a;c 4\r\n", f);
	fputs("a;f 6", f);			/* no newline at the end */
	fclose(f);

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	f = fmemopen(buf, len, "r");
	budget = SIZE_MAX;
	n = flamegraph_folded_read(p, f, &budget);
	fclose(f);
	is_int(n, 5, "five lines are stacks");
	is_int(SIZE_MAX - budget, len, "every byte read is counted");
	is_int(profile_total(p), 16, "their values add up");
	frames_get(p, &fs);
	ok(frame_find(&fs, 1, "b") != NULL &&
	    frame_find(&fs, 1, "b")->value == 5, "a;b merged: 5");
	ok(frame_find(&fs, 1, "c") != NULL &&
	    frame_find(&fs, 1, "c")->value == 4, "CRLF line read");
	ok(frame_find(&fs, 2, "d") != NULL && frame_find(&fs, 1, "") != NULL,
	    "an empty frame is kept as a frame");
	ok(frame_find(&fs, 1, "f") != NULL, "the last line without newline");
	frames_free(&fs);
	profile_free(p);

	/* A budget stops the read where it runs out. */
	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	f = fmemopen(buf, len, "r");
	budget = 12;	/* "a;b 3\n" and half the next line */
	n = flamegraph_folded_read(p, f, &budget);
	fclose(f);
	ok(n == 1 && budget == 0 && profile_total(p) == 3,
	    "a budget of 12 bytes reads one stack");
	profile_free(p);
	free(buf);
}

static void
test_escape(void)
{
	struct profile	*p;
	char		*svg, *s;
	size_t		 len, i;
	int		 bad = 0;

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	add(p, "app;<script>alert(1)</script>", 50);
	add(p, "app;a&b \"q\" 'x' ]]> --> <!--", 50);
	add(p, "app;ctl\001\033[31m\177", 50);
	add(p, "app;bad\xff\xfe utf8 \xc3", 50);
	add(p, "app;half\xe2\x82 \xed\xa0\x80 \xef\xbf\xbe "
	    "\xf4\x90\x80\x80", 50);
	add(p, "app;caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 50);
	svg = svg_of(p, "title <&> \"'\001", &len);

	ok(strstr(svg, "<script>alert") == NULL, "no injected element");
	ok(strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL,
	    "<script> escaped in the title");
	ok(strstr(svg, "a&amp;b &quot;q&quot; &apos;x&apos; ]]&gt; --&gt; "
	    "&lt;!--") != NULL, "& quotes ]]> --> <!-- escaped");
	ok(strstr(svg, "ctl??[31m?") != NULL, "control characters are '?'");
	ok(strstr(svg, "bad?? utf8 ?") != NULL, "invalid UTF-8 bytes are '?'");
	ok(strstr(svg, "half?? ??? ??? ????") != NULL,
	    "truncated, surrogate, U+FFFE, beyond U+10FFFF: '?'");
	ok(strstr(svg, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5") != NULL,
	    "valid UTF-8 is kept");
	ok(strstr(svg, "title &lt;&amp;&gt; &quot;&apos;?</text>") != NULL,
	    "the title is escaped");
	for (s = svg, i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t')
			bad++;
	is_int(bad, 0, "no control characters in the document");
	lint_ok(svg, len, "hostile names: well-formed XML");
	free(svg);
	profile_free(p);
}

static void
test_text(void)
{
	struct profile	*p;
	char		*svg, want[256], name[128];
	size_t		 len, i, n;
	uint64_t	 values;
	double		 widths;

	/* 20% of 1180 px: (236 - 6) / 7.08 = 32 characters fit. */
	for (i = 0; i < 60; i++)
		name[i] = 'a' + i % 26;
	name[60] = '\0';
	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	add(p, name, 20);
	add(p, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9", 20);
	add(p, "zz;one", 1);
	add(p, "zz;tiny", 59);
	svg = svg_of(p, "text", &len);

	snprintf(want, sizeof(want), ">%.30s..</text>", name);
	ok(strstr(svg, want) != NULL, "a long name is cut to 30 and '..'");
	ok(strstr(svg, ">\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	    "..</text>") != NULL, "cut by characters, not bytes");
	ok(strstr(svg, "><title>one (1 sample, 1.00%)</title>") != NULL,
	    "hover title: name, 1 sample, percent");
	ok(strstr(svg, "<title>zz (60 samples, 60.00%)</title>") != NULL,
	    "hover title: 60 samples");
	ok(strstr(svg, "\">one</text>") == NULL &&
	    strstr(svg, "<text x=\"") != NULL,
	    "no label in a box too narrow for 3 characters");
	svg_roots(svg, &values, &widths, &n);
	ok(n == 3 && values == 100 && widths > FW - 0.02 && widths < FW + 0.02,
	    "root widths add up to %d px: %.2f", FW, widths);
	free(svg);
	profile_free(p);
}

static void
test_offcpu(void)
{
	struct profile	*p;
	char		*svg;
	size_t		 len;

	p = profile_create(PROFILE_TYPE_OFFCPU, 1, 0, 0);
	add(p, "srv;read", 1500000);		/* 1.5 ms */
	add(p, "srv;poll", 2500000000ULL);	/* 2.5 s */
	svg = svg_of(p, "offcpu", &len);
	ok(strstr(svg, "<title>read (1.500 ms, 0.06%)</title>") != NULL,
	    "off-CPU title in ms");
	ok(strstr(svg, "<title>poll (2.50 s, 99.94%)</title>") != NULL,
	    "off-CPU title in s");
	ok(strstr(svg, "data-total=\"2501500000\"") != NULL,
	    "the total is in nanoseconds");
	free(svg);
	profile_free(p);
}

/* The fill of the first frame called name. */
static void
fill_of(const char *svg, const char *name, int rgb[3])
{
	char		 key[128];
	const char	*s;

	rgb[0] = rgb[1] = rgb[2] = -1;
	snprintf(key, sizeof(key), "<title>%s (", name);
	if ((s = strstr(svg, key)) != NULL &&
	    (s = strstr(s, "fill=\"rgb(")) != NULL)
		sscanf(s, "fill=\"rgb(%d,%d,%d)", &rgb[0], &rgb[1], &rgb[2]);
}

static void
test_colours(void)
{
	struct profile	*p, *q, *o;
	char		*a, *b, *c;
	size_t		 len;
	int		 x[3], y[3], z[3], i, warm = 1, blue = 1;
	const char	*names[] = { "main", "read", "malloc", "burn_a",
	    "do_syscall_64", "zz" };

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	q = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	o = profile_create(PROFILE_TYPE_OFFCPU, 1, 0, 0);
	for (i = 0; i < 6; i++) {
		add(p, names[i], 10);
		add(q, names[i], 1 + i);
		add(o, names[i], 10);
	}
	add(q, "other;main", 3);
	a = svg_of(p, "a", &len);
	b = svg_of(q, "b", &len);
	c = svg_of(o, "c", &len);
	for (i = 0; i < 6; i++) {
		fill_of(a, names[i], x);
		fill_of(b, names[i], y);
		fill_of(c, names[i], z);
		if (x[0] != y[0] || x[1] != y[1] || x[2] != y[2] || x[0] < 0)
			ok(0, "%s: the same colour in both graphs", names[i]);
		if (!(x[0] > x[1] && x[0] > x[2] && x[0] >= 200))
			warm = 0;
		if (!(z[2] > z[0] && z[2] > z[1] && z[2] >= 200))
			blue = 0;
	}
	ok(1, "a name keeps its colour");
	ok(warm, "on-CPU colours are warm");
	ok(blue, "off-CPU colours are blue");
	free(a);
	free(b);
	free(c);
	profile_free(p);
	profile_free(q);
	profile_free(o);
}

static void
test_empty(void)
{
	struct profile	*p;
	char		*svg;
	size_t		 len;

	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	svg = svg_of(p, "empty", &len);
	ok(strstr(svg, "no samples") != NULL && count(svg, "<g data-d") == 0,
	    "an empty profile: no frames, says so");
	lint_ok(svg, len, "the empty document is well-formed XML");
	free(svg);
	profile_free(p);
}

/*
 * A full disk: with a stdio buffer big enough for the whole document,
 * every write is taken and only the last fflush fails (ENOSPC).  That
 * path freed the names twice and aborted the daemon.
 */
static void
test_disk_full(void)
{
	struct flamegraph	*fg;
	struct profile		*p;
	FILE			*f;
	static char		 big[4 * 1024 * 1024];
	int			 rv;

	if ((f = fopen("/dev/full", "we")) == NULL) {
		ok(0, "open /dev/full: %s", strerror(errno));
		return;
	}
	setvbuf(f, big, _IOFBF, sizeof(big));
	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	add(p, "app;main;work", 70);
	add(p, "app;main;idle", 30);
	fg = flamegraph_create(p);
	errno = 0;
	rv = flamegraph_svg_write(fg, "full disk", f);
	ok(rv == -1 && errno == ENOSPC,
	    "a full disk fails the flame graph cleanly (ENOSPC, no abort)");
	flamegraph_free(fg);
	fclose(f);
	profile_free(p);
}

/* The scratch output directory. */

static char *
path_of(const char *rel)
{
	char	*p;

	xasprintf(&p, "%s/%s", tmpdir, rel);
	return p;
}

/*
 * A directory with no .folded file of the hour: an empty hour, not
 * qsort(NULL, 0, ...) (undefined; UBSan stops a sanitizer build there).
 */
static void
test_hour_empty(void)
{
	struct flamegraph_hours	*hs;
	struct flamegraph_order	*o = NULL;
	struct profile		*p, *hp;
	char			*dir;
	time_t			 from;

	dir = path_of("hour-empty");
	ok(mkdir(dir, 0700) == 0, "an empty directory");
	hs = flamegraph_hours_create();
	p = profile_create(PROFILE_TYPE_CPU, 1, 0, 0);
	hp = flamegraph_hours_get(hs, dir, p, WHEN, &o, &from);
	ok(hp != NULL && profile_total(hp) == 0,
	    "the hour of an empty directory is empty");
	profile_free(p);
	flamegraph_hours_free(hs);
	free(dir);
}

static char *
slurp(const char *rel)
{
	FILE	*f;
	char	*p = path_of(rel), *buf = NULL;
	size_t	 cap = 0, len = 0, n;

	if ((f = fopen(p, "r")) != NULL) {
		do {
			cap += 65536;
			buf = xreallocarray(buf, cap + 1, 1);
			n = fread(buf + len, 1, cap - len, f);
			len += n;
		} while (len == cap);
		buf[len] = '\0';
		fclose(f);
	}
	free(p);
	return buf;
}

static void
spit(const char *rel, const char *text)
{
	char	*p = path_of(rel);
	FILE	*f;

	if ((f = fopen(p, "w")) != NULL) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

static uint64_t
total_of(const char *svg)
{
	const char	*s;
	uint64_t	 v = 0;

	if (svg != NULL && (s = strstr(svg, "data-total=\"")) != NULL)
		sscanf(s, "data-total=\"%" SCNu64, &v);
	return v;
}

static struct profile *
round_profile(uint64_t v)
{
	struct profile	*p;

	p = profile_create(PROFILE_TYPE_CPU, 10000000, 0, 0);
	profile_label_set(p, "service_name", "web/../x");
	add(p, "web;main;work", v);
	add(p, "web;main", 1);
	return p;
}

/* Hidden files left in the service directory. */
static int
hidden_files(const char *rel)
{
	struct dirent	*de;
	DIR		*d;
	char		*p = path_of(rel);
	int		 n = 0;

	if ((d = opendir(p)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] == '.' && strcmp(de->d_name, ".") &&
			    strcmp(de->d_name, ".."))
				n++;
		closedir(d);
	}
	free(p);
	return n;
}

static void
test_write(void)
{
	struct config	*conf;
	struct profile	*p;
	struct stat	 sb;
	char		*svg, *path, *outside;
	const char	*dir = "out/cpu/web_.._x";

	conf = config_defaults();
	free(conf->output_dir);
	conf->output_dir = path_of("out");

	/* Rounds: two hours ago, half an hour ago, now. */
	p = round_profile(1000);
	ok(sink_file_write(conf, p, WHEN - 7200) == 0, "old round written");
	profile_free(p);
	p = round_profile(200);
	sink_file_write(conf, p, WHEN - 1800);
	profile_free(p);
	/* A file from the future (a clock stepped back) is not read. */
	p = round_profile(5000);
	sink_file_write(conf, p, WHEN + 60);
	profile_free(p);

	/* Planted: a symlink and a FIFO named like profiles. */
	outside = path_of("evil.folded");
	spit("evil.folded", "evil 100000\n");
	path = path_of("out/cpu/web_.._x/20261202T100000Z-7.folded");
	ok(symlink(outside, path) == 0, "planted a symlink");
	free(path);
	path = path_of("out/cpu/web_.._x/20261202T100100Z.folded");
	ok(mkfifo(path, 0600) == 0, "planted a FIFO");
	free(path);
	free(outside);
	/* Not a profile's name, not read. */
	spit("out/cpu/web_.._x/notes.folded", "notes 7777\n");

	p = round_profile(30);
	sink_file_write(conf, p, WHEN);
	ok(flamegraph_write(NULL, conf, p, NULL, WHEN) == 0,
	    "flamegraph_write");

	svg = slurp("out/cpu/web_.._x/latest.svg");
	ok(svg != NULL, "latest.svg written");
	is_int(total_of(svg), 31, "latest.svg: this round");
	ok(svg != NULL && strstr(svg, ">web_.._x: cpu, 31 samples, "
	    "2026-12-02 10:15:00-10:15:00 UTC</text>") != NULL,
	    "latest.svg: service, type, total and span");
	free(svg);
	svg = slurp("out/cpu/web_.._x/last-hour.svg");
	ok(svg != NULL, "last-hour.svg written");
	is_int(total_of(svg), 201 + 31, "last-hour.svg: the rounds of the "
	    "last hour, nothing planted");
	ok(svg != NULL && strstr(svg, ">web_.._x: cpu, last hour, 232 samples, "
	    "2026-12-02 09:44:45-10:15:00 UTC</text>") != NULL,
	    "last-hour.svg: total, and the span from the oldest round's "
	    "start in the title");
	free(svg);
	is_int(hidden_files(dir), 0, "no temporary file left");

	/* svg = no: nothing; folded = no: latest only. */
	path = path_of("out/cpu/web_.._x/latest.svg");
	unlink(path);
	free(path);
	path = path_of("out/cpu/web_.._x/last-hour.svg");
	unlink(path);
	conf->svg = 0;
	ok(flamegraph_write(NULL, conf, p, NULL, WHEN) == 0 &&
	    stat(path, &sb) == -1, "svg = no writes nothing");
	conf->svg = 1;
	conf->folded = 0;
	ok(flamegraph_write(NULL, conf, p, NULL, WHEN) == 0 &&
	    stat(path, &sb) == -1, "folded = no: no last-hour.svg");
	free(path);
	path = path_of("out/cpu/web_.._x/latest.svg");
	ok(stat(path, &sb) == 0, "folded = no: latest.svg");
	free(path);
	profile_free(p);
	config_free(conf);
}

/* A round of the incremental test: some stacks every round, some not. */
static struct profile *
hour_profile(int k, size_t unique)
{
	struct profile	*p;
	char		 buf[128];
	size_t		 i;

	p = profile_create(PROFILE_TYPE_CPU, 10000000, 0, 0);
	profile_label_set(p, "service_name", "inc");
	add(p, "app;main;work", 100 + k);
	add(p, "app;main", 1 + k % 3);
	/* Names the folded file cleans: the hour sees them cleaned. */
	add(p, "app;semi\x01colon ;x", 7);
	snprintf(buf, sizeof(buf), "app;round%d;leaf", k % 4);
	add(p, buf, 10 * k + 1);
	for (i = 0; i < unique; i++) {
		snprintf(buf, sizeof(buf), "app;u%d;f%zu;g%zu", k, i % 97, i);
		add(p, buf, 1 + i % 5);
	}
	return p;
}

static uint64_t
hour_total(int k)
{
	struct profile	*p;
	uint64_t	 v;

	p = hour_profile(k, k == 1 ? 6000 : k % 5 == 0 ? 300 : 0);
	v = profile_total(p);
	profile_free(p);
	return v;
}

/* What sinks_round() does: the .folded file, then it is known. */
static void
hour_write(struct flamegraph_hours *hs, const struct config *conf,
    const struct profile *p, time_t t)
{
	struct stat	 sb;
	char		*folded;

	sink_file_write_folded(conf, p, t, &folded, &sb);
	if (folded != NULL)
		flamegraph_hours_known(hs, folded, &sb, p);
	free(folded);
}

/*
 * last-hour.svg kept round by round must be the one read from the
 * files, the round's own file taken from its profile: rounds that leave the hour, a file deleted, one replaced, one
 * planted, and enough stacks leaving to compact the sum.
 */
static void
test_hour(void)
{
	struct flamegraph_hours	*hs;
	struct config		*conf;
	struct profile		*p;
	char			*inc, *full, *path;
	time_t			 t;
	uint64_t		 want;
	int			 k, same = 0, rounds = 0;

	conf = config_defaults();
	free(conf->output_dir);
	conf->output_dir = path_of("hour");
	hs = flamegraph_hours_create();
	for (k = 0, want = 0; k < 16; k++) {
		if (k == 7)
			want += hour_total(7);
		t = WHEN + k * 450;
		p = hour_profile(k, k == 1 ? 6000 : k % 5 == 0 ? 300 : 0);
		hour_write(hs, conf, p, t);
		if (k == 6) {
			/* Retention by size, or a person: gone mid-hour. */
			path = path_of("hour/cpu/inc/20261202T104500Z.folded");
			ok(unlink(path) == 0, "deleted a file of the hour");
			free(path);
		}
		if (k == 9) {
			/* Another file under the same name, as a new inode. */
			path = path_of("hour/cpu/inc/20261202T111500Z.folded");
			ok(unlink(path) == 0, "replacing a file of the hour");
			free(path);
			spit("hour/cpu/inc/20261202T111500Z.folded",
			    "app;main;work 5000\napp;new 3\n");
			spit("hour/cpu/inc/20261202T112000Z.folded",
			    "app;planted;x 40\n");
		}
		if (flamegraph_write(hs, conf, p, NULL, t) == -1)
			ok(0, "round %d: incremental write", k);
		flamegraph_hours_sweep(hs, t);
		inc = slurp("hour/cpu/inc/last-hour.svg");
		if (flamegraph_write(NULL, conf, p, NULL, t) == -1)
			ok(0, "round %d: full write", k);
		full = slurp("hour/cpu/inc/last-hour.svg");
		rounds++;
		if (inc != NULL && full != NULL && strcmp(inc, full) == 0 &&
		    total_of(inc) > 0)
			same++;
		else
			printf("# round %d: last-hour.svg differs\n", k);
		if (k == 7)
			is_int(total_of(inc), want, "round 7: the rounds of "
			    "the hour but the deleted one");
		if (k != 4)
			want += hour_total(k);
		free(inc);
		free(full);
		profile_free(p);
	}
	is_int(same, rounds, "last-hour.svg kept in memory is the one read "
	    "from the files, byte for byte, in all %d rounds", rounds);
	flamegraph_hours_log_state(hs);

	/* Unused for long: dropped, and read again from the files. */
	flamegraph_hours_sweep(hs, t + 3600);
	p = hour_profile(16, 0);
	t += 450;
	hour_write(hs, conf, p, t);
	flamegraph_write(hs, conf, p, NULL, t);
	inc = slurp("hour/cpu/inc/last-hour.svg");
	flamegraph_write(NULL, conf, p, NULL, t);
	full = slurp("hour/cpu/inc/last-hour.svg");
	ok(inc != NULL && full != NULL && strcmp(inc, full) == 0,
	    "a dropped hour is read again from the files");
	free(inc);
	free(full);
	profile_free(p);
	flamegraph_hours_free(hs);
	config_free(conf);
}

/*
 * The round's own .folded file is taken from the profile it was written
 * from, not read back; a file changed since is read.  A profile other
 * than the one written shows which was used.
 */
static void
test_hour_known(void)
{
	struct flamegraph_hours	*hs;
	struct config		*conf;
	struct profile		*p, *q;
	struct stat		 sb;
	char			*folded, *svg, *rel;

	conf = config_defaults();
	free(conf->output_dir);
	conf->output_dir = path_of("known");
	hs = flamegraph_hours_create();
	p = profile_create(PROFILE_TYPE_CPU, 10000000, 0, 0);
	profile_label_set(p, "service_name", "kn");
	add(p, "app;written", 5);
	q = profile_create(PROFILE_TYPE_CPU, 10000000, 0, 0);
	add(q, "app;from_memory", 7);

	ok(sink_file_write_folded(conf, p, WHEN, &folded, &sb) == 0 &&
	    folded != NULL && strstr(folded, "/cpu/kn/20261202T101500Z."
	    "folded") != NULL, "the .folded file written is told");
	flamegraph_hours_known(hs, folded, &sb, q);
	free(folded);
	flamegraph_write(hs, conf, p, NULL, WHEN);
	svg = slurp("known/cpu/kn/last-hour.svg");
	ok(svg != NULL && strstr(svg, "<title>from_memory (7 ") != NULL &&
	    strstr(svg, "<title>written (") == NULL,
	    "the round's file is taken from its profile");
	free(svg);

	sink_file_write_folded(conf, p, WHEN + 10, &folded, &sb);
	flamegraph_hours_known(hs, folded, &sb, q);
	free(folded);
	rel = "known/cpu/kn/20261202T101510Z.folded";
	folded = path_of(rel);
	unlink(folded);
	free(folded);
	spit(rel, "app;replaced 3\n");
	flamegraph_write(hs, conf, p, NULL, WHEN + 10);
	svg = slurp("known/cpu/kn/last-hour.svg");
	ok(svg != NULL && strstr(svg, "<title>replaced (3 ") != NULL &&
	    strstr(svg, "<title>from_memory (7 ") != NULL,
	    "a file replaced since it was written is read");
	free(svg);
	profile_free(p);
	profile_free(q);
	flamegraph_hours_free(hs);
	config_free(conf);
}

/*
 * The byte bound: the newest files up to it, the one that crosses it
 * read up to it; kept round by round as the files are read anew.
 */
static void
test_hour_budget(void)
{
	struct flamegraph_hours	*hs, *once;
	struct config		*conf;
	struct profile		*p;
	char			*inc, *full;
	time_t			 t;
	uint64_t		 all;
	int			 j, k, same = 0, rounds = 0, small = 0;
	size_t			 budget = 1500;

	conf = config_defaults();
	free(conf->output_dir);
	conf->output_dir = path_of("budget");
	hs = flamegraph_hours_create();
	flamegraph_hours_budget(hs, budget);
	for (k = 0; k < 14; k++) {
		t = WHEN + k * 450;
		/* Files of 100 to 2000 bytes: the cut moves. */
		p = hour_profile(k, k % 3 == 0 ? 40 : k % 3 == 1 ? 2 : 12);
		hour_write(hs, conf, p, t);
		if (k == 10) {
			budget = 2500;
			flamegraph_hours_budget(hs, budget);
		}
		flamegraph_write(hs, conf, p, NULL, t);
		inc = slurp("budget/cpu/inc/last-hour.svg");
		once = flamegraph_hours_create();
		flamegraph_hours_budget(once, budget);
		flamegraph_write(once, conf, p, NULL, t);
		flamegraph_hours_free(once);
		full = slurp("budget/cpu/inc/last-hour.svg");
		rounds++;
		if (inc != NULL && full != NULL && strcmp(inc, full) == 0)
			same++;
		else
			printf("# budget round %d: last-hour.svg differs\n", k);
		for (j = k > 7 ? k - 7 : 0, all = 0; j <= k; j++)
			all += hour_total(j);
		if (total_of(inc) < all)
			small++;
		free(inc);
		free(full);
		profile_free(p);
	}
	is_int(same, rounds, "under a byte bound, last-hour.svg kept in "
	    "memory is the one read from the files in all %d rounds", rounds);
	ok(small > 5, "the bound cut the hour in %d rounds", small);
	flamegraph_hours_free(hs);
	config_free(conf);
}

/* Round k of a service: two stacks every round, and fresh new ones. */
static struct profile *
hour_round(const char *svc, int k, int fresh)
{
	struct profile	*p;
	const char	*fr[3];
	char		 a[32], b[32];
	int		 i;

	p = profile_create(PROFILE_TYPE_CPU, 10000000, 0, 0);
	profile_label_set(p, "service_name", svc);
	fr[0] = "app";
	fr[1] = "main";
	fr[2] = "work";
	profile_add(p, fr, 3, 1 + k % 7);
	fr[1] = "idle";
	profile_add(p, fr, 2, 3);
	for (i = 0; i < fresh; i++) {
		snprintf(a, sizeof(a), "r%d", k);
		snprintf(b, sizeof(b), "f%d_%d", k, i);
		fr[1] = a;
		fr[2] = b;
		profile_add(p, fr, 3, 1 + i % 3);
	}
	return p;
}

static int
hour_line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sum as text, a sorted line a stack of value > 0: to compare. */
static char *
hour_dump(const struct profile *p)
{
	const uint32_t	*ids;
	char		**lines, *s, *t;
	uint64_t	 v;
	size_t		 i, j, n, nl = 0, len = 1;

	lines = xcalloc(profile_nstacks(p) + 1, sizeof(*lines));
	for (i = 0; (ids = profile_stack(p, i, &n, &v)) != NULL; i++) {
		if (v == 0)
			continue;
		xasprintf(&s, "%llu", (unsigned long long)v);
		for (j = n; j > 0; j--) {
			xasprintf(&t, "%s;%s", profile_string(p, ids[j - 1]),
			    s);
			free(s);
			s = t;
		}
		len += strlen(s) + 1;
		lines[nl++] = s;
	}
	qsort(lines, nl, sizeof(*lines), hour_line_cmp);
	s = xcalloc(1, len);
	for (i = 0; i < nl; i++) {
		strcat(s, lines[i]);
		strcat(s, "\n");
		free(lines[i]);
	}
	free(lines);
	return s;
}

/* The hour kept in hs is the one read afresh from the files. */
static int
hour_same_as_read(struct flamegraph_hours *hs, const char *dir,
    const struct profile *p, time_t t)
{
	struct flamegraph_hours	*once;
	struct flamegraph_order	*o;
	struct profile		*kept, *read;
	time_t			 from, from2;
	char			*a, *b;
	int			 same;

	kept = flamegraph_hours_get(hs, dir, p, t, &o, &from);
	once = flamegraph_hours_create();
	read = flamegraph_hours_get(once, dir, p, t, &o, &from2);
	if (kept == NULL || read == NULL) {
		flamegraph_hours_free(once);
		return 0;
	}
	a = hour_dump(kept);
	b = hour_dump(read);
	same = strcmp(a, b) == 0 && from == from2 &&
	    profile_total(kept) == profile_total(read) &&
	    profile_total(kept) > 0;
	free(a);
	free(b);
	flamegraph_hours_free(once);
	return same;
}

static struct config *
conf_in(const char *rel)
{
	struct config	*conf;

	conf = config_defaults();
	free(conf->output_dir);
	conf->output_dir = path_of(rel);
	return conf;
}

/*
 * 925 rounds 4 s apart: every minute merged, minutes leaving the
 * hour whole, a file of a merged minute deleted and another replaced
 * mid-hour; the sum kept is the one read from the files each time it is
 * compared, and the bytes held stay far from what a record per file
 * cost (900 records of 256 pairs of 12 bytes: 2.6 MiB).
 */
static void
test_hour_merge(void)
{
	struct flamegraph_hours	*hs;
	struct flamegraph_order	*o;
	struct config		*conf;
	struct profile		*p;
	struct tm		 tm;
	FILE			*f;
	time_t			 t, from, gone;
	size_t			 bytes, most = 0;
	char			*dir, *path, name[64];
	int			 k, checks = 0, same = 0;

	conf = conf_in("merge");
	dir = path_of("merge/cpu/many");
	hs = flamegraph_hours_create();
	for (k = 0; k < 925; k++) {
		t = WHEN + 4 * k;
		p = hour_round("many", k, k % 10 == 0 ? 5 : 1);
		hour_write(hs, conf, p, t);
		if (k == 250 || k == 375) {
			/* A file of a minute merged long ago goes. */
			gone = WHEN + (k == 250 ? 400 : 800);
			gmtime_r(&gone, &tm);
			strftime(name, sizeof(name),
			    "merge/cpu/many/%Y%m%dT%H%M%SZ.folded", &tm);
			path = path_of(name);
			ok(unlink(path) == 0, "round %d: deleted %s", k, name);
			free(path);
			if (k == 375 && (path = path_of(name)) != NULL &&
			    (f = fopen(path, "w")) != NULL) {
				/* And another file under its name. */
				fputs("app;replaced 11\n", f);
				fclose(f);
			}
			if (k == 375)
				free(path);
		}
		if (k % 60 == 59 || k == 250 || k == 375 || k == 924) {
			checks++;
			if (hour_same_as_read(hs, dir, p, t))
				same++;
			else
				printf("# round %d: the sum kept differs\n",
				    k);
		} else if (flamegraph_hours_get(hs, dir, p, t, &o, &from) ==
		    NULL)
			ok(0, "round %d: no sum", k);
		bytes = flamegraph_hours_bytes(hs);
		if (bytes > most)
			most = bytes;
		profile_free(p);
	}
	is_int(same, checks, "the sum kept is the one read from the files, "
	    "in all %d rounds compared (a round every 4 s, 925 rounds)",
	    checks);
	ok(most < (1 << 20), "bytes held at most %zu KiB (a record a file: "
	    "2.6 MiB)", most >> 10);
	flamegraph_hours_log_state(hs);
	flamegraph_hours_free(hs);
	free(dir);
	config_free(conf);
}

/*
 * Rounds of many new stacks under small bounds: the bytes held never
 * exceed them, the oldest minutes leave first, and the sum is that of
 * the files of the minutes it covers, from the time it says.
 */
static void
test_hour_bound(void)
{
	struct flamegraph_hours	*hs;
	struct flamegraph_order	*o;
	struct config		*conf;
	struct profile		*p, *hp;
	FILE			*f;
	const char		*svc[2] = { "b1", "b2" };
	char			*dir[2], *svg, *path;
	uint64_t		 total[900], want;
	time_t			 t, from;
	size_t			 bytes, most = 0, mem_dir = 256 << 10;
	size_t			 mem_all = 384 << 10, cap;
	int			 k, j, d, wrong = 0, over = 0, nd, first = 0;

	/* One directory, then two under a bound for all. */
	for (nd = 1; nd <= 2; nd++) {
		conf = conf_in(nd == 1 ? "bound1" : "bound2");
		for (d = 0; d < nd; d++) {
			xasprintf(&path, "%s/cpu/%s", conf->output_dir, svc[d]);
			dir[d] = path;
		}
		hs = flamegraph_hours_create();
		flamegraph_hours_mem(hs, mem_dir, nd == 1 ? 64 << 20 :
		    mem_all);
		most = 0;
		first = 0;
		for (k = 0; k < 900; k++) {
			t = WHEN + k;
			for (d = 0; d < nd; d++) {
				p = hour_round(svc[d], k, nd == 1 ? 8 : 4);
				total[k] = profile_total(p);
				hour_write(hs, conf, p, t);
				hp = flamegraph_hours_get(hs, dir[d], p, t, &o,
				    &from);
				for (j = 0, want = 0; j <= k; j++)
					if (WHEN + j >= from)
						want += total[j];
				if (hp == NULL || profile_total(hp) != want) {
					if (wrong++ < 3)
						printf("# round %d: %s: the "
						    "sum is not its files' "
						    "from %lld\n", k, svc[d],
						    (long long)(from - WHEN));
				}
				if (first == 0 && from > t - 3600)
					first = k;
				profile_free(p);
			}
			bytes = flamegraph_hours_bytes(hs);
			if (bytes > most)
				most = bytes;
			if (bytes > (nd == 1 ? mem_dir : mem_all))
				over++;
		}
		is_int(over, 0, "%d director%s: the bytes held never over "
		    "%zu KiB (at most %zu KiB)", nd, nd == 1 ? "y" : "ies",
		    (nd == 1 ? mem_dir : mem_all) >> 10, most >> 10);
		is_int(wrong, 0, "%d director%s: the sum is always that of "
		    "the files from the time it covers", nd, nd == 1 ? "y" :
		    "ies");
		ok(first > 0 && from > WHEN + 60, "%d director%s: the oldest "
		    "minutes left out from round %d, %lld s covered at the end",
		    nd, nd == 1 ? "y" : "ies", first, (long long)t -
		    (long long)from);
		if (nd == 1) {
			/* last-hour.svg says what it covers. */
			p = hour_round(svc[0], k, 20);
			hour_write(hs, conf, p, t + 1);
			flamegraph_write(hs, conf, p, NULL, t + 1);
			xasprintf(&path, "%s/last-hour.svg", dir[0]);
			svg = NULL;
			cap = 0;
			if ((f = fopen(path, "r")) != NULL) {
				if (getdelim(&svg, &cap, '\0', f) == -1) {
					free(svg);
					svg = NULL;
				}
				fclose(f);
			}
			ok(svg != NULL && strstr(svg, "(memory bound), ") !=
			    NULL, "the title says the memory bound cut the "
			    "hour");
			free(svg);
			free(path);
			profile_free(p);
		}
		flamegraph_hours_free(hs);
		for (d = 0; d < nd; d++)
			free(dir[d]);
		config_free(conf);
	}
}

int
main(void)
{
	char	*cmd;

	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_layout();
	test_min_width();
	test_bounded();
	test_folded_read();
	test_escape();
	test_text();
	test_offcpu();
	test_colours();
	test_empty();
	test_disk_full();
	test_hour_empty();
	test_write();
	test_hour();
	test_hour_known();
	test_hour_budget();
	test_hour_merge();
	test_hour_bound();

	xasprintf(&cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("cannot remove the scratch directory");
	free(cmd);
	return done_testing();
}
