/*
 * Fixtures for the symbolization tests: small programs compiled at run
 * time with cc into a temporary directory (a PIE and a non-PIE
 * executable, a shared library, stripped copies), and what nm and
 * readelf say about them, so that expected addresses come from the
 * fixtures themselves and from tools other than the code under test.
 */
#ifndef EBPFSPY_SYMFIX_H
#define EBPFSPY_SYMFIX_H

#include <sys/types.h>
#include <sys/wait.h>

#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FX_MAX_SYMS	512
#define FX_MAX_SEGS	16
#define FX_DIR_MAX	64	/* the fixture directory's name */

struct fx_sym {
	char		name[256];
	uint64_t	addr;
	uint64_t	size;
	char		type;
};

struct fx_syms {
	struct fx_sym	v[FX_MAX_SYMS];
	size_t		n;
};

struct fx_seg {
	uint64_t	offset, vaddr, filesz;
	int		exec;
};

struct fx_segs {
	struct fx_seg	v[FX_MAX_SEGS];
	size_t		n;
};

/* A running fixture: it printed "name address" lines, then "ready". */
struct fx_proc {
	pid_t		pid;
	FILE		*in;		/* its stdin */
	FILE		*out;		/* its stdout */
	struct fx_syms	addrs;		/* runtime addresses it printed */
};

static const char fx_main_c[] =
    "#include <dlfcn.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "static int __attribute__((noinline)) fx_static(int x)\n"
    "{ volatile int s = 0; int i; for (i = 0; i < x; i++) s += i ^ 5;"
    " return s; }\n"
    "int __attribute__((noinline)) fx_alpha(int x)\n"
    "{ volatile int s = 0; int i; for (i = 0; i < x; i++) s += i * 7;"
    " return s + fx_static(x); }\n"
    "int __attribute__((noinline)) fx_beta(int x)\n"
    "{ volatile int s = 1; int i; for (i = 0; i < x; i++) s *= i | 1;"
    " return s; }\n"
    /* A function without .size: its size is 0 in the symbol table. */
    "__asm__(\".text\\n.globl fx_asm0\\n.type fx_asm0, %function\\n"
    "fx_asm0:\\n\\tnop\\n\\tnop\\n\\tnop\\n\\tret\\n\");\n"
    "void fx_asm0(void);\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "	char line[4096]; void *h; void (*print)(void);\n"
    "	printf(\"fx_alpha %p\\nfx_beta %p\\nfx_static %p\\n"
    "fx_asm0 %p\\nready\\n\", (void *)fx_alpha, (void *)fx_beta,"
    " (void *)fx_static, (void *)fx_asm0);\n"
    "	fflush(stdout);\n"
    "	while (fgets(line, sizeof(line), stdin) != NULL) {\n"
    "		line[strcspn(line, \"\\n\")] = '\\0';\n"
    "		if (strncmp(line, \"dlopen \", 7) == 0 &&\n"
    "		    (h = dlopen(line + 7, RTLD_NOW)) != NULL &&\n"
    "		    (*(void **)&print = dlsym(h, \"fxlib_print\")) != NULL)\n"
    "			print();\n"
    "		printf(\"ready\\n\");\n"
    "		fflush(stdout);\n"
    "	}\n"
    "	if (fx_alpha(argc) + fx_beta(argc) == 12345)\n"
    "		fx_asm0();\n"
    "	return 0;\n"
    "}\n";

static const char fx_lib_c[] =
    "#include <stdio.h>\n"
    "static int __attribute__((noinline)) fxlib_static(int x)\n"
    "{ volatile int s = 0; int i; for (i = 0; i < x; i++) s += i ^ 9;"
    " return s; }\n"
    "int __attribute__((noinline)) fxlib_work(int x)\n"
    "{ return fxlib_static(x) + 1; }\n"
    "void fxlib_print(void)\n"
    "{ printf(\"fxlib_work %p\\nfxlib_static %p\\n\","
    " (void *)fxlib_work, (void *)fxlib_static); }\n";

static inline int __attribute__((format(printf, 1, 2)))
fx_sh(const char *fmt, ...)
{
	char	 cmd[8192];
	va_list	 ap;
	int	 r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	return r == 0 ? 0 : -1;
}

static inline int
fx_write(const char *path, const void *buf, size_t len)
{
	FILE	*f;
	int	 r;

	if ((f = fopen(path, "w")) == NULL)
		return -1;
	r = fwrite(buf, 1, len, f) == len ? 0 : -1;
	if (fclose(f) != 0)
		r = -1;
	return r;
}

/* The whole file in malloc'd memory. */
static inline char *
fx_read(const char *path, size_t *len)
{
	FILE	*f;
	char	*buf;
	long	 n;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	if (buf == NULL || fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/*
 * Build the fixtures into a new temporary directory dir (FX_DIR_MAX):
 * pie, nopie, libfx.so and their stripped copies pie.stripped,
 * nopie.stripped, libfx.stripped.so.  -1 if there is no compiler.
 */
static inline int
fx_build(char *dir)
{
	char		 path[FX_DIR_MAX + 16];
	const char	*cflags = "-O0 -fno-inline -Wl,--build-id=sha1";

	snprintf(dir, FX_DIR_MAX, "/tmp/ebpfspy-symfix.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/fx.c", dir);
	if (fx_write(path, fx_main_c, strlen(fx_main_c)) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s/fxlib.c", dir);
	if (fx_write(path, fx_lib_c, strlen(fx_lib_c)) == -1)
		return -1;
	if (fx_sh("cd %s && cc %s -fPIE -pie -o pie fx.c && "
	    "cc %s -fno-pie -no-pie -o nopie fx.c && "
	    "cc %s -fPIC -shared -o libfx.so fxlib.c && "
	    "strip -o pie.stripped pie && strip -o nopie.stripped nopie && "
	    "strip -o libfx.stripped.so libfx.so", dir, cflags, cflags,
	    cflags) == -1)
		return -1;
	return 0;
}

static inline void
fx_clean(const char *dir)
{
	fx_sh("rm -rf '%s'", dir);
}

/* Defined symbols from nm -S (-D: the dynamic ones). */
static inline int
fx_nm(const char *path, int dynamic, struct fx_syms *s)
{
	char		 cmd[PATH_MAX + 64], line[512], name[256], type;
	unsigned long long a, sz;
	FILE		*f;

	s->n = 0;
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s '%s' 2>/dev/null",
	    dynamic ? "-D" : "", path);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL && s->n < FX_MAX_SYMS) {
		if (sscanf(line, "%llx %llx %c %255s", &a, &sz, &type,
		    name) == 4)
			;
		else if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3)
			sz = 0;
		else
			continue;
		snprintf(s->v[s->n].name, sizeof(s->v[s->n].name), "%s",
		    name);
		s->v[s->n].addr = a;
		s->v[s->n].size = sz;
		s->v[s->n].type = type;
		s->n++;
	}
	return pclose(f) == 0 ? 0 : -1;
}

static inline const struct fx_sym *
fx_find(const struct fx_syms *s, const char *name)
{
	size_t	 i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

/* The one function symbol nm lists at addr, NULL if none (or several). */
static inline const struct fx_sym *
fx_func_at(const struct fx_syms *s, uint64_t addr)
{
	const struct fx_sym	*found = NULL;
	size_t			 i;

	for (i = 0; i < s->n; i++) {
		if (s->v[i].addr != addr || strchr("tTwWi", s->v[i].type) ==
		    NULL)
			continue;
		if (found != NULL)
			return NULL;
		found = &s->v[i];
	}
	return found;
}

/* PT_LOAD segments from readelf -lW. */
static inline int
fx_segments(const char *path, struct fx_segs *s)
{
	char		 cmd[PATH_MAX + 64], line[512], type[32];
	unsigned long long off, va, pa, fsz, msz;
	FILE		*f;

	s->n = 0;
	snprintf(cmd, sizeof(cmd), "readelf -lW '%s' 2>/dev/null", path);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL && s->n < FX_MAX_SEGS) {
		if (sscanf(line, " %31s %llx %llx %llx %llx %llx", type, &off,
		    &va, &pa, &fsz, &msz) != 6 || strcmp(type, "LOAD") != 0)
			continue;
		s->v[s->n].offset = off;
		s->v[s->n].vaddr = va;
		s->v[s->n].filesz = fsz;
		s->v[s->n].exec = strstr(line, " E ") != NULL;
		s->n++;
	}
	return pclose(f) == 0 && s->n > 0 ? 0 : -1;
}

static inline uint64_t
fx_vaddr_to_offset(const struct fx_segs *s, uint64_t vaddr)
{
	size_t	 i;

	for (i = 0; i < s->n; i++)
		if (vaddr >= s->v[i].vaddr &&
		    vaddr < s->v[i].vaddr + s->v[i].filesz)
			return vaddr - s->v[i].vaddr + s->v[i].offset;
	return UINT64_MAX;
}

/* "Build ID: hex" from readelf -n, in buf. */
static inline int
fx_build_id(const char *path, char *buf, size_t len)
{
	char	 cmd[PATH_MAX + 64], line[512], *p;
	FILE	*f;
	int	 r = -1;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if ((p = strstr(line, "Build ID: ")) != NULL) {
			p += strlen("Build ID: ");
			p[strcspn(p, " \n")] = '\0';
			snprintf(buf, len, "%s", p);
			r = 0;
		}
	pclose(f);
	return r;
}

/* Read "name 0xaddr" lines up to "ready". */
static inline int
fx_proc_read(struct fx_proc *p)
{
	char		 line[512], name[256];
	unsigned long long a;

	while (fgets(line, sizeof(line), p->out) != NULL) {
		if (strcmp(line, "ready\n") == 0)
			return 0;
		if (sscanf(line, "%255s %llx", name, &a) != 2 ||
		    p->addrs.n >= FX_MAX_SYMS)
			continue;
		snprintf(p->addrs.v[p->addrs.n].name,
		    sizeof(p->addrs.v[0].name), "%s", name);
		p->addrs.v[p->addrs.n].addr = a;
		p->addrs.n++;
	}
	return -1;
}

static inline int
fx_proc_start(struct fx_proc *p, const char *path)
{
	int	 in[2], out[2];

	memset(p, 0, sizeof(*p));
	if (pipe(in) == -1 || pipe(out) == -1)
		return -1;
	if ((p->pid = fork()) == -1)
		return -1;
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->in = fdopen(in[1], "w");
	p->out = fdopen(out[0], "r");
	return fx_proc_read(p);
}

/* Ask the fixture to dlopen a library and print its addresses. */
static inline int
fx_proc_dlopen(struct fx_proc *p, const char *lib)
{
	fprintf(p->in, "dlopen %s\n", lib);
	fflush(p->in);
	return fx_proc_read(p);
}

static inline uint64_t
fx_proc_addr(const struct fx_proc *p, const char *name)
{
	const struct fx_sym	*s;

	return (s = fx_find(&p->addrs, name)) == NULL ? 0 : s->addr;
}

static inline void
fx_proc_stop(struct fx_proc *p)
{
	int	 status;

	if (p->pid <= 0)
		return;
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &status, 0);
	if (p->in != NULL)
		fclose(p->in);
	if (p->out != NULL)
		fclose(p->out);
	p->pid = 0;
}

#endif
