/*
 * CPython processes: which processes run an interpreter the BPF walker
 * (bpf/pyperf.h) can walk, what it needs to know of each (the py_info
 * map), and the names of the frames it stores.
 *
 * Detection, at a pid's first sample (after an exec too), from the maps
 * the caller read: a mapped ELF file -- the executable, or a file named
 * libpython* or python* -- that defines _PyRuntime (src/python/python_file.c
 * says what each file is).  An interpreter that cannot be walked is
 * refused with a counted reason and its process is profiled natively:
 * a Python process is never dropped.
 *
 * The Python stacks stay in their BPF map; the store of them that
 * names samples (src/session/stacks.c) is this module's.
 */
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf/arch.h"
#include "config/config.h"
#include "util/log.h"
#include "proc/procmaps.h"
#include "pysym.h"
#include "python.h"
#include "python_file.h"
#include "python_table.h"
#include "session/session.h"
#include "session/stacks.h"
#include "util/clock.h"
#include "util/xmalloc.h"

#define PYTHON_CODE_ROUNDS	20	/* rounds an unused code stays */
#define PYTHON_NAME_MAX		8192
#define PYTHON_MAPS_MS		1000	/* between two reads of the maps */
#define PYTHON_MAPS_NEW_MS	50	/* the same, after new code ran */
#define PYTHON_MAPS_LEAF_MS	5	/* the same, for an unknown frame */
#define PYTHON_REFUSED_MAX	64

struct python_proc {
	TAILQ_ENTRY(python_proc) entry;
	pid_t			 pid;
	uint64_t		 serial;
	const struct python_version *ver;
	dev_t			 dev;	/* the interpreter's file */
	ino_t			 ino;
	struct procmaps		*maps;
	int64_t			 maps_time;	/* when read, ns */
	uint64_t		 maps_round;	/* read again at naming */
	struct pysym		*sym;
};

/* A process refused recently: counted once, however often it is seen. */
struct python_refused {
	pid_t		 pid;
	dev_t		 dev;
	ino_t		 ino;
};

struct python {
	struct session		*session;
	int			 enabled;
	int			 lines;
	int			 path;	/* enum config_python_path */
	struct python_files	 files;
	TAILQ_HEAD(, python_proc) procs;
	size_t			 nprocs;
	uint64_t		 serial;
	uint64_t		 round;
	struct python_stats	 st;
	struct python_refused	 refused[PYTHON_REFUSED_MAX];
	size_t			 nrefused;
	struct pysym_stats	 gone;	/* of closed processes */
	char			 name[PYTHON_NAME_MAX];
	char			 func[PYTHON_NAME_MAX];
	struct runtime_where	 where;		/* of name */
	struct profile_pystack	 stack;		/* one, read from BPF */
	struct profile_stack	 native;
	struct stacks		*stacks;	/* as samples name them */
};

struct python *
python_create(struct session *session, const struct config *conf)
{
	struct python	*py;

	py = xcalloc(1, sizeof(*py));
	py->session = session;
	py->stacks = stacks_create_map(session_pystacks_map(session),
	    sizeof(struct profile_pystack) / sizeof(uint64_t),
	    python_stack_words);
	TAILQ_INIT(&py->procs);
	python_configure(py, conf);
	return py;
}

void
python_free(struct python *py)
{
	struct python_proc	*pp;

	if (py == NULL)
		return;
	while ((pp = TAILQ_FIRST(&py->procs)) != NULL)
		python_proc_close(py, pp);
	stacks_free(py->stacks);
	free(py);
}

void
python_configure(struct python *py, const struct config *conf)
{
	py->enabled = conf->python_enabled;
	py->lines = conf->python_lines;
	py->path = conf->python_path;
}

int
python_is_enabled(const struct python *py)
{
	return py->enabled;
}


static void
python_refuse(struct python *py, pid_t pid, int why,
    const struct procmaps_entry *e)
{
	struct python_refused	*r;
	dev_t			 dev = makedev(e->dev_major, e->dev_minor);
	size_t			 i;

	for (i = 0; i < PYTHON_REFUSED_MAX; i++) {
		r = &py->refused[i];
		if (r->pid == pid && r->dev == dev && r->ino == e->inode)
			return;
	}
	r = &py->refused[py->nrefused++ % PYTHON_REFUSED_MAX];
	r->pid = pid;
	r->dev = dev;
	r->ino = e->inode;
	py->st.refused[why]++;
	log_info("pid %d: %s: Python not walked (%s): profiled natively",
	    (int)pid, procmaps_basename(e), python_refusal_name(why));
}

struct python_proc *
python_proc_open(struct python *py, pid_t pid, const struct procmaps *maps,
    int *pending)
{
	const struct procmaps_entry	*e, *interp = NULL;
	const struct python_version	*v;
	struct python_file		*f, *fi = NULL;
	struct python_proc		*pp;
	struct profile_py_info		 pi;
	struct stat			 exe;
	char				 path[64];
	size_t				 i;
	uint64_t			 bias;
	int				 have_exe, needs = 0, musl = 0;

	*pending = 0;
	if (!py->enabled || pid <= 0 || maps == NULL)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	have_exe = stat(path, &exe) == 0;
	for (i = 0; i < maps->n; i++) {
		e = &maps->v[i];
		if (strncmp(procmaps_basename(e), "ld-musl", 7) == 0)
			musl = 1;
		if (fi != NULL ||
		    !python_file_is_candidate(e, have_exe ? &exe : NULL))
			continue;
		if ((f = python_file_get(&py->files, pid, e)) == NULL)
			continue;
		needs |= f->needs_lib;
		if (f->interp) {
			fi = f;
			interp = e;
		}
	}
	if (fi == NULL) {
		*pending = needs;
		return NULL;
	}
	if (fi->refusal < 0 && !musl &&
	    python_file_bias(fi, interp, &bias) == -1)
		fi->refusal = PYTHON_REFUSE_LAYOUT;
	if (fi->refusal >= 0 || musl) {
		python_refuse(py, pid, fi->refusal >= 0 ? fi->refusal :
		    musl ? PYTHON_REFUSE_LIBC : PYTHON_REFUSE_LAYOUT, interp);
		return NULL;
	}
#if !ARCH_PY_TSD
	/* bpf/arch.h knows no struct pthread of this architecture. */
	python_refuse(py, pid, PYTHON_REFUSE_ARCH, interp);
	return NULL;
#endif
	v = python_table_find(fi->minor);
	python_file_info(v, fi, bias, &pi);
	/* The interpreter's code, where samples need no native stack. */
	for (i = 0; i < maps->n; i++) {
		e = &maps->v[i];
		if (e->inode != interp->inode || e->dev_major !=
		    interp->dev_major || e->dev_minor != interp->dev_minor)
			continue;
		if (pi.text_lo == 0 || e->start < pi.text_lo)
			pi.text_lo = e->start;
		if (e->end > pi.text_hi)
			pi.text_hi = e->end;
	}
	if (fi->tss_key >= 0 && fi->tss_key != v->tss_key)
		log_debug("pid %d: autoTSSkey at %d, not %d as in 3.%d's "
		    "table: using the code's", (int)pid, fi->tss_key,
		    v->tss_key, v->minor);
	pi.serial = ++py->serial;
	if (session_pyinfo_set(py->session, pid, &pi) == -1) {
		python_refuse(py, pid, PYTHON_REFUSE_BPF, interp);
		return NULL;
	}
	pp = xcalloc(1, sizeof(*pp));
	pp->pid = pid;
	pp->serial = pi.serial;
	pp->ver = v;
	pp->dev = makedev(interp->dev_major, interp->dev_minor);
	pp->ino = interp->inode;
	pp->maps = procmaps_copy(maps);
	pp->maps_time = clock_ns(CLOCK_MONOTONIC);
	pp->sym = pysym_create(pid, &v->lay);
	TAILQ_INSERT_TAIL(&py->procs, pp, entry);
	py->nprocs++;
	py->st.found[v->minor - PYTHON_MINOR_FIRST]++;
	log_debug("pid %d: Python 3.%d (%s)", (int)pid, v->minor,
	    procmaps_basename(interp));
	return pp;
}

static void
python_stats_add(struct pysym_stats *to, const struct pysym_stats *st)
{
	to->reads += st->reads;
	to->read_failed += st->read_failed;
	to->stale += st->stale;
	to->hits += st->hits;
}

void
python_proc_close(struct python *py, struct python_proc *pp)
{
	struct profile_py_info	 pi;
	struct pysym_stats	 st;

	if (pp == NULL)
		return;
	/* The entry may be a later process's already (a reused pid). */
	if (session_pyinfo_get(py->session, pp->pid, &pi) == 0 &&
	    pi.serial == pp->serial)
		session_pyinfo_delete(py->session, pp->pid);
	pysym_stats(pp->sym, &st);
	python_stats_add(&py->gone, &st);
	TAILQ_REMOVE(&py->procs, pp, entry);
	py->nprocs--;
	pysym_free(pp->sym);
	procmaps_free(pp->maps);
	free(pp);
}

size_t
python_stack_words(const uint64_t *w, size_t nwords)
{
	size_t	 n;

	if (nwords == 0)
		return 0;
	n = (uint32_t)w[0];
	if (n > PROFILE_PY_DEPTH)
		n = PROFILE_PY_DEPTH;
	n = 1 + n * (sizeof(struct profile_py_frame) / sizeof(uint64_t));
	return n <= nwords ? n : nwords;
}

int
python_stack_frames(const uint64_t *w, size_t nwords,
    const struct profile_py_frame **f, size_t *n, uint32_t *flags)
{
	const size_t	 fw = sizeof(struct profile_py_frame) /
			    sizeof(uint64_t);

	if (nwords == 0)
		return -1;
	*n = (uint32_t)w[0];
	*flags = w[0] >> 32;
	if (*n > PROFILE_PY_DEPTH || 1 + *n * fw > nwords)
		return -1;
	*f = (const struct profile_py_frame *)(w + 1);
	return 0;
}

/*
 * Read the maps again if the last read is at least ms old.  1 if they
 * were read.
 */
static int
python_proc_maps(struct python_proc *pp, long ms)
{
	struct procmaps	*maps;
	int64_t		 now;

	now = clock_ns(CLOCK_MONOTONIC);
	if ((now - pp->maps_time) / 1000000 < ms)
		return 0;
	pp->maps_time = now;
	if ((maps = procmaps_read(pp->pid)) == NULL)
		return 0;
	procmaps_free(pp->maps);
	pp->maps = maps;
	return 1;
}

void
python_proc_maps_update(struct python_proc *pp, const struct procmaps *maps)
{
	if (pp == NULL || maps == NULL)
		return;
	procmaps_free(pp->maps);
	pp->maps = procmaps_copy(maps);
	pp->maps_time = clock_ns(CLOCK_MONOTONIC);
}

/*
 * C extensions are mapped as the program imports them, and their frames
 * are kept and named only if their mappings are known.  Code never seen
 * before is what runs after an import: the maps are read again then (at
 * most every 50 ms), and else at most once a second.
 */
int
python_proc_stack_seen(struct python *py, struct python_proc *pp,
    uint64_t id, uint64_t ustack)
{
	struct profile_pystack	*st = &py->stack;
	struct profile_stack	*native = &py->native;
	struct pysym_stats	 before, after;
	uint32_t		 i;
	long			 ms;

	pysym_stats(pp->sym, &before);
	if (session_pystack_read(py->session, id, st) == 0) {
		for (i = 0; i < st->n && i < PROFILE_PY_DEPTH; i++) {
			pysym_code(pp->sym, st->f[i].code, st->f[i].check);
			if (st->f[i].self_type != 0)
				pysym_type_name(pp->sym, st->f[i].self_type);
		}
	}
	pysym_stats(pp->sym, &after);
	ms = after.reads != before.reads ? PYTHON_MAPS_NEW_MS : PYTHON_MAPS_MS;
	/* The native frame that ran is in no mapping known: read them now. */
	if (ustack != 0 && session_stack_lookup(py->session, ustack,
	    native) == 0 && native->ip[0] != 0 &&
	    procmaps_lookup(pp->maps, native->ip[0]) == NULL)
		ms = PYTHON_MAPS_LEAF_MS;
	return python_proc_maps(pp, ms);
}

size_t
python_proc_native_above(struct python *py, struct python_proc *pp,
    const uint64_t *ip, size_t n)
{
	const struct procmaps_entry	*e;
	const char			*base;
	size_t				 i;

	for (i = 0; i < n; i++) {
		/* Return addresses: the call is the byte before. */
		e = procmaps_lookup(pp->maps, i > 0 ? ip[i] - 1 : ip[i]);
		if (e == NULL && pp->maps_round != py->round + 1) {
			/* Loaded since: read them again, once a round. */
			pp->maps_round = py->round + 1;
			python_proc_maps(pp, 0);
			e = procmaps_lookup(pp->maps, i > 0 ? ip[i] - 1 :
			    ip[i]);
		}
		if (e == NULL || (e->inode == pp->ino &&
		    makedev(e->dev_major, e->dev_minor) == pp->dev))
			break;
		/* The loader's TLS lookups are the interpreter's own work. */
		base = procmaps_basename(e);
		if (strncmp(base, "ld-", 3) == 0 ||
		    strncmp(base, "ld.so", 5) == 0)
			break;
	}
	return i;
}

static const char *
python_basename(const char *path)
{
	const char	*p = strrchr(path, '/');

	return p != NULL && p[1] != '\0' ? p + 1 : path;
}

const char *
python_frame_name(struct python *py, struct python_proc *pp,
    const struct profile_py_frame *f)
{
	const struct pysym_code	*c;
	const char		*cls = NULL, *file;
	int			 line;

	py->st.frames++;
	memset(&py->where, 0, sizeof(py->where));
	if (pp == NULL || (c = pysym_code(pp->sym, f->code, f->check)) ==
	    NULL) {
		py->st.unnamed++;
		return "[unknown python]";
	}
	if (c->self_arg && f->self_type != 0)
		cls = pysym_type_name(pp->sym, f->self_type);
	file = py->path == CONFIG_PYTHON_PATH_FULL ? c->filename :
	    python_basename(c->filename);
	line = pysym_code_line(pp->sym, c, f->lasti);
	if (line < 0)
		line = c->firstlineno;
	snprintf(py->func, sizeof(py->func), "%s%s%s", cls != NULL ? cls : "",
	    cls != NULL ? "." : "", c->name);
	/* pprof's: the function, its file, the line when names have it. */
	py->where.func = py->func;
	py->where.file = c->filename;
	if (py->path != CONFIG_PYTHON_PATH_NONE && py->lines)
		py->where.line = line;
	if (py->path == CONFIG_PYTHON_PATH_NONE)
		snprintf(py->name, sizeof(py->name), "%s", py->func);
	else if (py->lines)
		snprintf(py->name, sizeof(py->name), "%s%s%s (%s:%d)",
		    cls != NULL ? cls : "", cls != NULL ? "." : "", c->name,
		    file, line);
	else
		snprintf(py->name, sizeof(py->name), "%s%s%s (%s)",
		    cls != NULL ? cls : "", cls != NULL ? "." : "", c->name,
		    file);
	return py->name;
}

/* What the last python_frame_name() named, for pprof. */
const struct runtime_where *
python_frame_where(const struct python *py)
{
	return py->where.func != NULL ? &py->where : NULL;
}

/*
 * The names of a Python stack, outermost first, to cb: "[truncated]"
 * first if the walker stopped short.  -1 if the stack is not held (its
 * process can be gone: pp NULL).
 */
int
python_stack_names(struct python *py, struct python_proc *pp, uint64_t id,
    runtime_frame_cb cb, void *arg)
{
	const struct profile_py_frame	*f;
	const uint64_t			*w;
	const char			*name;
	size_t				 nw, n, i;
	uint32_t			 flags;

	if ((w = stacks_get(py->stacks, id, &nw)) == NULL ||
	    python_stack_frames(w, nw, &f, &n, &flags) == -1)
		return -1;
	if (flags & PROFILE_PY_F_TRUNCATED)
		cb("[truncated]", NULL, arg);
	for (i = n; i-- > 0;) {
		name = python_frame_name(py, pp, &f[i]);
		cb(name, python_frame_where(py), arg);
	}
	return 0;
}

void
python_round_end(struct python *py)
{
	struct python_proc	*pp;

	stacks_round_end(py->stacks);
	TAILQ_FOREACH(pp, &py->procs, entry)
		pysym_round_end(pp->sym, PYTHON_CODE_ROUNDS);
	py->round++;
}

void
python_stats(struct python *py, struct python_stats *st)
{
	struct python_proc	*pp;
	struct pysym_stats	 all = py->gone, one;

	*st = py->st;
	st->procs = py->nprocs;
	TAILQ_FOREACH(pp, &py->procs, entry) {
		pysym_stats(pp->sym, &one);
		python_stats_add(&all, &one);
		st->codes += one.codes;
	}
	st->reads = all.reads;
	st->read_failed = all.read_failed;
	st->stale = all.stale;
}

const char *
python_version_name(int i)
{
	static const char *const names[PYTHON_NVERSIONS] = {
		"3.8", "3.9", "3.10", "3.11", "3.12", "3.13"
	};

	if (i < 0 || i >= PYTHON_NVERSIONS)
		return "?";
	return names[i];
}

const char *
python_refusal_name(int why)
{
	static const char *const names[PYTHON_REFUSE_MAX] = {
		[PYTHON_REFUSE_VERSION] = "version",
		[PYTHON_REFUSE_NO_VERSION] = "no_version",
		[PYTHON_REFUSE_FREE_THREADED] = "free_threaded",
		[PYTHON_REFUSE_LAYOUT] = "layout",
		[PYTHON_REFUSE_LIBC] = "libc",
		[PYTHON_REFUSE_ARCH] = "arch",
		[PYTHON_REFUSE_BPF] = "bpf",
	};

	if (why < 0 || why >= PYTHON_REFUSE_MAX)
		return "?";
	return names[why];
}

void
python_log_state(struct python *py)
{
	struct python_stats	 st;
	char			 found[256], refused[256];
	size_t			 i, o;

	python_stats(py, &st);
	for (i = o = 0; i < PYTHON_NVERSIONS && o < sizeof(found); i++)
		o += snprintf(found + o, sizeof(found) - o, " %s %llu",
		    python_version_name(i), (unsigned long long)st.found[i]);
	for (i = o = 0; i < PYTHON_REFUSE_MAX && o < sizeof(refused); i++)
		o += snprintf(refused + o, sizeof(refused) - o, " %s %llu",
		    python_refusal_name(i),
		    (unsigned long long)st.refused[i]);
	log_info("python: %s, %zu processes; found%s; refused%s; %llu frames "
	    "named, %llu unnamed; code objects %zu cached, %llu read, %llu "
	    "failed, %llu stale", py->enabled ? "enabled" : "disabled",
	    st.procs, found, refused, (unsigned long long)st.frames,
	    (unsigned long long)st.unnamed, st.codes,
	    (unsigned long long)st.reads, (unsigned long long)st.read_failed,
	    (unsigned long long)st.stale);
}
