/*
 * The SVG document of a flame graph: one <g> per frame holding its
 * <title> (the hover text), <rect> and <text>, then a script for zoom
 * and search.  Everything is inline, so the file works from a mail or
 * a disk with no network.
 *
 * Frame names are chosen by the profiled programs: a process names its
 * own functions, and a name can hold '<', '&', control characters or
 * bytes that are not UTF-8.  Such a name must neither break the XML
 * nor inject markup, so names are only ever written as character data,
 * escaped, with every byte XML 1.0 cannot carry (control characters,
 * invalid UTF-8, U+FFFE, U+FFFF) written as '?'.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"
#include "util/log.h"
#include "util/outbuf.h"
#include "profile/profile.h"
#include "util/xmalloc.h"

#define FLAMEGRAPH_SVG_FRAME_H	16		/* pixels per depth */
#define FLAMEGRAPH_SVG_FONT	12		/* pixels */
#define FLAMEGRAPH_SVG_CHAR_W	(FLAMEGRAPH_SVG_FONT * 59) /* 1/100 px */
#define FLAMEGRAPH_SVG_TEXT_PAD	3		/* pixels each side */
#define FLAMEGRAPH_SVG_TOP	(FLAMEGRAPH_SVG_FONT * 3)
#define FLAMEGRAPH_SVG_BOTTOM	(FLAMEGRAPH_SVG_FONT * 2 + 10)

/*
 * Coordinates, widths and shares are written in hundredths, computed in
 * integers from the values: the digits "%.2f" gives the exact quotient,
 * for a fraction of printf()'s cost.
 */
struct flamegraph_svg {
	FILE			*f;
	struct outbuf		 ob;
	uint64_t		 total;
	enum profile_type	 type;
	int			 height;
	/*
	 * A name is drawn in many frames (a hot function under many
	 * callers): its escaped text and colour are made once, by id.
	 */
	struct flamegraph_svg_name *names;
	size_t			 nnames;
	struct outbuf		 texts;
};

struct flamegraph_svg_name {
	size_t			 off;		/* of its text in texts */
	size_t			 len;
	size_t			 chars;
	uint8_t			 rgb[3];
	int			 done;
};

static size_t	 flamegraph_svg_utf8(const unsigned char *);
static size_t	 flamegraph_svg_chars(const char *);
static void	 flamegraph_svg_text(struct outbuf *, const char *, size_t);
static uint64_t	 flamegraph_svg_div(uint64_t, uint64_t, uint64_t);
static const struct flamegraph_svg_name *flamegraph_svg_name(
		    struct flamegraph_svg *, const struct flamegraph_frame *);
static void	 flamegraph_svg_colour(const char *, enum profile_type,
		    int *, int *, int *);
static int	 flamegraph_svg_frame_cb(const struct flamegraph_frame *,
		    void *);

static const char flamegraph_svg_css[] =
"text { font-family: Verdana, Helvetica, sans-serif; font-size: 12px;"
" fill: rgb(0,0,0); }\n"
"#title { text-anchor: middle; font-size: 17px; }\n"
"#search, #matched { text-anchor: end; }\n"
"#search, #unzoom { cursor: pointer; }\n"
"#search { opacity: 0.3; }\n"
"#search:hover, #search.on { opacity: 1; }\n"
"#frames > g { cursor: pointer; }\n"
"#frames > g:hover > rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
"#frames text { pointer-events: none; }\n"
".hide { display: none; }\n"
".caller { opacity: 0.6; }\n";

/*
 * Zoom: a click on a frame stretches it to the full width; its callees
 * follow, its callers stay at full width, dimmed, the rest is hidden.
 * Frames keep their start, value and depth in data- attributes and
 * their name in <title>, so the script needs nothing else.  Search
 * (the button, Ctrl-F or F3) takes a regular expression, colours the
 * matching frames and shows their share, counting a match inside
 * another match once.
 */
static const char flamegraph_svg_js[] =
"\"use strict\";\n"
"(function () {\n"
"\tvar svg = document.documentElement;\n"
"\tvar box = document.getElementById(\"frames\");\n"
"\tvar details = document.getElementById(\"details\");\n"
"\tvar unzoomb = document.getElementById(\"unzoom\");\n"
"\tvar searchb = document.getElementById(\"search\");\n"
"\tvar matched = document.getElementById(\"matched\");\n"
"\tvar total = +box.getAttribute(\"data-total\");\n"
"\tvar x0 = +box.getAttribute(\"data-x0\");\n"
"\tvar fw = +box.getAttribute(\"data-w\");\n"
"\tvar cw = +box.getAttribute(\"data-cw\");\n"
"\tvar pad = +box.getAttribute(\"data-pad\");\n"
"\tvar frames = [], searching = false, i;\n"
"\n"
"\tfunction label(f, w) {\n"
"\t\tvar n = Math.floor((w - 2 * pad) / cw);\n"
"\t\tif (n < 3)\n"
"\t\t\treturn \"\";\n"
"\t\tif (f.chars.length <= n)\n"
"\t\t\treturn f.name;\n"
"\t\treturn f.chars.slice(0, n - 2).join(\"\") + \"..\";\n"
"\t}\n"
"\tfunction place(f, x, w) {\n"
"\t\tf.g.classList.remove(\"hide\");\n"
"\t\tf.rect.setAttribute(\"x\", x.toFixed(2));\n"
"\t\tf.rect.setAttribute(\"width\", w.toFixed(2));\n"
"\t\tf.text.setAttribute(\"x\", (x + pad).toFixed(2));\n"
"\t\tf.text.textContent = label(f, w);\n"
"\t}\n"
"\tfunction unzoom() {\n"
"\t\tframes.forEach(function (f) {\n"
"\t\t\tf.g.classList.remove(\"caller\");\n"
"\t\t\tplace(f, x0 + f.s * fw / total, f.v * fw / total);\n"
"\t\t});\n"
"\t\tunzoomb.classList.add(\"hide\");\n"
"\t}\n"
"\tfunction zoom(z) {\n"
"\t\tframes.forEach(function (f) {\n"
"\t\t\tif (f.s + f.v <= z.s || f.s >= z.s + z.v) {\n"
"\t\t\t\tf.g.classList.add(\"hide\");\n"
"\t\t\t} else if (f.d < z.d) {\n"
"\t\t\t\tf.g.classList.add(\"caller\");\n"
"\t\t\t\tplace(f, x0, fw);\n"
"\t\t\t} else {\n"
"\t\t\t\tf.g.classList.remove(\"caller\");\n"
"\t\t\t\tplace(f, x0 + (f.s - z.s) * fw / z.v, f.v * fw / z.v);\n"
"\t\t\t}\n"
"\t\t});\n"
"\t\tunzoomb.classList.remove(\"hide\");\n"
"\t}\n"
"\tfunction unsearch() {\n"
"\t\tframes.forEach(function (f) {\n"
"\t\t\tf.rect.setAttribute(\"fill\", f.fill);\n"
"\t\t});\n"
"\t\tmatched.textContent = \"\";\n"
"\t\tsearchb.textContent = \"Search\";\n"
"\t\tsearchb.classList.remove(\"on\");\n"
"\t\tsearching = false;\n"
"\t}\n"
"\tfunction search(term) {\n"
"\t\tvar re, hits = [], end = -1, sum = 0;\n"
"\t\ttry {\n"
"\t\t\tre = new RegExp(term);\n"
"\t\t} catch (e) {\n"
"\t\t\tmatched.textContent = \"bad regular expression\";\n"
"\t\t\treturn;\n"
"\t\t}\n"
"\t\tunsearch();\n"
"\t\tframes.forEach(function (f) {\n"
"\t\t\tif (re.test(f.name)) {\n"
"\t\t\t\tf.rect.setAttribute(\"fill\", \"rgb(230,0,230)\");\n"
"\t\t\t\thits.push(f);\n"
"\t\t\t}\n"
"\t\t});\n"
"\t\t/* Ranges nest or are apart: skip those inside a counted one. */\n"
"\t\thits.sort(function (a, b) { return a.s - b.s || a.d - b.d; });\n"
"\t\thits.forEach(function (f) {\n"
"\t\t\tif (f.s >= end) {\n"
"\t\t\t\tsum += f.v;\n"
"\t\t\t\tend = f.s + f.v;\n"
"\t\t\t}\n"
"\t\t});\n"
"\t\tmatched.textContent = \"Matched: \" +\n"
"\t\t    (total > 0 ? 100 * sum / total : 0).toFixed(2) + \"%\";\n"
"\t\tsearchb.textContent = \"Reset Search\";\n"
"\t\tsearchb.classList.add(\"on\");\n"
"\t\tsearching = true;\n"
"\t}\n"
"\tfunction ask() {\n"
"\t\tvar term = window.prompt(\"Search for (regular expression)\", \"\");\n"
"\t\tif (term)\n"
"\t\t\tsearch(term);\n"
"\t}\n"
"\tfunction frameof(e) {\n"
"\t\tvar g = e.target.closest ? e.target.closest(\"g\") : null;\n"
"\t\treturn g && g.parentNode === box ? frames[g.fgIndex] : null;\n"
"\t}\n"
"\n"
"\tfor (i = 0; i < box.children.length; i++) {\n"
"\t\tvar g = box.children[i], t = g.firstElementChild.textContent;\n"
"\t\tvar f = {\n"
"\t\t\tg: g,\n"
"\t\t\trect: g.querySelector(\"rect\"),\n"
"\t\t\ttext: g.querySelector(\"text\"),\n"
"\t\t\tname: t.slice(0, t.lastIndexOf(\" (\")),\n"
"\t\t\ts: +g.getAttribute(\"data-s\"),\n"
"\t\t\tv: +g.getAttribute(\"data-v\"),\n"
"\t\t\td: +g.getAttribute(\"data-d\")\n"
"\t\t};\n"
"\t\tf.chars = Array.from(f.name);\n"
"\t\tf.fill = f.rect.getAttribute(\"fill\");\n"
"\t\tg.fgIndex = i;\n"
"\t\tframes.push(f);\n"
"\t}\n"
"\tbox.addEventListener(\"click\", function (e) {\n"
"\t\tvar f = frameof(e);\n"
"\t\tif (f)\n"
"\t\t\tzoom(f);\n"
"\t});\n"
"\tbox.addEventListener(\"mouseover\", function (e) {\n"
"\t\tvar f = frameof(e);\n"
"\t\tif (f)\n"
"\t\t\tdetails.textContent = f.g.firstElementChild.textContent;\n"
"\t});\n"
"\tbox.addEventListener(\"mouseout\", function () {\n"
"\t\tdetails.textContent = \" \";\n"
"\t});\n"
"\tunzoomb.addEventListener(\"click\", unzoom);\n"
"\tsearchb.addEventListener(\"click\", function () {\n"
"\t\tif (searching)\n"
"\t\t\tunsearch();\n"
"\t\telse\n"
"\t\t\task();\n"
"\t});\n"
"\twindow.addEventListener(\"keydown\", function (e) {\n"
"\t\tif (e.key === \"F3\" || ((e.ctrlKey || e.metaKey) &&\n"
"\t\t    (e.key === \"f\" || e.key === \"F\"))) {\n"
"\t\t\te.preventDefault();\n"
"\t\t\task();\n"
"\t\t} else if (e.key === \"Escape\") {\n"
"\t\t\tunsearch();\n"
"\t\t\tunzoom();\n"
"\t\t}\n"
"\t});\n"
"\tunzoom();\n"
"\tsvg.setAttribute(\"data-fg\", \"ready\");\n"
"})();\n";

/*
 * The length of the character at s if it is valid UTF-8 that XML 1.0
 * allows in character data, else 0.  Continuation bytes are looked at
 * one by one, so a NUL ends the check before reading past the string.
 */
static size_t
flamegraph_svg_utf8(const unsigned char *s)
{
#define CONT(c)	((c) >= 0x80 && (c) <= 0xbf)
	unsigned char	 lo, hi;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return CONT(s[1]) ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		/* No overlong forms, no surrogates, no U+FFFE or U+FFFF. */
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		hi = s[0] == 0xed ? 0x9f : 0xbf;
		if (s[1] < lo || s[1] > hi || !CONT(s[2]))
			return 0;
		if (s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
		if (s[1] < lo || s[1] > hi || !CONT(s[2]) || !CONT(s[3]))
			return 0;
		return 4;
	}
	return 0;
#undef CONT
}

/* Characters as written: a byte that is not one counts as its '?'. */
static size_t
flamegraph_svg_chars(const char *s)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 n = 0, l;

	for (; *u != '\0'; n++)
		u += (l = flamegraph_svg_utf8(u)) > 0 ? l : 1;
	return n;
}

/*
 * Write s as character data.  Beyond max characters it is cut to
 * max - 2 and "..": flame graph labels show as much as fits their box.
 */
static void
flamegraph_svg_text(struct outbuf *ob, const char *s, size_t max)
{
	const unsigned char	*u;
	size_t			 n, l;
	int			 cut = 0;

	if (*s == '\0')
		s = "[unknown]";
	u = (const unsigned char *)s;
	if (max != SIZE_MAX && flamegraph_svg_chars(s) > max) {
		if (max < 3)
			return;
		max -= 2;
		cut = 1;
	}
	for (n = 0; *u != '\0' && n < max; n++) {
		/* Most names are plain ASCII: one byte, as it is. */
		if (*u >= 0x20 && *u < 0x7f && *u != '<' && *u != '>' &&
		    *u != '&' && *u != '"' && *u != '\'') {
			outbuf_char(ob, *u++);
			continue;
		}
		if ((l = flamegraph_svg_utf8(u)) == 0) {
			outbuf_char(ob, '?');
			u++;
			continue;
		}
		switch (*u) {
		case '<':
			OUTBUF_LIT(ob, "&lt;");
			break;
		case '>':
			OUTBUF_LIT(ob, "&gt;");
			break;
		case '&':
			OUTBUF_LIT(ob, "&amp;");
			break;
		case '"':
			OUTBUF_LIT(ob, "&quot;");
			break;
		case '\'':
			OUTBUF_LIT(ob, "&apos;");
			break;
		default:
			outbuf_add(ob, u, l);
		}
		u += l;
	}
	if (cut)
		OUTBUF_LIT(ob, "..");
}

/*
 * a * mul / div, div > 0, without overflow, rounded as printf() rounds
 * an exact value: to the nearest, a tie to the even neighbour.
 */
static uint64_t
flamegraph_svg_div(uint64_t a, uint64_t mul, uint64_t div)
{
	unsigned __int128	 x, q, r;
	uint64_t		 x64, q64, r64;

	/* 128-bit division is slow: most values fit 64 bits. */
	if (!__builtin_mul_overflow(a, mul, &x64)) {
		q64 = x64 / div;
		r64 = x64 % div;
		if (r64 > div - r64 || (r64 == div - r64 && (q64 & 1)))
			q64++;
		return q64;
	}
	x = (unsigned __int128)a * mul;
	q = x / div;
	r = x % div;
	if (r > div - r || (r == div - r && (q & 1)))
		q++;
	return (uint64_t)q;
}

/*
 * A colour from a hash of the name, so that a function keeps its colour
 * from one graph to the next: warm for on-CPU, blue for off-CPU.
 */
static void
flamegraph_svg_colour(const char *name, enum profile_type type, int *r,
    int *g, int *b)
{
	uint32_t	 h = 2166136261U;	/* FNV-1a */
	double		 v1, v2, v3;

	for (; *name != '\0'; name++)
		h = (h ^ (unsigned char)*name) * 16777619U;
	v1 = (h & 0xff) / 255.0;
	v2 = ((h >> 8) & 0xff) / 255.0;
	v3 = ((h >> 16) & 0xff) / 255.0;
	if (type == PROFILE_TYPE_OFFCPU) {
		*r = 40 + 70 * v1;
		*g = 90 + 90 * v1 * v2;
		*b = 200 + 55 * v3;
	} else {
		*r = 215 + 40 * v1;
		*g = 60 + 160 * v2;
		*b = 10 + 50 * v3;
	}
}

/* A frame's name as drawn: escaped text, its characters, its colour. */
static const struct flamegraph_svg_name *
flamegraph_svg_name(struct flamegraph_svg *s, const struct flamegraph_frame *fr)
{
	struct flamegraph_svg_name	*nm;
	int				 r, g, b;

	if (fr->id >= s->nnames)
		fatalx("flame graph: name %u of %zu", fr->id, s->nnames);
	nm = &s->names[fr->id];
	if (nm->done)
		return nm;
	nm->off = s->texts.len;
	flamegraph_svg_text(&s->texts, fr->name, SIZE_MAX);
	nm->len = s->texts.len - nm->off;
	nm->chars = flamegraph_svg_chars(*fr->name != '\0' ? fr->name :
	    "[unknown]");
	flamegraph_svg_colour(fr->name, s->type, &r, &g, &b);
	nm->rgb[0] = r;
	nm->rgb[1] = g;
	nm->rgb[2] = b;
	nm->done = 1;
	return nm;
}

static int
flamegraph_svg_frame_cb(const struct flamegraph_frame *fr, void *arg)
{
	struct flamegraph_svg	*s = arg;
	struct outbuf		*ob = &s->ob;
	const uint64_t		 fw = FLAMEGRAPH_WIDTH - 2 * FLAMEGRAPH_XPAD;
	const struct flamegraph_svg_name *nm;
	unsigned __int128	 room;
	uint64_t		 x, w, chars = 0;
	int			 y;

	/* In hundredths of a pixel, of a percent, of a second. */
	x = FLAMEGRAPH_XPAD * 100 + flamegraph_svg_div(fr->start, fw * 100,
	    s->total);
	w = flamegraph_svg_div(fr->value, fw * 100, s->total);
	y = s->height - FLAMEGRAPH_SVG_BOTTOM -
	    (int)(fr->depth + 1) * FLAMEGRAPH_SVG_FRAME_H;
	nm = flamegraph_svg_name(s, fr);

	OUTBUF_LIT(ob, "<g data-d=\"");
	outbuf_u64(ob, fr->depth);
	OUTBUF_LIT(ob, "\" data-s=\"");
	outbuf_u64(ob, fr->start);
	OUTBUF_LIT(ob, "\" data-v=\"");
	outbuf_u64(ob, fr->value);
	OUTBUF_LIT(ob, "\"><title>");
	outbuf_add(ob, s->texts.buf + nm->off, nm->len);
	OUTBUF_LIT(ob, " (");
	if (s->type == PROFILE_TYPE_OFFCPU && fr->value >= 1000000000) {
		outbuf_fixed(ob, flamegraph_svg_div(fr->value, 1, 10000000),
		    2);
		OUTBUF_LIT(ob, " s");
	} else if (s->type == PROFILE_TYPE_OFFCPU) {
		outbuf_fixed(ob, flamegraph_svg_div(fr->value, 1, 1000), 3);
		OUTBUF_LIT(ob, " ms");
	} else {
		outbuf_u64(ob, fr->value);
		if (fr->value == 1)
			OUTBUF_LIT(ob, " sample");
		else
			OUTBUF_LIT(ob, " samples");
	}
	OUTBUF_LIT(ob, ", ");
	outbuf_fixed(ob, flamegraph_svg_div(fr->value, 10000, s->total), 2);
	OUTBUF_LIT(ob, "%)</title><rect x=\"");
	outbuf_fixed(ob, x, 2);
	OUTBUF_LIT(ob, "\" y=\"");
	outbuf_u64(ob, y);
	OUTBUF_LIT(ob, "\" width=\"");
	outbuf_fixed(ob, w, 2);
	OUTBUF_LIT(ob, "\" height=\"");
	outbuf_u64(ob, FLAMEGRAPH_SVG_FRAME_H - 1);
	OUTBUF_LIT(ob, "\" fill=\"rgb(");
	outbuf_u64(ob, nm->rgb[0]);
	outbuf_char(ob, ',');
	outbuf_u64(ob, nm->rgb[1]);
	outbuf_char(ob, ',');
	outbuf_u64(ob, nm->rgb[2]);
	OUTBUF_LIT(ob, ")\" rx=\"2\" ry=\"2\"/><text x=\"");
	outbuf_fixed(ob, x + FLAMEGRAPH_SVG_TEXT_PAD * 100, 2);
	OUTBUF_LIT(ob, "\" y=\"");
	outbuf_u64(ob, y + FLAMEGRAPH_SVG_FRAME_H - 5);
	OUTBUF_LIT(ob, "\">");
	/*
	 * The characters that fit the box less its padding, from the exact
	 * width: (value * fw / total - 2 pad) / char width, rounded down.
	 */
	room = (unsigned __int128)fr->value * fw * 100;
	if (room >= (unsigned __int128)s->total * 2 *
	    FLAMEGRAPH_SVG_TEXT_PAD * 100)
		chars = (room - (unsigned __int128)s->total * 2 *
		    FLAMEGRAPH_SVG_TEXT_PAD * 100) /
		    ((unsigned __int128)s->total * FLAMEGRAPH_SVG_CHAR_W);
	if (chars >= 3 && chars >= nm->chars)
		outbuf_add(ob, s->texts.buf + nm->off, nm->len);
	else if (chars >= 3)
		flamegraph_svg_text(ob, fr->name, chars);
	OUTBUF_LIT(ob, "</text></g>\n");
	if (ob->len >= 64 * 1024 && outbuf_flush(ob, s->f) == -1)
		return -1;
	return 0;
}

int
flamegraph_svg_write(const struct flamegraph *fg, const char *title,
    FILE *f)
{
	struct flamegraph_svg	 s;
	const int		 width = FLAMEGRAPH_WIDTH;
	const int		 fw = FLAMEGRAPH_WIDTH - 2 * FLAMEGRAPH_XPAD;
	int			 rv = -1;

	memset(&s, 0, sizeof(s));
	s.f = f;
	s.total = flamegraph_total(fg);
	s.type = flamegraph_type(fg);
	s.nnames = flamegraph_nnames(fg);
	s.names = xcalloc(s.nnames + 1, sizeof(*s.names));
	s.height = FLAMEGRAPH_SVG_TOP + FLAMEGRAPH_SVG_BOTTOM +
	    (flamegraph_depth(fg) + 1) * FLAMEGRAPH_SVG_FRAME_H;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
	    "standalone=\"no\"?>\n"
	    "<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
	    "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
	    width, s.height, width, s.height);
	fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n",
	    flamegraph_svg_css);
	fprintf(f, "<defs><linearGradient id=\"background\" x1=\"0\" "
	    "y1=\"0\" x2=\"0\" y2=\"1\"><stop stop-color=\"%s\" "
	    "offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
	    "</linearGradient></defs>\n",
	    "#f4f4f4", s.type == PROFILE_TYPE_OFFCPU ? "#dfe6f2" : "#eeeed8");
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
	    "fill=\"url(#background)\"/>\n", width, s.height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\">", width / 2);
	flamegraph_svg_text(&s.ob, title, SIZE_MAX);
	if (outbuf_flush(&s.ob, f) == -1)
		goto fail;
	fprintf(f, "</text>\n");
	fprintf(f, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">"
	    "Reset Zoom</text>\n", FLAMEGRAPH_XPAD);
	fprintf(f, "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n",
	    width - FLAMEGRAPH_XPAD);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\">%s</text>\n",
	    FLAMEGRAPH_XPAD, s.height - 17,
	    s.total > 0 ? " " : "no samples");
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n",
	    width - FLAMEGRAPH_XPAD, s.height - 17);

	fprintf(f, "<g id=\"frames\" data-total=\"%" PRIu64 "\" "
	    "data-x0=\"%d\" data-w=\"%d\" data-cw=\"%d.%02d\" "
	    "data-pad=\"%d\">\n", s.total, FLAMEGRAPH_XPAD, fw,
	    FLAMEGRAPH_SVG_CHAR_W / 100, FLAMEGRAPH_SVG_CHAR_W % 100,
	    FLAMEGRAPH_SVG_TEXT_PAD);
	if (flamegraph_walk(fg, flamegraph_svg_frame_cb, &s) != 0 ||
	    outbuf_flush(&s.ob, f) == -1)
		goto fail;
	fprintf(f, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n%s"
	    "]]></script>\n</svg>\n", flamegraph_svg_js);
	if (fflush(f) == EOF || ferror(f))
		goto fail;
	rv = 0;
fail:
	/* One way out: a full disk fails only the last fflush. */
	outbuf_free(&s.ob);
	outbuf_free(&s.texts);
	free(s.names);
	if (rv == -1 && errno == 0)
		errno = EIO;
	return rv;
}
