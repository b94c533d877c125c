/*
 * Who shares a symbol table.  Processes chrooted into scratch roots map
 * files there: two different binaries that claim the same build id get
 * their own names (a build id is claimed, not proved), and one stripped
 * binary, the same inode in three roots, is named from the debug file of
 * each root, whichever root came first: a container's planted debug file
 * names nothing outside it, and its own is not shadowed by another's.
 * And a link out of a root is not followed to the host's file.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procmaps.h"
#include "config.h"
#include "sym/symcache.h"

#include "tap.h"
#include "symfix.h"

#define BUILD_ID	"0x1919b0b1d1d0000000000000000000000000beef"

static char	 dir[FX_DIR_MAX];

static const char real_c[] =
    "int __attribute__((noinline)) real_work(int x)\n"
    "{ volatile int s = 0; int i; for (i = 0; i < x; i++) s += i;"
    " return s; }\n"
    "int main(int argc, char **argv) { return real_work(argc); }\n";

static const char evil_c[] =
    "int __attribute__((noinline)) EVIL_A(int x)\n"
    "{ volatile int s = 1; int i; for (i = 0; i < x; i++) s *= 3;"
    " return s; }\n"
    "int __attribute__((noinline)) EVIL_MAIN(int x)\n"
    "{ return EVIL_A(x) + 1; }\n"
    "int main(int argc, char **argv) { return EVIL_MAIN(argc); }\n";

static char *
dpath(const char *rel)
{
	static char	 buf[4][FX_DIR_MAX + 128];
	static int	 i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, rel);
	return buf[i];
}

/* A child chrooted into dir/root, waiting to be killed. */
static pid_t
jail(const char *root)
{
	pid_t	 pid;
	int	 p[2];
	char	 c;

	if (pipe(p) == -1)
		return -1;
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (chroot(dpath(root)) == -1 || chdir("/") == -1)
			_exit(1);
		(void)write(p[1], "r", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid == -1 || read(p[0], &c, 1) != 1) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	return pid;
}

static void
unjail(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* The table of /path as the process pid, in root, maps it. */
static struct symcache_file *
get(struct symcache *c, pid_t pid, const char *root, const char *path)
{
	struct procmaps_entry	 me;
	struct stat		 sb;
	char			 host[FX_DIR_MAX + 128];

	snprintf(host, sizeof(host), "%s/%s%s", dir, root, path);
	if (stat(host, &sb) == -1)
		return NULL;
	memset(&me, 0, sizeof(me));
	me.start = 0x400000;
	me.end = 0x401000;
	me.inode = sb.st_ino;
	me.dev_major = major(sb.st_dev);
	me.dev_minor = minor(sb.st_dev);
	me.kind = PROCMAPS_FILE;
	me.path = path;
	return symcache_get(c, pid, &me);
}

static const char *
name_at(struct symcache *c, struct symcache_file *f, uint64_t vaddr)
{
	const char	*s;

	if (f == NULL)
		return "(no table)";
	return (s = symcache_symbol_vaddr(c, f, vaddr)) == NULL ? "(none)" :
	    s;
}

static uint64_t
addr_of(const char *file, const char *sym)
{
	static struct fx_syms	 syms;
	const struct fx_sym	*s;

	if (fx_nm(dpath(file), 0, &syms) == -1 ||
	    (s = fx_find(&syms, sym)) == NULL)
		return 0;
	return s->addr;
}

static int
build(void)
{
	char	 path[FX_DIR_MAX + 16];

	snprintf(dir, sizeof(dir), "/tmp/t-symcache.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/real.c", dir);
	if (fx_write(path, real_c, strlen(real_c)) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s/evil.c", dir);
	if (fx_write(path, evil_c, strlen(evil_c)) == -1)
		return -1;
	return fx_sh("cd %s && "
	    "cc -O1 -Wl,--build-id=%s -o real real.c && "
	    "cc -O1 -Wl,--build-id=%s -o evil evil.c && "
	    "strip -o real.stripped real && "
	    "objcopy --only-keep-debug real real.debug && "
	    "objcopy --only-keep-debug evil evil.debug && "
	    "for r in a b c; do mkdir -p root$r/usr/lib/debug/.build-id/19; "
	    "done && "
	    "cp real roota/app && cp evil rootb/app && "
	    "ln real.stripped roota/stripped && "
	    "ln real.stripped rootb/stripped && "
	    "ln real.stripped rootc/stripped && "
	    "cp real.debug roota/usr/lib/debug/.build-id/19/"
	    "19b0b1d1d0000000000000000000000000beef.debug && "
	    "cp evil.debug rootb/usr/lib/debug/.build-id/19/"
	    "19b0b1d1d0000000000000000000000000beef.debug",
	    dir, BUILD_ID, BUILD_ID);
}

/* Two files, one claimed build id: the container's goes first. */
static void
test_same_build_id(struct symcache *c, pid_t a, pid_t b)
{
	struct symcache_file	*fa, *fb;
	uint64_t		 real = addr_of("real", "real_work");
	uint64_t		 evil = addr_of("evil", "EVIL_MAIN");

	ok(real != 0 && evil != 0, "nm: real_work and EVIL_MAIN");
	fb = get(c, b, "rootb", "/app");
	is_str(name_at(c, fb, evil), "EVIL_MAIN",
	    "root b: its binary's own names");
	fa = get(c, a, "roota", "/app");
	ok(fa != fb, "root a: another file, another table");
	is_str(name_at(c, fa, real), "real_work",
	    "root a: its names, not those of b's binary of its build id");
	ok(strcmp(name_at(c, fa, evil), "EVIL_MAIN") != 0,
	    "root a: no EVIL_MAIN");
	symcache_put(c, fa);
	symcache_put(c, fb);
}

/* One stripped file in three roots, each with its own debug file. */
static void
test_debug_per_root(struct symcache *c, pid_t a, pid_t b, pid_t cc)
{
	struct symcache_file	*fa, *fb, *fc, *fa2;
	uint64_t		 real = addr_of("real", "real_work");
	uint64_t		 evil = addr_of("evil", "EVIL_MAIN");

	fb = get(c, b, "rootb", "/stripped");
	is_str(name_at(c, fb, evil), "EVIL_MAIN",
	    "root b: named from the debug file it planted");
	fa = get(c, a, "roota", "/stripped");
	is_str(name_at(c, fa, real), "real_work",
	    "root a: the same inode, named from its own debug file");
	ok(strcmp(name_at(c, fa, evil), "EVIL_MAIN") != 0,
	    "root a: none of b's planted names");
	fc = get(c, cc, "rootc", "/stripped");
	ok(strcmp(name_at(c, fc, evil), "EVIL_MAIN") != 0 &&
	    strcmp(name_at(c, fc, real), "real_work") != 0,
	    "root c, no debug file: neither a's nor b's names");
	fa2 = get(c, a, "roota", "/stripped");
	ok(fa2 == fa, "root a again: its table");
	symcache_put(c, fa2);
	symcache_put(c, fa);
	symcache_put(c, fb);
	symcache_put(c, fc);
}

/*
 * A link in the process's root to a host directory that holds the
 * mapped inode: the path through /proc/PID/root used to follow it to
 * the host (an absolute link is resolved against our root there) and
 * open the host's file; resolved inside the root, it names nothing, and
 * the mapping (not a real one here) cannot be opened by map_files.
 */
static void
test_link_out(struct symcache *c, pid_t b)
{
	struct procmaps_entry	 me;
	struct symcache_file	*f;
	struct stat		 sb;

	if (fx_sh("mkdir -p %s/hostonly && cp %s/real %s/hostonly/app && "
	    "ln -s %s/hostonly %s/rootb/escape", dir, dir, dir, dir,
	    dir) == -1 || stat(dpath("hostonly/app"), &sb) == -1) {
		ok(0, "a link out of root b");
		return;
	}
	memset(&me, 0, sizeof(me));
	me.start = 0x7f0000000000;
	me.end = 0x7f0000001000;
	me.inode = sb.st_ino;
	me.dev_major = major(sb.st_dev);
	me.dev_minor = minor(sb.st_dev);
	me.kind = PROCMAPS_FILE;
	me.path = "/escape/app";
	f = symcache_get(c, b, &me);
	ok(f != NULL && symcache_file_count(f) == 0,
	    "root b: /escape/app, a link to a host directory, is not "
	    "opened on the host (%zu symbols)",
	    f != NULL ? symcache_file_count(f) : 0);
	symcache_put(c, f);
}

int
main(void)
{
	struct config	*conf;
	struct symcache	*c;
	pid_t		 a, b, cc;

	if (geteuid() != 0) {
		diag("not root: no chroot");
		ok(1, "skipped: not root");
		return done_testing();
	}
	if (build() == -1) {
		printf("Bail out! cannot build the fixtures\n");
		return 1;
	}
	a = jail("roota");
	b = jail("rootb");
	cc = jail("rootc");
	ok(a > 0 && b > 0 && cc > 0, "three chrooted processes");
	conf = config_defaults();
	c = symcache_create(conf);
	test_same_build_id(c, a, b);
	test_debug_per_root(c, a, b, cc);
	test_link_out(c, b);
	symcache_free(c);
	config_free(conf);
	unjail(a);
	unjail(b);
	unjail(cc);
	fx_clean(dir);
	return done_testing();
}
