/*
 * The bounds of a table's build: a library of 300,000 functions, over
 * max_symbols_per_file and (its names) over max_symbol_bytes_per_file,
 * and stripped binaries whose .gnu_debugdata is an xz bomb (64 MiB of
 * zeros in a few KB) over max_debugdata_bytes, or over the decoder's
 * memory limit (xz -9): each refused before it
 * is read, counted once, and the file's other symbols still read.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "sym/symcache.h"
#include "sym/symfile.h"
#include "util/xmalloc.h"

#include "tap.h"
#include "symfix.h"

#define MANY	300000

static char	 dir[FX_DIR_MAX];

static char *
dpath(const char *rel)
{
	static char	 buf[2][FX_DIR_MAX + 64];
	static int	 i;

	i = (i + 1) % 2;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, rel);
	return buf[i];
}

/* many.so: MANY local functions of .symtab, and one exported. */
static int
build(void)
{
	FILE	*f;
	int	 i;

	snprintf(dir, sizeof(dir), "/tmp/t-symfile.XXXXXX");
	if (mkdtemp(dir) == NULL || (f = fopen(dpath("many.s"), "w")) ==
	    NULL)
		return -1;
	fprintf(f, "\t.text\n\t.globl exported_fn\n"
	    "\t.type exported_fn, @function\nexported_fn:\n\tret\n"
	    "\t.size exported_fn, .-exported_fn\n");
	for (i = 0; i < MANY; i++)
		fprintf(f, "\t.type many_%06d, @function\nmany_%06d:\n"
		    "\tret\n\t.size many_%06d, .-many_%06d\n", i, i, i, i);
	if (fclose(f) == EOF)
		return -1;
	return fx_sh("cd %s && cc -c -o many.o many.s && "
	    "cc -shared -nostdlib -o many.so many.o && "
	    "printf 'int main(void) { return 0; }\\n' >tiny.c && "
	    "cc -O1 -rdynamic -o tiny tiny.c && strip -o bomb tiny && "
	    "cp bomb bomb9 && "
	    "head -c 67108864 /dev/zero | xz -6 >bomb.xz && "
	    "objcopy --add-section .gnu_debugdata=bomb.xz bomb && "
	    "head -c 67108864 /dev/zero | xz -9 >bomb9.xz && "
	    "objcopy --add-section .gnu_debugdata=bomb9.xz bomb9", dir);
}

static size_t
count_with(struct config *conf, const char *file, struct symfile_stats *d)
{
	struct symfile_stats	 before, after;
	struct symcache		*c;
	struct symcache_file	*f;
	size_t			 n;

	symfile_stats(&before);
	c = symcache_create(conf);
	f = symcache_get_path(c, dpath(file));
	n = symcache_file_count(f);
	symcache_put(c, f);
	symcache_free(c);
	symfile_stats(&after);
	d->refused_symbols = after.refused_symbols - before.refused_symbols;
	d->refused_names = after.refused_names - before.refused_names;
	d->refused_debugdata = after.refused_debugdata -
	    before.refused_debugdata;
	return n;
}

static long
maxrss_kb(void)
{
	struct rusage	 ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * What building the table of file costs at its peak, measured in a
 * child, whose peak starts at our size now, not at the bombs' above:
 * the figure ebpfspy.conf(5) gives.
 */
static void
peak_child(struct config *conf, const char *file)
{
	struct symfile_stats	 d;
	char			 msg[128];
	long			 v[2];
	pid_t			 pid;
	int			 p[2];

	if (pipe(p) == -1)
		return;
	if ((pid = fork()) == 0) {
		v[0] = maxrss_kb();
		count_with(conf, file, &d);
		v[1] = maxrss_kb();
		(void)write(p[1], v, sizeof(v));
		_exit(0);
	}
	close(p[1]);
	if (pid != -1 && read(p[0], v, sizeof(v)) == sizeof(v)) {
		snprintf(msg, sizeof(msg), "%s: its table's build took the "
		    "peak RSS from %ld to %ld KB", file, v[0], v[1]);
		diag(msg);
	}
	close(p[0]);
	if (pid != -1)
		waitpid(pid, NULL, 0);
}

int
main(void)
{
	struct symfile_stats	 d;
	struct config		*conf;
	size_t			 n;
	long			 rss0;

	if (build() == -1) {
		printf("Bail out! cannot build the fixtures\n");
		return 1;
	}
	conf = config_defaults();
	ok(conf->symbol_max_symbols == 500000 &&
	    conf->symbol_max_bytes == 67108864 &&
	    conf->symbol_max_debugdata == 16777216, "the default bounds");

	conf->symbol_max_symbols = 100000;
	rss0 = maxrss_kb();
	n = count_with(conf, "many.so", &d);
	is_int(n, 1, "over max_symbols_per_file: .symtab refused, the "
	    "exported function from .dynsym kept");
	is_int(d.refused_symbols, 1, "counted once, as max_symbols_per_file");
	is_int(d.refused_names, 0, "not as names");
	ok(maxrss_kb() - rss0 < 2048, "refused before it is read: peak "
	    "+%ld KB, not the 10 MB of its tables", maxrss_kb() - rss0);

	conf->symbol_max_symbols = 500000;
	conf->symbol_max_bytes = 65536;
	n = count_with(conf, "many.so", &d);
	is_int(n, 1, "over max_symbol_bytes_per_file: refused too");
	is_int(d.refused_names, 1, "counted as max_symbol_bytes_per_file");
	conf->symbol_max_bytes = 67108864;

	rss0 = maxrss_kb();
	n = count_with(conf, "bomb", &d);
	is_int(d.refused_debugdata, 1, "an xz bomb in .gnu_debugdata: "
	    "refused and counted");
	ok(maxrss_kb() - rss0 < 64 * 1024, "its 64 MiB never in memory "
	    "(peak +%ld KB)", maxrss_kb() - rss0);
	ok(n > 0, "its .dynsym still read (%zu)", n);
	n = count_with(conf, "bomb9", &d);
	is_int(d.refused_debugdata, 1, "one whose dictionary is over the "
	    "decoder's memory limit: refused and counted");

	n = count_with(conf, "many.so", &d);
	is_int(n, MANY + 1, "within the default bounds: all %d functions",
	    MANY + 1);
	ok(d.refused_symbols == 0 && d.refused_names == 0, "none refused");
	peak_child(conf, "many.so");

	config_free(conf);
	fx_clean(dir);
	return done_testing();
}
