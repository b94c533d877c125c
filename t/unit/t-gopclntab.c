/*
 * Go's pclntab: function names and inlined calls in every format we
 * read (Go 1.16, 1.18 and 1.20 headers), in executables and position
 * independent files, from tables written here in assembly so that every
 * byte is known; damaged tables; and, when Go is installed, real
 * programs built stripped, whose names are checked against what Go's
 * own tools (go tool nm, go tool addr2line) say.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf.h"
#include "sym/gopclntab.h"
#include "sym/resolve.h"
#include "sym/symstats.h"
#include "config.h"

#include "tap.h"
#include "symfix.h"

static char	dir[FX_DIR_MAX];

/* Damage done to a synthetic table. */
enum bug {
	BUG_NONE,
	BUG_NFUNC_HUGE,		/* nfunc far past the table */
	BUG_NAMES_PAST_END,	/* funcnameOffset past the section */
	BUG_OFFSETS_ORDER,	/* pclnOffset before pctabOffset */
	BUG_UNSORTED,		/* function table out of order */
	BUG_FUNCOFF_PAST_END,	/* a _func past the section */
	BUG_NAMEOFF,		/* names out of the name table */
	BUG_NPCDATA_HUGE,	/* npcdata past the section */
	BUG_PCDATA_PAST_END,	/* a pc-value table past pctab */
	BUG_TREE_PAST_END,	/* an inline tree past go:func.* */
	BUG_PARENT_LOOP,	/* inline nodes each other's parent */
	BUG_PCTAB_ENDLESS,	/* a pc-value table that never moves on */
	BUG_NAME_UNTERMINATED,	/* the name table's last name, no NUL */
	BUG_LINES_LONG,		/* 256 MB function, 2M steps that stay */
	BUG_LINES_SLOW,		/* 40000 steps: under a lookup's cap */
	BUG_MAX
};

static const char *const bug_names[] = {
	"none", "nfunc huge", "names past end", "offsets out of order",
	"unsorted", "funcoff past end", "nameoff out of range",
	"npcdata huge", "pcdata past end", "inline tree past end",
	"parent loop", "endless pc-value table", "name unterminated",
	"lines too long a walk", "lines slow to walk",
};

/* Pairs (value +1, pc +0) in beta's line table for these bugs. */
#define LINES_LONG_STEPS	2000000
#define LINES_SLOW_STEPS	40000

static const char *
fpath(const char *name)
{
	static char	 buf[4][FX_DIR_MAX + 128];
	static int	 i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static struct resolve *
mkresolve(void)
{
	struct config	*conf;
	struct resolve	*r;

	conf = config_defaults();
	conf->unknown_symbol_module_offset = 0;
	r = resolve_create(conf);
	config_free(conf);
	return r;
}

/* One _func record of function f (a, b or c) for version v. */
static void
gen_func(FILE *o, int v, char f, const char *name, int inl, enum bug bug)
{
	fprintf(o, "\t.balign 8\nfunc_%c:\n", f);
	if (v == 116)
		fprintf(o, "\t.quad fn_%c\n", f);
	else
		fprintf(o, "\t.long fn_%c - text_start\n", f);
	if (bug == BUG_NAMEOFF && f == 'a')
		fprintf(o, "\t.long 0x7ffffff0\n");
	else
		fprintf(o, "\t.long %s - names\n", name);
	/* args, deferreturn, pcsp, pcfile, pcln: lines of beta's */
	if (f == 'b')
		fprintf(o, "\t.long 0, 0, 0, pcfile_b - pctab, "
		    "pcln_b - pctab\n");
	else
		fprintf(o, "\t.long 0, 0, 0, 0, 0\n");
	if (bug == BUG_NPCDATA_HUGE && f == 'b')
		fprintf(o, "\t.long 0x3fffffff\n");
	else
		fprintf(o, "\t.long %d\n", inl ? 3 : 0);
	fprintf(o, "\t.long 0\n");			/* cuOffset */
	if (v == 120)
		fprintf(o, "\t.long 0\n");		/* startLine */
	fprintf(o, "\t.byte 0, 0, 0, %d\n", inl ? 4 : 0);
	if (!inl)
		return;
	if (bug == BUG_PCDATA_PAST_END)
		fprintf(o, "\t.long 0, 0, 0x7fffff00\n");
	else
		fprintf(o, "\t.long 0, 0, inl_%c - pctab\n", f);
	if (v == 116 && bug == BUG_TREE_PAST_END)
		fprintf(o, "\t.balign 8\n\t.quad 0, 0, 0, tree_%c + 0x100000\n",
		    f);
	else if (v == 116)
		fprintf(o, "\t.balign 8\n\t.quad 0, 0, 0, tree_%c\n", f);
	else if (bug == BUG_TREE_PAST_END)
		fprintf(o, "\t.long -1, -1, -1, tree_%c - gofunc + 0x100000\n",
		    f);
	else
		fprintf(o, "\t.long -1, -1, -1, tree_%c - gofunc\n", f);
}

/*
 * A file with three 64-byte functions, fx.alpha, fx.beta and fx.gamma,
 * and the pclntab of Go v (116, 118 or 120) describing them.  fx.beta
 * has fx.inl1 inlined at [16, 32) and, inside it, fx.inl2 at [24, 32).
 * pic: a shared object, the pclntab in .data.rel.ro.gopclntab and the
 * moduledata's words relocated, as in a Go PIE.
 */
static int
gen(const char *name, int v, int pic, enum bug bug)
{
	char		 src[PATH_MAX], out[PATH_MAX];
	FILE		*o;
	const char	*huge = NULL;	/* beta's size, claimed */
	int		 i, gofunc_idx = v == 120 ? 40 : 38;

	if (bug == BUG_LINES_LONG || bug == BUG_LINES_SLOW)
		huge = "0x10000000";

	snprintf(src, sizeof(src), "%s/%s.s", dir, name);
	snprintf(out, sizeof(out), "%s/%s", dir, name);
	if ((o = fopen(src, "w")) == NULL)
		return -1;
	fprintf(o, "\t.text\n\t.globl _start\n\t.balign 64\ntext_start:\n"
	    "_start:\n");
	fprintf(o, "fn_a:\t.fill 64, 1, 0x90\nfn_b:\t.fill 64, 1, 0x90\n"
	    "fn_c:\t.fill 64, 1, 0x90\ntext_end:\n");

	if (pic)
		fprintf(o, "\t.section .data.rel.ro.gopclntab, \"aw\"\n");
	else
		fprintf(o, "\t.section .gopclntab, \"a\"\n");
	fprintf(o, "\t.balign 32\npcln:\n");
	fprintf(o, "\t.long 0x%x\n\t.byte 0, 0, 1, 8\n", v == 116 ?
	    0xfffffffaU : v == 118 ? 0xfffffff0U : 0xfffffff1U);
	fprintf(o, "\t.quad %s\n\t.quad 0\n", bug == BUG_NFUNC_HUGE ?
	    "0x7fffffffffffff" : "3");
	if (v != 116)
		fprintf(o, "\t.quad text_start\n");
	if (bug == BUG_NAMES_PAST_END)
		fprintf(o, "\t.quad 0x100000\n");
	else
		fprintf(o, "\t.quad names - pcln\n");
	fprintf(o, "\t.quad cutab - pcln\n\t.quad filetab - pcln\n");
	if (bug == BUG_OFFSETS_ORDER)
		fprintf(o, "\t.quad functab - pcln\n\t.quad pctab - pcln\n");
	else
		fprintf(o, "\t.quad pctab - pcln\n\t.quad functab - pcln\n");
	fprintf(o, "names:\nn_alpha:\t.asciz \"fx.alpha\"\n"
	    "n_beta:\t.asciz \"fx.beta\"\nn_gamma:\t.asciz \"fx.gamma\"\n"
	    "n_inl1:\t.asciz \"fx.(*T).inl1\"\n");
	if (bug == BUG_NAME_UNTERMINATED)
		fprintf(o, "n_inl2:\t.ascii \"fx.inl2\"\n");
	else
		fprintf(o, "n_inl2:\t.asciz \"fx.inl2\"\n");
	/* Two files, beta's and its inlined functions'. */
	fprintf(o, "cutab:\t.long file_a - filetab, file_i - filetab\n"
	    "filetab:\nfile_a:\t.asciz \"/src/fx/a.go\"\n"
	    "file_i:\t.asciz \"/src/fx/inl.go\"\npctab:\n\t.byte 0\n");
	/*
	 * beta's lines: 10 for 16 bytes, 20 for 8 (inl1's, in inl.go), 30
	 * for 8 (inl2's, in inl.go), 11 for 32; so inl1 is called at line
	 * 10 (parentPc 8) and inl2 at line 20 (parentPc 16).
	 */
	if (bug == BUG_LINES_LONG || bug == BUG_LINES_SLOW)
		fprintf(o, "pcln_b:\t.byte 22, 16\n\t.fill %d, 2, 2\n"
		    "\t.byte 20, 8, 20, 8, 37, 32, 0\n", bug ==
		    BUG_LINES_LONG ? LINES_LONG_STEPS : LINES_SLOW_STEPS);
	else
		fprintf(o, "pcln_b:\t.byte 22, 16, 20, 8, 20, 8, 37, 32, 0\n");
	fprintf(o, "pcfile_b:\t.byte 2, 16, 2, 16, 1, 32, 0\n");
	/* beta: -1 for 16 bytes, 0 for 8, 1 for 8, -1 for 32. */
	if (bug == BUG_PCTAB_ENDLESS) {
		fprintf(o, "inl_b:\t.byte 0, 16\n");
		for (i = 0; i < 4000; i++)
			fprintf(o, "\t.byte 2, 0\n");
		fprintf(o, "\t.byte 0\n");
	} else
		fprintf(o, "inl_b:\t.byte 0, 16, 2, 8, 2, 8, 3, 32, 0\n");
	fprintf(o, "\t.balign 8\nfunctab:\n");
	if (v == 116) {
		fprintf(o, "\t.quad fn_a, func_a - functab\n");
		if (bug == BUG_UNSORTED)
			fprintf(o, "\t.quad fn_c, func_c - functab\n"
			    "\t.quad fn_b, func_b - functab\n");
		else if (bug == BUG_FUNCOFF_PAST_END)
			fprintf(o, "\t.quad fn_b, 0x7ffffff0\n"
			    "\t.quad fn_c, func_c - functab\n");
		else if (huge)
			fprintf(o, "\t.quad fn_b, func_b - functab\n"
			    "\t.quad fn_b + %s, func_c - functab\n", huge);
		else
			fprintf(o, "\t.quad fn_b, func_b - functab\n"
			    "\t.quad fn_c, func_c - functab\n");
		fprintf(o, "\t.quad text_end%s, 0\n", huge ? " + 0x10000000" :
		    "");
	} else {
		fprintf(o, "\t.long fn_a - text_start, func_a - functab\n");
		if (bug == BUG_UNSORTED)
			fprintf(o, "\t.long fn_c - text_start, func_c - functab\n"
			    "\t.long fn_b - text_start, func_b - functab\n");
		else if (bug == BUG_FUNCOFF_PAST_END)
			fprintf(o, "\t.long fn_b - text_start, 0x7ffffff0\n"
			    "\t.long fn_c - text_start, func_c - functab\n");
		else if (huge)
			fprintf(o, "\t.long fn_b - text_start, "
			    "func_b - functab\n\t.long fn_b - text_start + %s, "
			    "func_c - functab\n", huge);
		else
			fprintf(o, "\t.long fn_b - text_start, func_b - functab\n"
			    "\t.long fn_c - text_start, func_c - functab\n");
		fprintf(o, "\t.long text_end - text_start%s, 0\n", huge ?
		    " + 0x10000000" : "");
	}
	gen_func(o, v, 'a', "n_alpha", 0, bug);
	gen_func(o, v, 'b', "n_beta", 1, bug);
	gen_func(o, v, 'c', "n_gamma", 0, bug);

	/* The inline tree of beta, in go:func.* (.rodata). */
	fprintf(o, "\t.section .rodata, \"a\"\n\t.balign 32\ngofunc:\n"
	    "\t.long 0, 0\ntree_b:\n");
	if (v == 120) {
		/* funcID, pad, nameOff, parentPc, startLine */
		fprintf(o, "\t.byte 0, 0, 0, 0\n\t.long n_inl1 - names, 8, 0\n");
		fprintf(o, "\t.byte 0, 0, 0, 0\n\t.long n_inl2 - names, %d, 0\n",
		    bug == BUG_PARENT_LOOP ? 24 : 16);
	} else {
		/* parent, funcID, pad, file, line, func_, parentPc */
		fprintf(o, "\t.short %d\n\t.byte 0, 0\n\t.long 0, 0, "
		    "n_inl1 - names, 8\n", bug == BUG_PARENT_LOOP ? 1 : -1);
		fprintf(o, "\t.short %d\n\t.byte 0, 0\n\t.long 0, 0, "
		    "n_inl2 - names, 16\n", bug == BUG_PARENT_LOOP ? 1 : 0);
	}

	/* moduledata: pcHeader, funcnametab, ..., text, ..., gofunc. */
	if (v != 116) {
		fprintf(o, "\t.section .noptrdata, \"aw\"\n\t.balign 32\n"
		    "\t.quad 0x1234\nmoduledata:\n");
		for (i = 0; i < gofunc_idx + 4; i++) {
			if (i == 0)
				fprintf(o, "\t.quad pcln\n");
			else if (i == 1)
				fprintf(o, "\t.quad names\n");
			else if (i == 22)
				fprintf(o, "\t.quad text_start\n");
			else if (i == gofunc_idx)
				fprintf(o, "\t.quad gofunc\n");
			else
				fprintf(o, "\t.quad 0\n");
		}
	}
	fclose(o);
	if (pic)
		return fx_sh("cc -nostdlib -shared -Wl,--build-id=none "
		    "-Wl,--unique=.data.rel.ro.gopclntab "
		    "-o '%s' '%s' 2>/dev/null", out, src);
	return fx_sh("cc -nostdlib -static -no-pie -Wl,--build-id=none "
	    "-o '%s' '%s' 2>/dev/null", out, src);
}

static int
addr_of(const char *file, const char *sym, uint64_t *a)
{
	struct fx_syms		 syms;
	const struct fx_sym	*s;

	if (fx_nm(fpath(file), 0, &syms) == -1 ||
	    (s = fx_find(&syms, sym)) == NULL)
		return -1;
	*a = s->addr;
	return 0;
}

static const char *
frames(struct resolve *r, const char *path, uint64_t a)
{
	static char	 buf[1024];
	const char	*names[16];
	size_t		 n, i, len = 0;

	buf[0] = '\0';
	n = resolve_file_frames(r, path, a, names, 16);
	for (i = 0; i < n && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
		    i > 0 ? ";" : "", names[i]);
	return buf;
}

/* The source lines at a, "file:line;..." as the frames, outermost first. */
static const char *
lines_of(const char *path, uint64_t a)
{
	static char		 buf[1024];
	struct elf_file		*ef;
	struct gopclntab	*g;
	const char		*files[GOPCLNTAB_DEPTH_MAX];
	int32_t			 lines[GOPCLNTAB_DEPTH_MAX];
	size_t			 n = 0, i, len = 0;
	int			 fd;

	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY)) == -1)
		return buf;
	if ((ef = elf_file_open(fd)) != NULL &&
	    (g = gopclntab_read(ef, 0, 0)) != NULL) {
		n = gopclntab_lines(g, a, files, lines, GOPCLNTAB_DEPTH_MAX);
		for (i = 0; i < n && len < sizeof(buf); i++)
			len += snprintf(buf + len, sizeof(buf) - len,
			    "%s%s:%d", i > 0 ? ";" : "", files[i] != NULL ?
			    files[i] : "?", (int)lines[i]);
		gopclntab_free(g);
	}
	elf_file_close(ef);
	close(fd);
	return buf;
}

static void
test_synthetic(int v, int pic)
{
	struct resolve	*r;
	char		 name[64], st[80];
	uint64_t	 a, b, c, end;

	snprintf(name, sizeof(name), "go%d%s", v, pic ? ".so" : "");
	snprintf(st, sizeof(st), "%s.stripped", name);
	if (gen(name, v, pic, BUG_NONE) == -1 ||
	    addr_of(name, "fn_a", &a) == -1 ||
	    addr_of(name, "fn_b", &b) == -1 ||
	    addr_of(name, "fn_c", &c) == -1 ||
	    addr_of(name, "text_end", &end) == -1 ||
	    fx_sh("strip -o '%s' '%s'", fpath(st), fpath(name)) == -1) {
		ok(0, "%s: built", name);
		return;
	}
	r = mkresolve();
	is_str(resolve_file(r, fpath(st), a), "fx.alpha", "%s: first byte",
	    name);
	is_str(resolve_file(r, fpath(st), a + 63), "fx.alpha",
	    "%s: last byte", name);
	is_str(resolve_file(r, fpath(st), b), "fx.beta", "%s: next function",
	    name);
	is_str(resolve_file(r, fpath(st), b + 15), "fx.beta",
	    "%s: before the inlined call", name);
	is_str(resolve_file(r, fpath(st), b + 16), "fx.(*T).inl1",
	    "%s: inlined code is named as Go names it", name);
	is_str(resolve_file(r, fpath(st), b + 24), "fx.inl2",
	    "%s: the innermost inlined function", name);
	is_str(resolve_file(r, fpath(st), b + 32), "fx.beta",
	    "%s: after the inlined call", name);
	is_str(frames(r, fpath(st), b + 20), "fx.beta;fx.(*T).inl1",
	    "%s: frames of an inlined call", name);
	is_str(frames(r, fpath(st), b + 31), "fx.beta;fx.(*T).inl1;fx.inl2",
	    "%s: frames of a call inlined in an inlined call", name);
	is_str(frames(r, fpath(st), b + 40), "fx.beta",
	    "%s: frames outside inlined code", name);
	is_str(resolve_file(r, fpath(st), c + 10), "fx.gamma",
	    "%s: last function", name);
	is_str(resolve_file(r, fpath(st), end), "[unknown]",
	    "%s: past the last function", name);
	is_str(resolve_file(r, fpath(st), a - 1), "[unknown]",
	    "%s: before the first function", name);
	is_str(lines_of(fpath(st), b + 3), "/src/fx/a.go:10",
	    "%s: a function's file and line", name);
	is_str(lines_of(fpath(st), b + 40), "/src/fx/a.go:11",
	    "%s: its next line", name);
	is_str(lines_of(fpath(st), b + 20), "/src/fx/a.go:10;"
	    "/src/fx/inl.go:20", "%s: an inlined call: the call's line, the "
	    "inlined function's", name);
	is_str(lines_of(fpath(st), b + 31), "/src/fx/a.go:10;"
	    "/src/fx/inl.go:20;/src/fx/inl.go:30", "%s: a call inlined in "
	    "an inlined call", name);
	is_str(lines_of(fpath(st), a + 3), "?:0", "%s: a function without "
	    "line tables", name);
	is_str(lines_of(fpath(st), end), "", "%s: past the last function: "
	    "none", name);
	resolve_free(r);
}

static double
cpu_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A line table made to be walked: beta claimed 256 MB long and its
 * lines a run of entries that never move the pc on.  count lookups at
 * beta + 28 in a child bounded by an alarm; what they cost and what
 * became of the table in *ms, *found (lookups that gave lines),
 * *refused (counted), *named (beta still named).
 */
static int
budget_run(const char *name, int count, double *ms, int *found,
    int *refused, int *named)
{
	struct elf_file		*ef = NULL;
	struct gopclntab	*g = NULL;
	const char		*files[GOPCLNTAB_DEPTH_MAX], *nm;
	int32_t			 lines[GOPCLNTAB_DEPTH_MAX];
	uint64_t		 b, before;
	double			 t0;
	int			 fd, i, p[2], r[4], status;
	pid_t			 pid;

	if (addr_of(name, "fn_b", &b) == -1 || pipe(p) == -1)
		return -1;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		alarm(60);
		close(p[0]);
		memset(r, 0, sizeof(r));
		if ((fd = open(fpath(name), O_RDONLY)) == -1 ||
		    (ef = elf_file_open(fd)) == NULL ||
		    (g = gopclntab_read(ef, 0, 0)) == NULL)
			_exit(1);
		before = symstats_refused(SYMSTATS_REFUSED_GO_LINES);
		t0 = cpu_ms();
		for (i = 0; i < count; i++)
			if (gopclntab_lines(g, b + 28, files, lines,
			    GOPCLNTAB_DEPTH_MAX) > 0)
				r[1]++;
		r[0] = cpu_ms() - t0;
		r[2] = symstats_refused(SYMSTATS_REFUSED_GO_LINES) - before;
		r[3] = (nm = gopclntab_lookup(g, b + 28)) != NULL &&
		    strcmp(nm, "fx.inl2") == 0;
		if (write(p[1], r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	i = read(p[0], r, sizeof(r));
	close(p[0]);
	if (pid == -1 || waitpid(pid, &status, 0) == -1 || i != sizeof(r) ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*ms = -1;
		return -1;
	}
	*ms = r[0];
	*found = r[1];
	*refused = r[2];
	*named = r[3];
	return 0;
}

/* Bounds on the work of line lookups: per lookup, per file a second. */
static void
test_line_budget(int v)
{
	char	 name[64];
	double	 ms;
	int	 found, refused, named;

	snprintf(name, sizeof(name), "long%d", v);
	if (gen(name, v, 0, BUG_LINES_LONG) == -1 ||
	    budget_run(name, 200, &ms, &found, &refused, &named) == -1)
		ok(0, "go %d: a line table too long a walk: answered", v);
	else {
		printf("# go %d, %d steps a lookup: 200 lookups in %.0f ms "
		    "of CPU, %d with lines\n", v, LINES_LONG_STEPS, ms,
		    found);
		ok(ms < 100, "go %d: 200 walks of 2M steps: under 100 ms", v);
		is_int(found, 0, "go %d: over a lookup's cap: no lines", v);
		is_int(refused, 1, "go %d: the table refused once, counted",
		    v);
		ok(named, "go %d: its names kept", v);
	}
	snprintf(name, sizeof(name), "slow%d", v);
	if (gen(name, v, 0, BUG_LINES_SLOW) == -1 ||
	    budget_run(name, 2000, &ms, &found, &refused, &named) == -1)
		ok(0, "go %d: a line table slow to walk: answered", v);
	else {
		printf("# go %d, %d steps a lookup: 2000 lookups in %.0f ms "
		    "of CPU, %d with lines\n", v, LINES_SLOW_STEPS, ms,
		    found);
		ok(found > 0 && found < 2000, "go %d: lines until the file's "
		    "budget is spent (%d)", v, found);
		is_int(refused, 1, "go %d: then refused, counted", v);
		ok(named, "go %d: its names kept", v);
	}
}

/* A damaged table: names where they are sound, never a crash. */
static void
test_hostile(int v)
{
	struct resolve	*r;
	const char	*got;
	char		 name[64];
	uint64_t	 a, b;
	int		 bug;

	for (bug = BUG_NONE + 1; bug < BUG_MAX; bug++) {
		snprintf(name, sizeof(name), "bad%d-%d", v, bug);
		if (gen(name, v, 0, bug) == -1 ||
		    addr_of(name, "fn_a", &a) == -1 ||
		    addr_of(name, "fn_b", &b) == -1 ||
		    fx_sh("strip '%s'", fpath(name)) == -1) {
			ok(0, "go %d, %s: built", v, bug_names[bug]);
			continue;
		}
		r = mkresolve();
		got = resolve_file(r, fpath(name), b + 28);
		switch (bug) {
		case BUG_NFUNC_HUGE:
		case BUG_NAMES_PAST_END:
		case BUG_OFFSETS_ORDER:
		case BUG_UNSORTED:
			is_str(got, "[unknown]", "go %d, %s: no table", v,
			    bug_names[bug]);
			break;
		case BUG_FUNCOFF_PAST_END:
			is_str(got, "[unknown]", "go %d, %s: that function "
			    "unnamed", v, bug_names[bug]);
			is_str(resolve_file(r, fpath(name), a + 1),
			    "fx.alpha", "go %d, %s: the others named", v,
			    bug_names[bug]);
			break;
		case BUG_NPCDATA_HUGE:
		case BUG_PCDATA_PAST_END:
		case BUG_TREE_PAST_END:
			is_str(got, "fx.beta", "go %d, %s: the function, "
			    "without inlined names", v, bug_names[bug]);
			break;
		case BUG_NAMEOFF:
			is_str(resolve_file(r, fpath(name), a + 1),
			    "[unknown]", "go %d, %s: that function unnamed", v,
			    bug_names[bug]);
			is_str(got, "fx.inl2", "go %d, %s: the others named", v,
			    bug_names[bug]);
			break;
		case BUG_PARENT_LOOP:
			is_str(frames(r, fpath(name), b + 28),
			    "fx.beta;fx.inl2", "go %d, %s: the chain ends", v,
			    bug_names[bug]);
			break;
		case BUG_PCTAB_ENDLESS:
			ok(got != NULL, "go %d, %s: answered (%s)", v,
			    bug_names[bug], got);
			break;
		case BUG_LINES_LONG:
		case BUG_LINES_SLOW:
			is_str(got, "fx.inl2", "go %d, %s: named", v,
			    bug_names[bug]);
			break;
		case BUG_NAME_UNTERMINATED:
			is_str(got, "fx.inl2", "go %d, %s: terminated by us", v,
			    bug_names[bug]);
			is_str(resolve_file(r, fpath(name), b + 16),
			    "fx.(*T).inl1", "go %d, %s: other names intact", v,
			    bug_names[bug]);
			break;
		}
		resolve_free(r);
	}
}

/* The file offset and size of a section, from readelf. */
static int
section_of(const char *path, const char *sec, long *off, long *size)
{
	char		 cmd[PATH_MAX + 128], line[512], name[128];
	unsigned long	 a, o, s;
	FILE		*f;
	int		 found = 0;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s' 2>/dev/null | "
	    "sed 's/^ *\\[ *[0-9]*\\]//'", path);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, " %127s %*s %lx %lx %lx", name, &a, &o,
		    &s) == 4 && strcmp(name, sec) == 0) {
			*off = o;
			*size = s;
			found = 1;
		}
	pclose(f);
	return found ? 0 : -1;
}

/*
 * The lines of a damaged table at addrs: as many as the frames, files
 * that are strings.  How many answers were wrong.
 */
static size_t
fuzz_lines(const char *buf, size_t len, const uint64_t *addrs, size_t naddrs)
{
	struct elf_file		*ef;
	struct gopclntab	*g;
	const char		*names[GOPCLNTAB_DEPTH_MAX];
	const char		*files[GOPCLNTAB_DEPTH_MAX];
	int32_t			 lines[GOPCLNTAB_DEPTH_MAX];
	size_t			 k, j, n, nl, nbad = 0;
	uint64_t		 a;

	if ((ef = elf_file_open_mem(buf, len)) == NULL)
		return 0;
	if ((g = gopclntab_read(ef, 0, 0)) != NULL) {
		for (k = 0; k < naddrs; k++)
			for (a = addrs[k]; a < addrs[k] + 64; a++) {
				n = gopclntab_frames(g, a, names,
				    GOPCLNTAB_DEPTH_MAX);
				nl = gopclntab_lines(g, a, files, lines,
				    GOPCLNTAB_DEPTH_MAX);
				if (nl != 0 && nl != n)
					nbad++;
				for (j = 0; j < nl; j++)
					if ((files[j] != NULL &&
					    strlen(files[j]) > len) ||
					    lines[j] < 0)
						nbad++;
			}
		gopclntab_free(g);
	}
	elf_file_close(ef);
	return nbad;
}

/* Random damage to a pclntab: every lookup answers. */
static void
test_fuzz(const char *file, const char *sec, const uint64_t *addrs,
    size_t naddrs, int rounds)
{
	struct resolve	*r;
	char		*img, *buf, name[64];
	size_t		 len, i, j, k, nbad = 0;
	long		 off, size;
	unsigned int	 seed = 11;

	if ((img = fx_read(fpath(file), &len)) == NULL ||
	    section_of(fpath(file), sec, &off, &size) == -1 || size < 16 ||
	    (size_t)(off + size) > len) {
		ok(0, "%s: %s found", file, sec);
		free(img);
		return;
	}
	buf = malloc(len);
	r = mkresolve();
	for (i = 0; i < (size_t)rounds; i++) {
		memcpy(buf, img, len);
		for (j = 0; j < 1 + i % 24; j++) {
			/* Mostly the header and the tables after it. */
			k = rand_r(&seed) % 4 == 0 ? rand_r(&seed) % size :
			    rand_r(&seed) % (size < 4096 ? size : 4096);
			buf[off + k] = rand_r(&seed);
		}
		snprintf(name, sizeof(name), "fuzz-%zu", i);
		fx_write(fpath(name), buf, len);
		for (k = 0; k < naddrs; k++)
			if (resolve_file(r, fpath(name), addrs[k]) == NULL)
				nbad++;
		nbad += fuzz_lines(buf, len, addrs, naddrs);
		unlink(fpath(name));
	}
	is_int(nbad, 0, "%s: %d randomly damaged pclntabs, every lookup "
	    "answers", file, rounds);
	resolve_free(r);
	free(buf);
	free(img);
}

static const char go_main[] =
    "package main\n"
    "\n"
    "import (\n"
    "\t\"bufio\"\n"
    "\t\"fmt\"\n"
    "\t\"os\"\n"
    "\t\"reflect\"\n"
    ")\n"
    "\n"
    "type T struct{ n int }\n"
    "\n"
    "//go:noinline\n"
    "func burnAlpha(n int) int {\n"
    "\ts := 0\n"
    "\tfor i := 0; i < n; i++ {\n"
    "\t\ts += i * 7\n"
    "\t}\n"
    "\treturn s\n"
    "}\n"
    "\n"
    "func helper(n int) int {\n"
    "\treturn n*3 + 1\n"
    "}\n"
    "\n"
    "//go:noinline\n"
    "func burnBeta(n int) int {\n"
    "\ts := 0\n"
    "\tfor i := 0; i < n; i++ {\n"
    "\t\ts += helper(i)\n"
    "\t}\n"
    "\treturn s\n"
    "}\n"
    "\n"
    "//go:noinline\n"
    "func (t *T) Method(n int) int {\n"
    "\treturn burnAlpha(n + t.n)\n"
    "}\n"
    "\n"
    "func main() {\n"
    "\tt := &T{1}\n"
    "\tfmt.Printf(\"main.burnAlpha %#x\\n\", "
    "reflect.ValueOf(burnAlpha).Pointer())\n"
    "\tfmt.Printf(\"main.burnBeta %#x\\n\", "
    "reflect.ValueOf(burnBeta).Pointer())\n"
    "\tfmt.Printf(\"ready\\n\")\n"
    "\tin := bufio.NewScanner(os.Stdin)\n"
    "\tfor in.Scan() {\n"
    "\t}\n"
    "\tos.Exit(burnAlpha(len(os.Args)) + burnBeta(len(os.Args)) + "
    "t.Method(0) - 1000000)\n"
    "}\n";

/* The line of go_main that starts with text. */
static int
go_line_of(const char *text)
{
	const char	*p, *q;
	int		 n = 1;

	if ((q = strstr(go_main, text)) == NULL)
		return -1;
	for (p = go_main; p < q; p++)
		if (*p == '\n')
			n++;
	return n;
}

/*
 * Source lines of gofull at every byte from each of addrs (n bytes):
 * the innermost function's file and line where go tool addr2line puts
 * them; where helper was inlined into burnBeta, burnBeta's line is that
 * of the call.
 */
static void
test_go_lines(const char *file, const uint64_t *addrs, size_t naddrs,
    size_t n)
{
	struct elf_file		*ef = NULL;
	struct gopclntab	*g = NULL;
	const char		*files[GOPCLNTAB_DEPTH_MAX];
	const char		*names[GOPCLNTAB_DEPTH_MAX];
	int32_t			 lines[GOPCLNTAB_DEPTH_MAX];
	char			 fn[512], where[512], want[600];
	size_t			 i, k, nl, nchecked = 0, nbad = 0, ncall = 0;
	size_t			 nbadcall = 0;
	FILE			*f;
	int			 fd, call = go_line_of("\t\ts += helper(i)");

	if ((f = fopen(fpath("lines.pcs"), "w")) == NULL)
		return;
	for (k = 0; k < naddrs; k++)
		for (i = 0; i < n; i++)
			fprintf(f, "%#llx\n", (unsigned long long)addrs[k] + i);
	fclose(f);
	if ((fd = open(fpath(file), O_RDONLY)) != -1 &&
	    (ef = elf_file_open(fd)) != NULL)
		g = gopclntab_read(ef, 0, 0);
	if (g == NULL || fx_sh("cd '%s' && go tool addr2line gofull "
	    "< lines.pcs > lines.out", dir) == -1 ||
	    (f = fopen(fpath("lines.out"), "r")) == NULL) {
		ok(0, "%s: pclntab read, go tool addr2line run", file);
		goto out;
	}
	for (k = 0; k < naddrs; k++)
		for (i = 0; i < n && fgets(fn, sizeof(fn), f) != NULL &&
		    fgets(where, sizeof(where), f) != NULL; i++) {
			where[strcspn(where, "\n")] = '\0';
			if (strcmp(where, "?:0") == 0)
				continue;
			nl = gopclntab_lines(g, addrs[k] + i, files, lines,
			    GOPCLNTAB_DEPTH_MAX);
			nchecked++;
			if (nl == 0) {
				nbad++;
				continue;
			}
			/* Padding: go tool addr2line says ":-1". */
			snprintf(want, sizeof(want), "%s:%d", files[nl - 1] !=
			    NULL ? files[nl - 1] : "", lines[nl - 1] > 0 ?
			    (int)lines[nl - 1] : -1);
			if (strcmp(want, where) != 0) {
				if (nbad++ < 3)
					printf("# %#llx: %s, go tool "
					    "addr2line: %s\n", (unsigned long
					    long)addrs[k] + i, want, where);
			}
			if (nl == 2 && gopclntab_frames(g, addrs[k] + i,
			    names, GOPCLNTAB_DEPTH_MAX) == 2 &&
			    strcmp(names[1], "main.helper") == 0) {
				ncall++;
				if (lines[0] != call || files[0] == NULL ||
				    strcmp(files[0], files[1]) != 0)
					nbadcall++;
			}
		}
	fclose(f);
	ok(nchecked >= naddrs * n / 2, "%s: %zu addresses checked against "
	    "go tool addr2line", file, nchecked);
	is_int(nbad, 0, "%s: file:line of the innermost function as go tool "
	    "addr2line says", file);
	ok(ncall > 0 && nbadcall == 0, "%s: %zu inlined addresses: the "
	    "caller's line is the call's (%d), %zu wrong", file, ncall, call,
	    nbadcall);
out:
	gopclntab_free(g);
	elf_file_close(ef);
	if (fd != -1)
		close(fd);
}

/*
 * A real Go program: names at the addresses go tool nm gives, inlined
 * code where go tool addr2line puts the inlined function's lines.
 */
static void
test_go(void)
{
	struct fx_proc		 p;
	struct fx_syms		 syms;
	const struct fx_sym	*s;
	struct resolve		*r;
	struct resolve_proc	*rp;
	char			 line[512], file[256];
	unsigned long long	 pc;
	uint64_t		 addrs[4], beta = 0, inl = 0, outer = 0;
	const char		*const names[] = { "main.burnAlpha",
	    "main.burnBeta", "main.(*T).Method", "main.main" };
	FILE			*f;
	size_t			 i, nin = 0, nout = 0, nbad = 0;
	int			 ln;

	if (fx_sh("go version >/dev/null 2>&1") == -1) {
		printf("ok %d # SKIP no Go toolchain\n", ++tap_n);
		return;
	}
	if (fx_write(fpath("main.go"), go_main, strlen(go_main)) == -1 ||
	    fx_sh("cd '%s' && export GOCACHE='%s/gocache' GOPATH='%s/gopath' "
	    "GOFLAGS=-mod=mod GO111MODULE=off GOTOOLCHAIN=local && "
	    "go build -o gofull main.go && "
	    "go build -ldflags='-s -w' -o gostripped main.go && "
	    "go build -buildmode=pie -ldflags='-s -w' -o gopie main.go && "
	    "strip -o gofull.stripped gofull && "
	    "go tool nm gofull > gofull.nm", dir, dir, dir) == -1) {
		ok(0, "go programs built");
		return;
	}
	r = mkresolve();
	/* go tool nm: "addr T name". */
	syms.n = 0;
	if ((f = fopen(fpath("gofull.nm"), "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL &&
		    syms.n < FX_MAX_SYMS)
			if (sscanf(line, "%llx T %255s", &pc,
			    syms.v[syms.n].name) == 2 &&
			    strncmp(syms.v[syms.n].name, "main.", 5) == 0)
				syms.v[syms.n++].addr = pc;
		fclose(f);
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if ((s = fx_find(&syms, names[i])) == NULL) {
			ok(0, "go tool nm has %s", names[i]);
			continue;
		}
		addrs[i] = s->addr;
		is_str(resolve_file(r, fpath("gofull.stripped"), s->addr + 1),
		    names[i], "stripped Go binary: %s", names[i]);
	}
	if ((s = fx_find(&syms, "main.burnBeta")) != NULL)
		beta = s->addr;

	/*
	 * Every byte of burnBeta: where go tool addr2line says the line
	 * is helper's (lines 21-23), the name is main.helper and the
	 * frames main.burnBeta;main.helper; elsewhere main.burnBeta.
	 */
	if (beta != 0 && (f = fopen(fpath("pcs"), "w")) != NULL) {
		for (i = 0; i < 96; i++)
			fprintf(f, "%#llx\n", (unsigned long long)beta + i);
		fclose(f);
	}
	if (beta != 0 && fx_sh("cd '%s' && go tool addr2line gofull < pcs "
	    "> pcs.out", dir) == 0 && (f = fopen(fpath("pcs.out"), "r")) !=
	    NULL) {
		for (i = 0; i < 96 && fgets(line, sizeof(line), f) != NULL &&
		    fgets(file, sizeof(file), f) != NULL; i++) {
			line[strcspn(line, "\n")] = '\0';
			if (strcmp(line, "main.burnBeta") != 0)
				break;
			ln = atoi(strrchr(file, ':') != NULL ?
			    strrchr(file, ':') + 1 : "0");
			if (ln >= 21 && ln <= 23) {
				nin++;
				inl = beta + i;
				if (strcmp(frames(r, fpath("gofull.stripped"),
				    beta + i), "main.burnBeta;main.helper") !=
				    0)
					nbad++;
			} else {
				nout++;
				outer = beta + i;
				if (strcmp(resolve_file(r,
				    fpath("gofull.stripped"), beta + i),
				    "main.burnBeta") != 0)
					nbad++;
			}
		}
		fclose(f);
	}
	ok(nin > 0 && nout > 0, "go tool addr2line: %zu bytes of inlined "
	    "helper, %zu of burnBeta", nin, nout);
	is_int(nbad, 0, "inlined helper named main.helper, the rest "
	    "main.burnBeta");
	if (inl != 0)
		is_str(resolve_file(r, fpath("gofull.stripped"), inl),
		    "main.helper", "inlined code: the innermost function, as "
		    "runtime.FuncForPC names it");

	/* -ldflags=-s -w and -buildmode=pie, running. */
	if (fx_proc_start(&p, fpath("gostripped")) == -1) {
		ok(0, "gostripped started");
	} else {
		rp = resolve_proc_open(r, p.pid);
		is_str(resolve_user(r, rp, fx_proc_addr(&p, "main.burnAlpha")),
		    "main.burnAlpha", "go build -ldflags='-s -w': running");
		is_str(resolve_user(r, rp, fx_proc_addr(&p, "main.burnBeta") +
		    2), "main.burnBeta", "go build -ldflags='-s -w': another");
		resolve_proc_close(r, rp);
		fx_proc_stop(&p);
	}
	if (fx_proc_start(&p, fpath("gopie")) == -1) {
		ok(0, "gopie started");
	} else {
		rp = resolve_proc_open(r, p.pid);
		is_str(resolve_user(r, rp, fx_proc_addr(&p, "main.burnAlpha")),
		    "main.burnAlpha", "go build -buildmode=pie: running");
		is_str(resolve_user(r, rp, fx_proc_addr(&p, "main.burnBeta") +
		    2), "main.burnBeta", "go build -buildmode=pie: another");
		resolve_proc_close(r, rp);
		fx_proc_stop(&p);
	}
	resolve_free(r);
	if ((s = fx_find(&syms, "main.main")) != NULL) {
		addrs[3] = s->addr;
		test_go_lines("gofull.stripped", addrs, 4, 160);
	}
	if (outer != 0 && inl != 0) {
		addrs[0] = outer;
		addrs[1] = inl;
		test_fuzz("gofull.stripped", ".gopclntab", addrs, 4, 100);
	}
}

int
main(void)
{
	uint64_t	 addrs[4];
	int		 v;

	signal(SIGPIPE, SIG_IGN);
	snprintf(dir, FX_DIR_MAX, "/tmp/ebpfspy-gopclntab.XXXXXX");
	if (mkdtemp(dir) == NULL ||
	    fx_sh("cc --version >/dev/null 2>&1") == -1) {
		printf("# SKIP no C compiler to build fixtures\n");
		return done_testing();
	}
	for (v = 116; v <= 120; v += 2) {
		if (v == 116) {
			test_synthetic(v, 0);
			continue;
		}
		test_synthetic(v, 0);
		test_synthetic(v, 1);
	}
	for (v = 116; v <= 120; v += 2)
		test_hostile(v);
	test_line_budget(116);
	test_line_budget(120);
	if (addr_of("go120", "fn_b", &addrs[0]) == 0) {
		addrs[1] = addrs[0] + 28;
		addrs[2] = addrs[0] - 64;
		addrs[3] = addrs[0] + 64;
		test_fuzz("go120", ".gopclntab", addrs, 4, 300);
		test_fuzz("go120", ".noptrdata", addrs, 4, 100);
		test_fuzz("go120", ".rodata", addrs, 4, 100);
	}
	if (addr_of("go118.so", "fn_b", &addrs[0]) == 0) {
		addrs[1] = addrs[0] + 28;
		test_fuzz("go118.so", ".data.rel.ro.gopclntab", addrs, 2, 200);
	}
	test_go();
	fx_clean(dir);
	return done_testing();
}
