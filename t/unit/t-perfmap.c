/*
 * Perf maps: the format and its absurd lines, the bounds, JIT code of a
 * running process named from /tmp/perf-PID.map and read again when the
 * map grows, who may own it, a FIFO, a huge file, and a process in its
 * own pid and mount namespaces, whose map is its /tmp/perf-1.map.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/perfmap.h"
#include "sym/resolve.h"
#include "config.h"

#include "tap.h"
#include "symfix.h"

static struct resolve *
mkresolve(int perf_maps)
{
	struct config	*conf;
	struct resolve	*r;

	conf = config_defaults();
	conf->unknown_symbol_module_offset = 0;
	conf->perf_maps = perf_maps;
	r = resolve_create(conf);
	config_free(conf);
	return r;
}

static void
test_parse(void)
{
	static const char text[] =
	    "1000 10 alpha\n"
	    "0x2000 0x20 LazyCompile:*beta /app/x.js:3\n"
	    "3000 10 old\n"
	    "3000 10 new\n"
	    "\n"
	    "zzz 10 bad-addr\n"
	    "4000 0 zero-size\n"
	    "5000 10\n"
	    "5000\n"
	    "10000000000000000 10 seventeen-digits\n"
	    "6000\t10\t  spaced name \r\n"
	    "7000 10 nul\0after\n"
	    "fffffffffffffff0 100 top\n"
	    "8000 10 last";
	struct perfmap	*pm;
	char		*big, name[2048];
	size_t		 len, i;

	pm = perfmap_parse(text, sizeof(text) - 1);
	is_int(perfmap_count(pm), 7, "seven entries");
	is_int(perfmap_skipped(pm), 6, "six lines skipped");
	is_str(perfmap_lookup(pm, 0x1000), "alpha", "first byte");
	is_str(perfmap_lookup(pm, 0x100f), "alpha", "last byte");
	ok(perfmap_lookup(pm, 0x1010) == NULL, "one past the end");
	is_str(perfmap_lookup(pm, 0x2010), "LazyCompile:*beta /app/x.js:3",
	    "0x prefixes, a name with spaces");
	is_str(perfmap_lookup(pm, 0x3005), "new", "the later line wins");
	ok(perfmap_lookup(pm, 0x4000) == NULL, "size 0: skipped");
	is_str(perfmap_lookup(pm, 0x6001), "spaced name",
	    "tabs, trailing blanks and CR");
	is_str(perfmap_lookup(pm, 0x7001), "nul", "a NUL ends the name");
	is_str(perfmap_lookup(pm, 0xffffffffffffffffULL - 1), "top",
	    "a range past the top of memory");
	is_str(perfmap_lookup(pm, 0x8001), "last", "a last line without "
	    "newline");
	ok(perfmap_bytes(pm) < 512, "memory: %zu bytes", perfmap_bytes(pm));
	perfmap_free(pm);
	perfmap_free(NULL);

	/* A 5000-byte name is cut. */
	big = malloc(8192);
	len = snprintf(big, 8192, "1000 10 ");
	memset(big + len, 'n', 5000);
	len += 5000;
	pm = perfmap_parse(big, len);
	memset(name, 'n', 1024);
	name[1024] = '\0';
	is_str(perfmap_lookup(pm, 0x1000), name, "a long name: cut to 1024");
	perfmap_free(pm);
	free(big);

	/* More lines than kept. */
	big = malloc(1200000 * 16);
	for (i = 0, len = 0; i < 1200000; i++)
		len += snprintf(big + len, 16, "%zx 1 f\n", i * 16);
	pm = perfmap_parse(big, len);
	is_int(perfmap_count(pm), 1 << 20, "1200000 lines: 1048576 kept");
	ok(perfmap_bytes(pm) < 40 * 1024 * 1024, "memory bounded: %zu bytes",
	    perfmap_bytes(pm));
	perfmap_free(pm);
	free(big);
}

/* A child with anonymous executable memory, as a JIT has. */
static pid_t
jit_start(int *in, uint64_t *code)
{
	int	 p[2], q[2];
	pid_t	 pid;
	void	*m;
	char	 c;

	if (pipe(p) == -1 || pipe(q) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		close(p[0]);
		close(q[1]);
		m = mmap(NULL, 65536, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (write(p[1], &m, sizeof(m)) != sizeof(m))
			_exit(1);
		while (read(q[0], &c, 1) == 1)
			;
		_exit(0);
	}
	close(p[1]);
	close(q[0]);
	if (read(p[0], code, sizeof(*code)) != sizeof(*code)) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	*in = q[1];
	return pid;
}

static void
jit_stop(pid_t pid, int in)
{
	int	 status;

	close(in);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* Write (or append) a line "BASE 100 name" to a perf map. */
static int
write_map(const char *path, const char *name, uint64_t base, int append)
{
	FILE	*f;

	if ((f = fopen(path, append ? "a" : "w")) == NULL)
		return -1;
	fprintf(f, "%llx 100 %s\n", (unsigned long long)base, name);
	return fclose(f);
}

static void
test_process(void)
{
	struct resolve		*r, *off;
	struct resolve_proc	*rp, *rpo;
	struct resolve_stats	 st;
	char			 path[64], want[64];
	uint64_t		 code;
	pid_t			 pid;
	int			 in, fd;

	if ((pid = jit_start(&in, &code)) == -1) {
		ok(0, "JIT child started");
		return;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	r = mkresolve(1);
	off = mkresolve(0);
	rp = resolve_proc_open(r, pid);
	rpo = resolve_proc_open(off, pid);
	is_str(resolve_user(r, rp, code + 8), "[unknown]",
	    "no perf map: [unknown]");
	resolve_round_end(r);

	if (write_map(path, "LazyCompile:*fib /app/fib.js:1", code,
	    0) == -1) {
		ok(0, "write %s", path);
		goto out;
	}
	is_str(resolve_user(r, rp, code + 8), "LazyCompile:*fib /app/fib.js:1",
	    "JIT code named from the perf map");
	is_str(resolve_user(off, rpo, code + 8), "[unknown]",
	    "perf_maps = no: not read");
	resolve_stats(r, &st);
	is_int(st.perf_maps, 1, "stats: one perf map");
	ok(st.perf_map_bytes > 0 && st.file_bytes >= st.perf_map_bytes &&
	    st.files >= 1, "stats: its memory counted (%zu bytes)",
	    st.perf_map_bytes);

	/* The map grows: read again, but not twice in one round. */
	write_map(path, "later", code + 0x1000, 1);
	is_str(resolve_user(r, rp, code + 0x1008), "[unknown]",
	    "the map grew: not read again in the same round");
	resolve_round_end(r);
	is_str(resolve_user(r, rp, code + 0x1008), "later",
	    "next round: read again");
	is_str(resolve_user(r, rp, code + 8), "LazyCompile:*fib /app/fib.js:1",
	    "the older entries stay");

	/* Only the process's user or root may own it. */
	if (geteuid() == 0 && chown(path, 65534, 65534) == 0) {
		resolve_proc_close(r, rp);
		resolve_free(r);
		r = mkresolve(1);
		rp = resolve_proc_open(r, pid);
		is_str(resolve_user(r, rp, code + 8), "[unknown]",
		    "a map owned by another user: ignored");
	} else
		printf("ok %d # SKIP not root: no chown\n", ++tap_n);

	/* A FIFO in its place: no hang. */
	unlink(path);
	if (mkfifo(path, 0600) == 0) {
		resolve_proc_close(r, rp);
		resolve_free(r);
		r = mkresolve(1);
		rp = resolve_proc_open(r, pid);
		is_str(resolve_user(r, rp, code + 8), "[unknown]",
		    "a FIFO: ignored, no hang");
		unlink(path);
	}

	/* 1 GB, sparse: only its last 16 MiB are read. */
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1) {
		snprintf(want, sizeof(want), "\n%llx 100 at-the-end\n",
		    (unsigned long long)code + 0x2000);
		if (pwrite(fd, "1000 10 at-the-start\n", 21, 0) == 21 &&
		    pwrite(fd, want, strlen(want), 1LL << 30) ==
		    (ssize_t)strlen(want)) {
			resolve_proc_close(r, rp);
			resolve_free(r);
			r = mkresolve(1);
			rp = resolve_proc_open(r, pid);
			is_str(resolve_user(r, rp, code + 0x2008),
			    "at-the-end", "a 1 GB map: its end read");
			resolve_stats(r, &st);
			ok(st.perf_map_bytes < 4096, "a 1 GB map: %zu bytes "
			    "kept", st.perf_map_bytes);
		}
		close(fd);
	}
out:
	unlink(path);
	resolve_proc_close(r, rp);
	resolve_proc_close(off, rpo);
	resolve_free(r);
	resolve_free(off);
	jit_stop(pid, in);
}

/* The process exits before its frames are named: the map it left. */
static void
test_dead(void)
{
	struct resolve		*r;
	struct resolve_proc	*rp;
	char			 path[64];
	uint64_t		 code;
	pid_t			 pid;
	int			 in;

	if ((pid = jit_start(&in, &code)) == -1) {
		ok(0, "JIT child started");
		return;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	r = mkresolve(1);
	rp = resolve_proc_open(r, pid);
	write_map(path, "left-behind", code, 0);
	jit_stop(pid, in);
	resolve_round_end(r);
	is_str(resolve_user(r, rp, code + 8), "left-behind",
	    "the process is gone: the map it left in our /tmp");
	resolve_proc_close(r, rp);
	resolve_free(r);
	unlink(path);

	/* A map older than the process is another's, long gone. */
	if ((pid = jit_start(&in, &code)) == -1)
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	r = mkresolve(1);
	rp = resolve_proc_open(r, pid);
	write_map(path, "stale", code, 0);
	fx_sh("touch -d '1 hour ago' %s", path);
	jit_stop(pid, in);
	resolve_round_end(r);
	is_str(resolve_user(r, rp, code + 8), "[unknown]",
	    "the process is gone, a map older than it: ignored");
	resolve_proc_close(r, rp);
	resolve_free(r);
	unlink(path);
}

/*
 * A process that is pid 1 of its own pid namespace, with its own /tmp:
 * its map is its /tmp/perf-1.map.  A decoy at the host's
 * /tmp/perf-HOSTPID.map must not be read.
 */
static void
test_namespace(void)
{
	struct resolve		*r;
	struct resolve_proc	*rp;
	char			 line[128], decoy[64];
	unsigned long long	 code = 0;
	FILE			*out;
	pid_t			 mid, pid = 0;
	int			 p[2], q[2], status;
	void			*m;

	if (geteuid() != 0 || pipe(p) == -1 || pipe(q) == -1) {
		printf("ok %d # SKIP not root\n", ++tap_n);
		return;
	}
	if ((mid = fork()) == -1)
		return;
	if (mid == 0) {
		close(p[0]);
		close(q[1]);
		if (unshare(CLONE_NEWPID | CLONE_NEWNS) == -1 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
			_exit(2);
		if ((pid = fork()) == -1)
			_exit(2);
		if (pid > 0) {
			dprintf(p[1], "pid %d\n", (int)pid);
			waitpid(pid, &status, 0);
			_exit(0);
		}
		if (mount("tmpfs", "/tmp", "tmpfs", 0, NULL) == -1)
			_exit(2);
		m = mmap(NULL, 65536, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (write_map("/tmp/perf-1.map", "in-the-container",
		    (uintptr_t)m, 0) == -1)
			_exit(2);
		dprintf(p[1], "code %llx\n", (unsigned long long)(uintptr_t)m);
		while (read(q[0], line, 1) == 1)
			;
		_exit(0);
	}
	close(p[1]);
	close(q[0]);
	out = fdopen(p[0], "r");
	while ((pid == 0 || code == 0) &&
	    fgets(line, sizeof(line), out) != NULL) {
		sscanf(line, "pid %d", &pid);
		sscanf(line, "code %llx", &code);
	}
	if (pid <= 0 || code == 0) {
		printf("ok %d # SKIP no pid and mount namespaces (unshare)\n",
		    ++tap_n);
		goto out;
	}
	snprintf(decoy, sizeof(decoy), "/tmp/perf-%d.map", (int)pid);
	write_map(decoy, "decoy", code, 0);
	write_map(decoy, "decoy", code + 0x1000, 1);
	r = mkresolve(1);
	rp = resolve_proc_open(r, pid);
	is_str(resolve_user(r, rp, code + 8), "in-the-container",
	    "pid 1 of its namespace: its /tmp/perf-1.map, in its root");
	/* Gone: its /tmp was not ours, the decoy is not read. */
	kill(pid, SIGKILL);
	while (kill(pid, 0) == 0)
		usleep(10000);
	resolve_round_end(r);
	is_str(resolve_user(r, rp, code + 0x1008), "[unknown]",
	    "gone from its namespace: our /tmp/perf-PID.map is not its");
	resolve_proc_close(r, rp);
	resolve_free(r);
	unlink(decoy);
	kill(pid, SIGKILL);
out:
	close(q[1]);
	fclose(out);
	waitpid(mid, &status, 0);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_parse();
	test_process();
	test_dead();
	test_namespace();
	return done_testing();
}
