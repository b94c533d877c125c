/*
 * Files named by a process, opened inside its root: a fake root in a
 * scratch directory, with links that try to leave it (absolute, and
 * "../.." past its top), link loops, a FIFO and a device node.  Both
 * ways are checked, openat2(RESOLVE_IN_ROOT) and the walk one component
 * at a time that stands in for it, and a chrooted child's root through
 * /proc/PID/root.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc_root.h"
#include "util/xmalloc.h"

#include "tap.h"

static char	 tmpdir[] = "/tmp/t-proc_root.XXXXXX";
static int	 rootfd;

static void
spit(const char *rel, const char *text)
{
	char	*p;
	FILE	*f;

	xasprintf(&p, "%s/%s", tmpdir, rel);
	if ((f = fopen(p, "w")) == NULL) {
		printf("Bail out! %s: %s\n", p, strerror(errno));
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	free(p);
}

static void
mk(const char *rel, const char *link)
{
	char	*p;
	int	 rv;

	xasprintf(&p, "%s/%s", tmpdir, rel);
	rv = link != NULL ? symlink(link, p) : mkdir(p, 0755);
	if (rv == -1) {
		printf("Bail out! %s: %s\n", p, strerror(errno));
		exit(1);
	}
	free(p);
}

/* The first line of an open file, or "" (and the descriptor closed). */
static const char *
first_line(int fd)
{
	static char	 buf[64];
	ssize_t		 n;

	buf[0] = '\0';
	if (fd == -1)
		return "";
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	close(fd);
	return buf;
}

/* What the walk finds at path, read; "" and errno if nothing. */
static const char *
walk_read(const char *path)
{
	char	 self[64];
	int	 pfd, fd, saved;

	if ((pfd = proc_root_walk(rootfd, path)) == -1)
		return "";
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC);
	saved = errno;
	close(pfd);
	errno = saved;
	return first_line(fd);
}

static const char *
open_read(const char *path)
{
	struct stat	 sb;

	return first_line(proc_root_open_at(rootfd, path, &sb));
}

/*
 * root/			the fake root
 *   bin/app			"app"
 *   lib -> /bin		absolute, inside
 *   outside/secret		"root's secret"
 *   esc -> TMP/outside/secret	absolute, to the host's file
 *   up -> ../../../../outside/secret	past the top, then down
 *   dir/sub/deep -> ../../..	the root, by ".."
 *   dir/hop -> /dir/sub/deep	a link to a link
 *   loop -> loop2, loop2 -> loop
 *   file/x			a file as a directory
 * outside/secret		"host's secret"
 */
static void
build(void)
{
	char	*p, *root;

	mk("root", NULL);
	mk("root/bin", NULL);
	mk("root/outside", NULL);
	mk("root/dir", NULL);
	mk("root/dir/sub", NULL);
	mk("outside", NULL);
	spit("root/bin/app", "app\n");
	spit("root/outside/secret", "root's secret\n");
	spit("outside/secret", "host's secret\n");
	spit("root/file", "a file\n");
	mk("root/lib", "/bin");
	xasprintf(&p, "%s/outside/secret", tmpdir);
	mk("root/esc", p);
	free(p);
	mk("root/up", "../../../../outside/secret");
	mk("root/dir/sub/deep", "../../..");
	mk("root/dir/hop", "/dir/sub/deep");
	mk("root/loop", "loop2");
	mk("root/loop2", "loop");
	xasprintf(&root, "%s/root", tmpdir);
	if ((rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		printf("Bail out! %s: %s\n", root, strerror(errno));
		exit(1);
	}
	free(root);
}

static void
test_paths(void)
{
	static const struct {
		const char	*path;
		const char	*want;
		int		 err;
		const char	*what;
	} cases[] = {
		{ "/bin/app", "app", 0, "a plain path" },
		{ "bin//./app", "app", 0, "relative, with // and ." },
		{ "/lib/app", "app", 0, "an absolute link is taken from "
		    "the root" },
		{ "/../../../bin/app", "app", 0, ".. stops at the root" },
		{ "/esc", "", ENOENT, "an absolute link to a host file "
		    "names a file inside the root" },
		{ "/up", "root's secret", 0, "../.. past the top stays "
		    "inside" },
		{ "/dir/sub/deep/outside/secret", "root's secret", 0,
		    "a link of .. up to the root" },
		{ "/dir/hop/../../outside/secret", "root's secret", 0,
		    "links to links, then .. past the top" },
		{ "/loop", "", ELOOP, "a link loop ends" },
		{ "/file/x", "", ENOTDIR, "a file is no directory" },
		{ "/nothing", "", ENOENT, "a missing file" },
	};
	const char	*(*way[2])(const char *) = { walk_read, open_read };
	const char	*wayname[2] = { "walk", "open" };
	const char	*got;
	size_t		 i, w;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (w = 0; w < 2; w++) {
			errno = 0;
			got = way[w](cases[i].path);
			if (cases[i].err == 0)
				is_str(got, cases[i].want, "%s: %s: %s",
				    wayname[w], cases[i].what, cases[i].path);
			else
				ok(*got == '\0' && errno == cases[i].err,
				    "%s: %s: %s (%s)", wayname[w],
				    cases[i].what, cases[i].path,
				    strerror(errno));
		}
}

/* Long chains: bounded, not a stack overflow or an fd leak. */
static void
test_bounds(void)
{
	char	 name[32], link[32], path[PATH_MAX];
	int	 i, fd, before, after;

	for (i = 0; i < PROC_ROOT_LINKS_MAX + 5; i++) {
		snprintf(name, sizeof(name), "root/c%d", i);
		snprintf(link, sizeof(link), "c%d", i + 1);
		mk(name, link);
	}
	spit("root/c45", "end of the chain\n");
	errno = 0;
	ok(proc_root_walk(rootfd, "/c0") == -1 && errno == ELOOP,
	    "walk: more than %d links: ELOOP", PROC_ROOT_LINKS_MAX);
	is_str(walk_read("/c10"), "end of the chain",
	    "walk: a chain of 35 links is followed");

	snprintf(path, sizeof(path), "root");
	for (i = 0; i < PROC_ROOT_DEPTH_MAX + 2; i++) {
		strcat(path, "/n");
		mk(path, NULL);
	}
	before = dup(0);
	close(before);
	errno = 0;
	fd = proc_root_walk(rootfd, path + strlen("root"));
	ok(fd == -1 && errno == ENAMETOOLONG, "walk: %d directories deep: "
	    "ENAMETOOLONG", PROC_ROOT_DEPTH_MAX + 2);
	after = dup(0);
	close(after);
	is_int(after, before, "walk: no descriptor left open");
	fd = proc_root_walk(rootfd, "/dir/sub/..");
	ok(fd != -1, "walk: a path ending in .. is a directory");
	if (fd != -1)
		close(fd);
}

/* A FIFO or a device at the path is looked at, never opened. */
static void
test_special(void)
{
	struct stat	 sb;
	char		*p;
	int		 fd;

	xasprintf(&p, "%s/root/fifo", tmpdir);
	ok(mkfifo(p, 0600) == 0, "planted a FIFO");
	free(p);
	errno = 0;
	fd = proc_root_open_at(rootfd, "/fifo", &sb);
	ok(fd == -1 && errno == EINVAL, "a FIFO is refused, not opened");
	xasprintf(&p, "%s/root/tty", tmpdir);
	ok(mknod(p, S_IFCHR | 0600, makedev(5, 0)) == 0,
	    "planted a device node (/dev/tty)");
	free(p);
	errno = 0;
	fd = proc_root_open_at(rootfd, "/tty", &sb);
	ok(fd == -1 && errno == EINVAL, "a device is refused, not opened");
	fd = proc_root_open_at(rootfd, "/bin/app", &sb);
	ok(fd != -1 && S_ISREG(sb.st_mode) && sb.st_size == 4,
	    "a regular file: opened, with its stat");
	if (fd != -1)
		close(fd);
}

/* A process chrooted into the fake root: its paths are resolved there. */
static void
test_process(void)
{
	struct stat	 sb;
	char		*root;
	pid_t		 pid;
	int		 ready[2];
	char		 c;

	xasprintf(&root, "%s/root", tmpdir);
	if (pipe(ready) == -1) {
		ok(0, "pipe: %s", strerror(errno));
		return;
	}
	if ((pid = fork()) == 0) {
		close(ready[0]);
		if (chroot(root) == -1 || chdir("/") == -1)
			_exit(1);
		(void)write(ready[1], "r", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		ok(0, "chroot %s", root);
		goto out;
	}
	is_str(first_line(proc_root_open(pid, "/up", &sb)), "root's secret",
	    "pid %d: ../.. stays inside its root", (int)pid);
	errno = 0;
	ok(proc_root_open(pid, "/esc", &sb) == -1 && errno == ENOENT,
	    "pid %d: a link to a host path is not followed out", (int)pid);
	/* Ours (pid 0): our paths, relative ones from where we are. */
	if (chdir(tmpdir) == 0)
		is_str(first_line(proc_root_open(0, "root/dir/../bin/app",
		    &sb)), "app", "pid 0: a relative path of ours");
	else
		ok(0, "chdir %s", tmpdir);
	errno = 0;
	ok(proc_root_open(0, "root/fifo", &sb) == -1 && errno == EINVAL,
	    "pid 0: a FIFO is refused too");
out:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ready[0]);
	free(root);
}

static void
test_mem(void)
{
	static const char	 here[] = "read from our own memory";
	char			 buf[sizeof(here)];

	ok(proc_root_read_mem(getpid(), (uintptr_t)here, buf,
	    sizeof(buf)) == 0 && memcmp(buf, here, sizeof(here)) == 0,
	    "proc_root_read_mem");
}

int
main(void)
{
	char	*cmd;

	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	build();
	test_paths();
	test_bounds();
	if (geteuid() == 0) {
		test_special();
		test_process();
	} else
		diag("not root: no device node, no chroot");
	test_mem();
	close(rootfd);
	xasprintf(&cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		diag("cannot remove the scratch directory");
	free(cmd);
	return done_testing();
}
