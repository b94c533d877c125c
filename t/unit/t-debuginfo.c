/*
 * Separate debug information: debug files by build id in a debug
 * directory, by .gnu_debuglink beside the file, in .debug/ and under a
 * debug directory, their checks (CRC, build id), a chain of links and a
 * loop of them, MiniDebugInfo (.gnu_debugdata) and its damage, debug
 * files only a process in its own mount namespace can see, and
 * debug_dirs.  Fixtures are made with objcopy, strip and xz; a static
 * function (only in .symtab) tells whether a debug file was read.
 */
#include <sys/types.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "elf/debuginfo.h"
#include "sym/resolve.h"
#include "config.h"
#include "sym/symcache.h"
#include "sym/symfile.h"

#include "tap.h"
#include "symfix.h"

static char	dir[FX_DIR_MAX];
static uint64_t	a_static, a_alpha, a_lib_static, a_lib_work;
static char	bid[128];

static const char *
fpath(const char *name)
{
	static char	 buf[4][FX_DIR_MAX + 128];
	static int	 i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static struct config *
mkconf(const char *dirs)
{
	struct config	*conf;

	conf = config_defaults();
	conf->unknown_symbol_module_offset = 0;
	free(conf->debug_dirs);
	conf->debug_dirs = strdup(dirs);
	return conf;
}

static struct resolve *
mkresolve(const char *dirs)
{
	struct config	*conf;
	struct resolve	*r;

	conf = mkconf(dirs);
	r = resolve_create(conf);
	config_free(conf);
	return r;
}

/* The name of addr in file with debug_dirs dirs, from a new resolver. */
static const char *
name_in(const char *file, uint64_t addr, const char *dirs)
{
	static char	 buf[256];
	struct resolve	*r;

	r = mkresolve(dirs);
	snprintf(buf, sizeof(buf), "%s", resolve_file(r, file, addr));
	resolve_free(r);
	return buf;
}

/* Where the names of file came from: SYMFILE_* bits. */
static unsigned int
sources_of(const char *file, const char *dirs)
{
	struct config		*conf;
	struct symcache		*c;
	struct symcache_file	*f;
	unsigned int		 s;

	conf = mkconf(dirs);
	c = symcache_create(conf);
	f = symcache_get_path(c, file);
	s = symcache_file_sources(f);
	symcache_put(c, f);
	symcache_free(c);
	config_free(conf);
	return s;
}

/*
 * Append 4 bytes to path so that its CRC-32 becomes crc: how a hostile
 * debug file matches any .gnu_debuglink.
 */
static int
crc_forge(const char *path, uint32_t want)
{
	uint32_t	 table[256], reg, c;
	unsigned char	 idx[4], patch[4], *buf;
	size_t		 len;
	int		 i, j, k;
	FILE		*f;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
	/* Backwards from the register we want: the table index of each byte. */
	reg = ~want;
	for (i = 3; i >= 0; i--) {
		for (k = 0; k < 256; k++)
			if ((table[k] >> 24) == (reg >> 24))
				break;
		idx[i] = k;
		reg = (reg ^ table[k]) << 8;
	}
	if ((buf = (unsigned char *)fx_read(path, &len)) == NULL)
		return -1;
	reg = ~(uint32_t)crc32(0L, buf, len);
	free(buf);
	for (i = 0; i < 4; i++) {
		patch[i] = (reg ^ idx[i]) & 0xff;
		reg = (reg >> 8) ^ table[idx[i]];
	}
	if ((f = fopen(path, "a")) == NULL)
		return -1;
	fwrite(patch, 1, 4, f);
	return fclose(f);
}

static uint32_t
crc_of(const char *path)
{
	unsigned char	*buf;
	size_t		 len;
	uint32_t	 crc;

	if ((buf = (unsigned char *)fx_read(path, &len)) == NULL)
		return 0;
	crc = crc32(0L, buf, len);
	free(buf);
	return crc;
}

static void
test_build_id(void)
{
	char	 dirs[3 * FX_DIR_MAX + 64];

	if (fx_sh("cd '%s' && objcopy --only-keep-debug pie pie.debug && "
	    "mkdir -p dbg/.build-id/%.2s other && "
	    "cp pie.debug dbg/.build-id/%.2s/%s.debug", dir, bid, bid,
	    bid + 2) == -1) {
		ok(0, "build-id tree");
		return;
	}
	is_str(name_in(fpath("pie.stripped"), a_static, fpath("other")),
	    "[unknown]", "stripped, no debug file: no name");
	is_str(name_in(fpath("pie.stripped"), a_static, fpath("dbg")),
	    "fx_static", "by build id: a static function");
	is_str(name_in(fpath("pie.stripped"), a_alpha, fpath("dbg")),
	    "fx_alpha", "by build id: a global function");
	snprintf(dirs, sizeof(dirs), "/nonexistent::%s:%s", fpath("other"),
	    fpath("dbg"));
	is_str(name_in(fpath("pie.stripped"), a_static, dirs), "fx_static",
	    "by build id: the third of three directories");
	is_int(sources_of(fpath("pie.stripped"), fpath("dbg")),
	    SYMFILE_BUILD_ID, "sources: build id");

	/* The debug file of another build at that path: refused. */
	if (fx_sh("cd '%s' && mkdir -p bad/.build-id/%.2s && "
	    "objcopy --only-keep-debug nopie "
	    "bad/.build-id/%.2s/%s.debug", dir, bid, bid, bid + 2) == 0)
		is_str(name_in(fpath("pie.stripped"), a_static, fpath("bad")),
		    "[unknown]", "by build id: another build id refused");
	/* A FIFO and a directory there: no hang, no name. */
	if (fx_sh("cd '%s' && mkdir -p fifo/.build-id/%.2s dirs/.build-id/"
	    "%.2s/%s.debug && mkfifo fifo/.build-id/%.2s/%s.debug", dir, bid,
	    bid, bid + 2, bid, bid + 2) == 0) {
		is_str(name_in(fpath("pie.stripped"), a_static, fpath("fifo")),
		    "[unknown]", "by build id: a FIFO, no hang");
		is_str(name_in(fpath("pie.stripped"), a_static, fpath("dirs")),
		    "[unknown]", "by build id: a directory");
	}
}

static void
test_debuglink(void)
{
	char	 sub[FX_DIR_MAX + 64];

	/* Beside the file, in .debug/, and under a debug directory. */
	if (fx_sh("cd '%s' && mkdir -p l1 l2/.debug l3 d3%s/l3 && "
	    "objcopy --add-gnu-debuglink=pie.debug pie.stripped l1/pie && "
	    "cp pie.debug l1/ && "
	    "objcopy --add-gnu-debuglink=pie.debug pie.stripped l2/pie && "
	    "cp pie.debug l2/.debug/ && "
	    "objcopy --add-gnu-debuglink=pie.debug pie.stripped l3/pie && "
	    "cp pie.debug d3%s/l3/", dir, dir, dir) == -1) {
		ok(0, "debuglink fixtures");
		return;
	}
	is_str(name_in(fpath("l1/pie"), a_static, ""), "fx_static",
	    "debuglink: beside the file");
	is_int(sources_of(fpath("l1/pie"), ""), SYMFILE_DEBUGLINK,
	    "sources: debuglink");
	is_str(name_in(fpath("l2/pie"), a_static, ""), "fx_static",
	    "debuglink: in .debug/");
	snprintf(sub, sizeof(sub), "%s/d3", dir);
	is_str(name_in(fpath("l3/pie"), a_static, sub), "fx_static",
	    "debuglink: under a debug directory");
	is_str(name_in(fpath("l3/pie"), a_static, ""), "[unknown]",
	    "debuglink: not there without that directory");

	/* A debug file changed since the link was made: its CRC differs. */
	if (fx_sh("cd '%s' && mkdir -p crc && "
	    "objcopy --add-gnu-debuglink=pie.debug pie.stripped crc/pie && "
	    "cp pie.debug crc/ && echo >> crc/pie.debug", dir) == 0)
		is_str(name_in(fpath("crc/pie"), a_static, ""), "[unknown]",
		    "debuglink: a wrong CRC refused");
	/* The right CRC, but another build's debug file. */
	if (fx_sh("cd '%s' && mkdir -p bid && "
	    "objcopy --only-keep-debug nopie bid/pie.debug && "
	    "objcopy --add-gnu-debuglink=bid/pie.debug pie.stripped bid/pie",
	    dir) == 0)
		is_str(name_in(fpath("bid/pie"), a_static, ""), "[unknown]",
		    "debuglink: the right CRC, another build id refused");
	/* A link to a stripped file that links to the debug file. */
	if (fx_sh("cd '%s' && mkdir -p chain && cp pie.debug chain/ && "
	    "objcopy --add-gnu-debuglink=chain/pie.debug pie.stripped "
	    "chain/mid && objcopy --add-gnu-debuglink=chain/mid "
	    "pie.stripped chain/pie", dir) == 0)
		is_str(name_in(fpath("chain/pie"), a_static, ""), "fx_static",
		    "debuglink: a chain of two links");
}

/*
 * a links to b and b to a, both stripped, with the same build id: b's
 * CRC forged to what a's link says.  The lookup ends, without a name.
 */
static void
test_loop(void)
{
	uint32_t	 crc;

	if (fx_sh("cd '%s' && mkdir -p loop && cp pie.stripped loop/b && "
	    "objcopy --add-gnu-debuglink=loop/b pie.stripped loop/a && "
	    "objcopy --add-gnu-debuglink=loop/a pie.stripped loop/b.new && "
	    "mv loop/b.new loop/b && "
	    "objcopy --dump-section .gnu_debuglink=loop/a.link loop/a",
	    dir) == -1) {
		ok(0, "loop fixtures");
		return;
	}
	{
		char	*link;
		size_t	 len;

		if ((link = fx_read(fpath("loop/a.link"), &len)) == NULL ||
		    len < 8) {
			ok(0, "a's debuglink");
			free(link);
			return;
		}
		memcpy(&crc, link + len - 4, 4);
		free(link);
	}
	if (crc_forge(fpath("loop/b"), crc) == -1 ||
	    crc_of(fpath("loop/b")) != crc) {
		ok(0, "CRC forged");
		return;
	}
	ok(1, "b's CRC forged to a's link: a -> b -> a");
	is_str(name_in(fpath("loop/a"), a_static, fpath("loop")), "[unknown]",
	    "a loop of debug links ends, without a name");
	/* A link to itself. */
	if (fx_sh("cd '%s' && cp pie.stripped loop/self && "
	    "objcopy --add-gnu-debuglink=loop/self pie.stripped loop/self2 "
	    "&& mv loop/self2 loop/self", dir) == 0 &&
	    crc_forge(fpath("loop/self"), crc_of(fpath("pie.stripped"))) == 0)
		is_str(name_in(fpath("loop/self"), a_static, ""), "[unknown]",
		    "a link to the file itself ends");
}

/* Damaged .gnu_debuglink sections. */
static void
test_bad_link(void)
{
	static const struct {
		const char	*name;
		const char	*bytes;
		size_t		 len;
	} t[] = {
		{ "no NUL", "pie.debugpie.debugpie.debug", 27 },
		{ "a path", "../l1/pie.debug\0\0\0\0\0\0\0\0", 24 },
		{ "too short", "p\0\0", 3 },
		{ "dot dot", "..\0\0\0\0\0\0", 8 },
	};
	char	 file[64];
	size_t	 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(file, sizeof(file), "badlink%zu", i);
		if (fx_write(fpath("link.bin"), t[i].bytes, t[i].len) == -1 ||
		    fx_sh("cd '%s' && objcopy --add-section "
		    ".gnu_debuglink=link.bin pie.stripped %s", dir,
		    file) == -1) {
			ok(0, "%s: built", t[i].name);
			continue;
		}
		is_str(name_in(fpath(file), a_static, ""), "[unknown]",
		    "a .gnu_debuglink with %s: ignored", t[i].name);
	}
}

static void
test_mini(void)
{
	if (fx_sh("cd '%s' && "
	    "nm pie --defined-only | awk '$2 ~ /[tT]/ { print $3 }' > funcs "
	    "&& objcopy --only-keep-debug pie mini.full && "
	    "objcopy -S --keep-symbols=funcs mini.full mini && "
	    "xz -kf mini && "
	    "objcopy --add-section .gnu_debugdata=mini.xz pie.stripped "
	    "pie.mini && "
	    "nm libfx.so --defined-only | awk '$2 == \"t\" { print $3 }' > "
	    "lfuncs && objcopy --only-keep-debug libfx.so lmini.full && "
	    "objcopy -S --keep-symbols=lfuncs lmini.full lmini && "
	    "xz -kf lmini && "
	    "objcopy --add-section .gnu_debugdata=lmini.xz libfx.stripped.so "
	    "libfx.mini.so", dir) == -1) {
		ok(0, "MiniDebugInfo fixtures (objcopy, xz)");
		return;
	}
	is_str(name_in(fpath("pie.mini"), a_static, ""), "fx_static",
	    "MiniDebugInfo: a static function");
	is_int(sources_of(fpath("pie.mini"), ""), SYMFILE_MINIDEBUG,
	    "sources: MiniDebugInfo");
	is_str(name_in(fpath("libfx.mini.so"), a_lib_static, ""),
	    "fxlib_static", "MiniDebugInfo of a library: a static function");
	is_str(name_in(fpath("libfx.mini.so"), a_lib_work, ""), "fxlib_work",
	    "merged with .dynsym: an exported function");
	is_int(sources_of(fpath("libfx.mini.so"), ""),
	    SYMFILE_MINIDEBUG | SYMFILE_DYNSYM, "sources: both");
	/* A debug file by build id is preferred. */
	if (fx_sh("cd '%s' && cp pie.mini dbg/", dir) == 0)
		is_int(sources_of(fpath("dbg/pie.mini"), fpath("dbg")),
		    SYMFILE_BUILD_ID, "a debug file first, MiniDebugInfo next");

	/* Damaged: cut, garbage, or a bomb; no name, no crash. */
	if (fx_sh("cd '%s' && head -c $(($(stat -c %%s mini.xz) / 2)) "
	    "mini.xz > cut.xz && objcopy --add-section "
	    ".gnu_debugdata=cut.xz pie.stripped pie.cut && "
	    "head -c 4096 /dev/urandom > junk.xz && objcopy --add-section "
	    ".gnu_debugdata=junk.xz pie.stripped pie.junk && "
	    "head -c 300000000 /dev/zero | xz -1 > bomb.xz && objcopy "
	    "--add-section .gnu_debugdata=bomb.xz pie.stripped pie.bomb && "
	    "xz -kf funcs && objcopy --add-section .gnu_debugdata=funcs.xz "
	    "pie.stripped pie.notelf", dir) == -1) {
		ok(0, "damaged MiniDebugInfo built");
		return;
	}
	is_str(name_in(fpath("pie.cut"), a_static, ""), "[unknown]",
	    "MiniDebugInfo cut in half: no name");
	is_str(name_in(fpath("pie.junk"), a_static, ""), "[unknown]",
	    "MiniDebugInfo of random bytes: no name");
	is_str(name_in(fpath("pie.bomb"), a_static, ""), "[unknown]",
	    "MiniDebugInfo of 300 MB: refused");
	is_str(name_in(fpath("pie.notelf"), a_static, ""), "[unknown]",
	    "MiniDebugInfo that is no ELF file: no name");
}

/*
 * A process in its own mount namespace, whose debug directory (a tmpfs
 * mounted there) holds the debug file; on the host the directory is
 * empty.
 */
static void
test_namespace(void)
{
	struct resolve		*r;
	struct resolve_proc	*rp;
	struct fx_proc		 p;
	char			 ns[FX_DIR_MAX + 16], line[64];
	int			 in[2], out[2], status;
	pid_t			 pid;
	FILE			*o;

	snprintf(ns, sizeof(ns), "%s/nsdbg", dir);
	if (geteuid() != 0 || mkdir(ns, 0755) == -1 || pipe(in) == -1 ||
	    pipe(out) == -1) {
		printf("ok %d # SKIP not root\n", ++tap_n);
		return;
	}
	if ((pid = fork()) == -1)
		return;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		if (unshare(CLONE_NEWNS) == -1 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
		    mount("tmpfs", ns, "tmpfs", 0, NULL) == -1 ||
		    fx_sh("mkdir -p '%s/.build-id/%.2s' && cp '%s/pie.debug' "
		    "'%s/.build-id/%.2s/%s.debug'", ns, bid, dir, ns, bid,
		    bid + 2) == -1) {
			dprintf(1, "skip\n");
			_exit(0);
		}
		execl(fpath("pie.stripped"), "pie.stripped", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	memset(&p, 0, sizeof(p));
	p.pid = pid;
	p.in = fdopen(in[1], "w");
	p.out = o = fdopen(out[0], "r");
	if (fgets(line, sizeof(line), o) == NULL ||
	    strcmp(line, "skip\n") == 0) {
		printf("ok %d # SKIP no mount namespaces\n", ++tap_n);
		fx_proc_stop(&p);
		return;
	}
	/* The fixture's first line was read: read the rest. */
	if (fx_proc_read(&p) == -1) {
		ok(0, "pie.stripped in its namespace");
		fx_proc_stop(&p);
		return;
	}
	r = mkresolve(ns);
	rp = resolve_proc_open(r, pid);
	is_str(resolve_user(r, rp, fx_proc_addr(&p, "fx_static")),
	    "fx_static", "a debug file only the process's namespace has");
	resolve_proc_close(r, rp);
	resolve_free(r);
	is_str(name_in(fpath("pie.stripped"), a_static, ns), "[unknown]",
	    "the host's directory is empty");
	fx_proc_stop(&p);
	waitpid(pid, &status, WNOHANG);
}

static void
test_dirs_check(void)
{
	ok(debuginfo_dirs_check("") == NULL, "debug_dirs: empty");
	ok(debuginfo_dirs_check("/usr/lib/debug") == NULL,
	    "debug_dirs: one");
	ok(debuginfo_dirs_check("/a:/b::/c:") == NULL,
	    "debug_dirs: several, empty ones skipped");
	ok(debuginfo_dirs_check("usr/lib/debug") != NULL,
	    "debug_dirs: relative refused");
	ok(debuginfo_dirs_check("/a:b") != NULL,
	    "debug_dirs: a relative second refused");
}

int
main(void)
{
	struct fx_syms		 syms;
	const struct fx_sym	*s;

	signal(SIGPIPE, SIG_IGN);
	test_dirs_check();
	if (fx_build(dir) == -1 || fx_sh("xz --version >/dev/null && "
	    "objcopy --version >/dev/null") == -1) {
		printf("# SKIP no C compiler, binutils or xz for fixtures\n");
		return done_testing();
	}
	if (fx_nm(fpath("pie"), 0, &syms) == -1 ||
	    (s = fx_find(&syms, "fx_static")) == NULL ||
	    (a_static = s->addr + 1, s = fx_find(&syms, "fx_alpha")) == NULL ||
	    fx_build_id(fpath("pie"), bid, sizeof(bid)) == -1) {
		ok(0, "fixtures");
		return done_testing();
	}
	a_alpha = s->addr + 1;
	if (fx_nm(fpath("libfx.so"), 0, &syms) == -1 ||
	    (s = fx_find(&syms, "fxlib_static")) == NULL ||
	    (a_lib_static = s->addr + 1,
	    s = fx_find(&syms, "fxlib_work")) == NULL) {
		ok(0, "library fixtures");
		return done_testing();
	}
	a_lib_work = s->addr + 1;
	test_build_id();
	test_debuglink();
	test_loop();
	test_bad_link();
	test_mini();
	test_namespace();
	fx_clean(dir);
	return done_testing();
}
