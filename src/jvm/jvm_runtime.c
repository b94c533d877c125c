/*
 * HotSpot as a runtime plug-in (runtime/runtime.h): a process that maps
 * libjvm.so is opened when first sampled (jvm.c), refused with a
 * counted reason when its JVM cannot be read, and its Java frames are
 * named by jvm_runtime_name() from a record of the walker: an nmethod
 * or a Method, the pc's offset or the bci, and the check the walker
 * read with it.  The BPF walk that makes those records is not here
 * yet: until it is, pid_type stays native and no stack is named.
 */
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "jvm.h"
#include "jvm_runtime.h"
#include "jvm_sym.h"
#include "proc/procmaps.h"
#include "util/log.h"
#include "util/xmalloc.h"

#define JVM_REFUSED_MAX	64
#define JVM_NAME_MAX	1024

/* A process refused recently: counted once, however often it is seen. */
struct jvm_refused {
	pid_t		 pid;
	uint64_t	 ino;
};

struct jvm_rt {
	int			 enabled;
	size_t			 nprocs;
	uint64_t		 found;
	uint64_t		 refused[JVM_REFUSE_MAX];
	struct jvm_refused	 recent[JVM_REFUSED_MAX];
	size_t			 nrecent;
	struct jvm_sym_stats	 gone;	/* of closed processes */
	uint64_t		 frames;
	char			 name[JVM_NAME_MAX];
};

static void *
jvm_runtime_create(const struct runtime_env *env)
{
	struct jvm_rt	*rt;

	rt = xcalloc(1, sizeof(*rt));
	rt->enabled = env->conf->jvm_enabled;
	return rt;
}

static void
jvm_runtime_free(void *self)
{
	free(self);
}

/* Enabled or disabled: every process is looked at again. */
static int
jvm_runtime_configure(void *self, const struct config *conf)
{
	struct jvm_rt	*rt = self;
	int		 was = rt->enabled;

	rt->enabled = conf->jvm_enabled;
	return was != rt->enabled;
}

static void
jvm_runtime_refuse(struct jvm_rt *rt, pid_t pid, const struct procmaps *maps,
    int why, const char *missing)
{
	const struct procmaps_entry	*e;
	struct jvm_refused		*r;
	uint64_t			 ino = 0;
	size_t				 i;

	for (i = 0; i < maps->n; i++) {
		e = &maps->v[i];
		if (strcmp(procmaps_basename(e), "libjvm.so") == 0)
			ino = e->inode;
	}
	for (i = 0; i < JVM_REFUSED_MAX; i++)
		if (rt->recent[i].pid == pid && rt->recent[i].ino == ino)
			return;
	r = &rt->recent[rt->nrecent++ % JVM_REFUSED_MAX];
	r->pid = pid;
	r->ino = ino;
	rt->refused[why]++;
	log_info("pid %d: JVM not read (%s%s%s): profiled natively", (int)pid,
	    jvm_refusal_name(why), missing != NULL ? ": " : "",
	    missing != NULL ? missing : "");
}

/* The launcher maps libjli.so first and libjvm.so a moment later. */
static int
jvm_runtime_is_launcher(const struct procmaps *maps)
{
	size_t	 i;

	for (i = 0; i < maps->n; i++)
		if (strcmp(procmaps_basename(&maps->v[i]), "libjli.so") == 0)
			return 1;
	return 0;
}

static void *
jvm_runtime_open(void *self, pid_t pid, const struct procmaps *maps,
    int *pending)
{
	struct jvm_rt		*rt = self;
	struct jvm_proc		*jp;
	const char		*missing;
	int			 why;

	*pending = 0;
	if (!rt->enabled || pid <= 0 || maps == NULL)
		return NULL;
	if ((jp = jvm_proc_open(pid, maps, &why, &missing)) == NULL) {
		if (why >= 0)
			jvm_runtime_refuse(rt, pid, maps, why, missing);
		else
			*pending = why == JVM_NOT_YET ||
			    jvm_runtime_is_launcher(maps);
		return NULL;
	}
	rt->nprocs++;
	rt->found++;
	log_debug("pid %d: HotSpot JDK %d, code cache %s", (int)pid,
	    jp->lay.major, jp->cc_ok ? "read" : "not made yet");
	return jp;
}

/* Maps read again: a JVM not seen before (libjvm.so came) is opened. */
static void *
jvm_runtime_again(void *self, void *st, pid_t pid,
    const struct procmaps *maps, enum runtime_again why)
{
	int	 pending;

	(void)why;
	if (st != NULL) {
		jvm_proc_codecache(st);
		return st;
	}
	return jvm_runtime_open(self, pid, maps, &pending);
}

static void
jvm_stats_add(struct jvm_sym_stats *to, const struct jvm_sym_stats *st)
{
	to->methods += st->methods;
	to->nmethods += st->nmethods;
	to->stale += st->stale;
	to->unnamed += st->unnamed;
	to->reads_failed += st->reads_failed;
}

static void
jvm_runtime_close(void *self, void *st)
{
	struct jvm_rt		*rt = self;
	struct jvm_proc		*jp = st;
	struct jvm_sym_stats	 s;

	if (jp == NULL)
		return;
	jvm_sym_stats(jp->sym, &s);
	jvm_stats_add(&rt->gone, &s);
	rt->nprocs--;
	jvm_proc_close(jp);
}

void
jvm_runtime_stats(void *self, struct jvm_runtime_stats *st)
{
	struct jvm_rt	*rt = self;

	memset(st, 0, sizeof(*st));
	st->procs = rt->nprocs;
	st->found = rt->found;
	memcpy(st->refused, rt->refused, sizeof(st->refused));
	st->frames = rt->frames;
	st->sym = rt->gone;
}

static void
jvm_runtime_log_state(void *self)
{
	struct jvm_rt	*rt = self;
	char		 refused[256];
	size_t		 i, o;

	for (i = o = 0; i < JVM_REFUSE_MAX && o < sizeof(refused); i++)
		o += snprintf(refused + o, sizeof(refused) - o, " %s %llu",
		    jvm_refusal_name(i), (unsigned long long)rt->refused[i]);
	log_info("jvm: %s, %zu processes; found %llu; refused%s; %llu frames "
	    "named; of closed processes: %llu frames unnamed, %llu stale, "
	    "%llu methods and %llu nmethods read",
	    rt->enabled ? "enabled" : "disabled", rt->nprocs,
	    (unsigned long long)rt->found, refused,
	    (unsigned long long)rt->frames,
	    (unsigned long long)rt->gone.unnamed,
	    (unsigned long long)rt->gone.stale,
	    (unsigned long long)rt->gone.methods,
	    (unsigned long long)rt->gone.nmethods);
}

/*
 * Name one record of the walker, outermost first to cb: an inlined
 * compiled frame gives several.  "[unknown java]" (counted) when its
 * object is gone or is another's since the sample.
 */
int
jvm_runtime_name(void *self, void *st, const struct jvm_record *r,
    runtime_frame_cb cb, void *arg)
{
	struct jvm_rt		*rt = self;
	struct jvm_proc		*jp = st;
	struct jvm_frame	 f[JVM_SYM_INLINE_MAX];
	struct runtime_where	 where;
	int			 n, i;

	n = -1;
	if (jp != NULL && r->kind == JVM_RECORD_COMPILED)
		n = jvm_sym_compiled(jp->sym, r->ptr, r->check, r->off,
		    r->leaf, f, JVM_SYM_INLINE_MAX);
	else if (jp != NULL && r->kind == JVM_RECORD_INTERPRETED)
		n = jvm_sym_interpreted(jp->sym, r->ptr, r->check,
		    (int)r->off, f) == 0 ? 1 : -1;
	if (n <= 0) {
		cb("[unknown java]", NULL, arg);
		return -1;
	}
	for (i = n; i-- > 0;) {
		rt->frames++;
		where.func = f[i].func;
		where.file = f[i].file;
		where.line = f[i].line > 0 ? f[i].line : 0;
		if (f[i].file != NULL && f[i].line > 0)
			snprintf(rt->name, sizeof(rt->name), "%s (%s:%d)",
			    f[i].func, f[i].file, f[i].line);
		else
			snprintf(rt->name, sizeof(rt->name), "%s", f[i].func);
		cb(rt->name, &where, arg);
	}
	return 0;
}

const struct runtime_ops jvm_runtime = {
	.name = "jvm",
	.pid_type = 0,
	.create = jvm_runtime_create,
	.free = jvm_runtime_free,
	.configure = jvm_runtime_configure,
	.open = jvm_runtime_open,
	.again = jvm_runtime_again,
	.close = jvm_runtime_close,
	.log_state = jvm_runtime_log_state,
};
