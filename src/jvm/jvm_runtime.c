/*
 * HotSpot as a runtime plug-in (runtime/runtime.h): a process that maps
 * libjvm.so is opened when first sampled (jvm.c), refused with a
 * counted reason when its JVM cannot be read.  Once its code heaps
 * exist, the walker is told where they are and how its blobs are laid
 * out (jvm_info, bpf/jvmperf.h); the native walk then steps over Java
 * frames and records each, and jvm_runtime_name() names a record -- an
 * nmethod or a Method, the pc's offset or the bci, and the check the
 * walker read with it -- for jvm_stack.c, which puts the names among
 * the native frames.
 */
#include <sys/types.h>

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/profile.h"
#include "config/config.h"
#include "jvm.h"
#include "jvm_runtime.h"
#include "jvm_stack.h"
#include "jvm_sym.h"
#include "proc/procmaps.h"
#include "session/session.h"
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
	struct session		*session;
	int			 enabled;
	size_t			 nprocs;
	uint64_t		 found;
	uint64_t		 refused[JVM_REFUSE_MAX];
	struct jvm_refused	 recent[JVM_REFUSED_MAX];
	size_t			 nrecent;
	struct jvm_sym_stats	 gone;	/* of closed processes */
	uint64_t		 frames;
	uint64_t		 unnamed;	/* records not named */
	uint64_t		 walked;	/* JVMs the walker knows */
	uint64_t		 lost;		/* stacks of records gone */
	char			 name[JVM_NAME_MAX];
	char			 func[JVM_NAME_MAX / 2];
};

static void *
jvm_runtime_create(const struct runtime_env *env)
{
	struct jvm_rt	*rt;

	rt = xcalloc(1, sizeof(*rt));
	rt->session = env->session;
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

/* A field's offset for the walker: -1 when it does not fit. */
static int
jvm_info_u16(uint64_t v, uint16_t *to)
{
	if (v > UINT16_MAX)
		return -1;
	*to = (uint16_t)v;
	return 0;
}

/*
 * What the walker needs of the JVM: its heaps, up to their reserved
 * end (they grow), and where a blob keeps what a step reads.  The
 * interpreter's frame (Method at rbp-24, bcp at rbp-64) is the same in
 * every JDK since 9 on x86_64; vmStructs does not export it.
 */
static int
jvm_info_fill(const struct jvm_proc *jp, struct profile_jvm_info *ji)
{
	const struct jvm_layout	*l = &jp->lay;
	size_t			 i;

	memset(ji, 0, sizeof(*ji));
	if (!jp->cc_ok || jp->cc.nheaps == 0 ||
	    jp->cc.nheaps > PROFILE_JVM_HEAPS)
		return -1;
	ji->cc_low = jp->cc.low;
	ji->cc_high = jp->cc.high;
	for (i = 0; i < jp->cc.nheaps; i++) {
		ji->heap[i].low = jp->cc.heaps[i].low;
		ji->heap[i].high = jp->cc.heaps[i].reserved;
		ji->heap[i].segmap = jp->cc.heaps[i].segmap;
		ji->heap[i].shift = jp->cc.heaps[i].shift;
	}
	ji->nheaps = jp->cc.nheaps;
	if (jvm_info_u16(l->heapblock_size, &ji->heapblock_size) == -1 ||
	    jvm_info_u16(l->cb_name, &ji->cb_name) == -1 ||
	    jvm_info_u16(l->cb_frame_size, &ji->cb_frame_size) == -1 ||
	    jvm_info_u16(l->cb_frame_complete, &ji->cb_frame_complete) ==
	    -1 ||
	    jvm_info_u16(l->cb_code_begin, &ji->cb_code_begin) == -1 ||
	    jvm_info_u16(l->nm_compile_id, &ji->nm_compile_id) == -1 ||
	    jvm_info_u16(l->method_constmethod, &ji->method_constmethod) ==
	    -1 ||
	    jvm_info_u16(l->cm_size, &ji->cm_size) == -1)
		return -1;
	ji->cb_frame_complete_size = l->cb_frame_complete_size == 2 ? 2 : 4;
	ji->cb_code_ptrs = l->cb_code_ptrs != 0;
	ji->fp_method = -24;
	ji->fp_bcp = -64;
	return 0;
}

/* Tell the walker of a JVM whose heaps are made, once. */
static void
jvm_runtime_walk(struct jvm_rt *rt, struct jvm_proc *jp)
{
	struct profile_jvm_info	 ji;

	if (jp->info_set || rt->session == NULL ||
	    jvm_proc_codecache(jp) == -1 || jvm_info_fill(jp, &ji) == -1)
		return;
	if (session_jvminfo_set(rt->session, jp->pid, &ji) == -1) {
		log_warn("pid %d: the JVM cannot be described to the walker",
		    (int)jp->pid);
		return;
	}
	jp->info_set = 1;
	rt->walked++;
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
	jvm_runtime_walk(rt, jp);
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
		jvm_runtime_walk(self, st);
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
	if (jp->info_set && rt->session != NULL)
		(void)session_jvminfo_delete(rt->session, jp->pid);
	jvm_stacks_free(rt->session, jp);
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
	st->walked = rt->walked;
	st->unnamed = rt->unnamed;
	st->lost = rt->lost;
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
	log_info("jvm: %s, %zu processes; found %llu, walked %llu; "
	    "refused%s; %llu frames named, %llu not, %llu stacks lost; "
	    "of closed "
	    "processes: %llu frames unnamed, %llu stale, %llu methods and "
	    "%llu nmethods read",
	    rt->enabled ? "enabled" : "disabled", rt->nprocs,
	    (unsigned long long)rt->found, (unsigned long long)rt->walked,
	    refused, (unsigned long long)rt->frames,
	    (unsigned long long)rt->unnamed, (unsigned long long)rt->lost,
	    (unsigned long long)rt->gone.unnamed,
	    (unsigned long long)rt->gone.stale,
	    (unsigned long long)rt->gone.methods,
	    (unsigned long long)rt->gone.nmethods);
}

/*
 * A method's name without the address a hidden class (a lambda's)
 * carries, "Main$$Lambda+0x7f77680a08.run" -> "Main$$Lambda.run": one
 * name for every JVM that runs it, not one a process.
 */
static void
jvm_runtime_func(const char *func, char *d, size_t room)
{
	size_t	 n = 0;

	while (*func != '\0' && n + 1 < room) {
		if (func[0] == '+' && func[1] == '0' && func[2] == 'x') {
			func += 3;
			while (isxdigit((unsigned char)*func))
				func++;
			continue;
		}
		d[n++] = *func++;
	}
	d[n] = '\0';
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
		rt->unnamed++;
		cb("[unknown java]", NULL, arg);
		return -1;
	}
	for (i = n; i-- > 0;) {
		rt->frames++;
		jvm_runtime_func(f[i].func, rt->func, sizeof(rt->func));
		where.func = rt->func;
		where.file = f[i].file;
		where.line = f[i].line > 0 ? f[i].line : 0;
		/* The line goes to pprof: a frame a function, as V8's. */
		if (f[i].file != NULL)
			snprintf(rt->name, sizeof(rt->name), "%s (%s)",
			    rt->func, f[i].file);
		else
			snprintf(rt->name, sizeof(rt->name), "%s", rt->func);
		cb(rt->name, &where, arg);
	}
	return 0;
}

static int
jvm_runtime_stack_seen(void *self, void *st, uint64_t id, uint64_t ustack)
{
	struct jvm_rt	*rt = self;

	(void)ustack;
	return jvm_stack_seen(rt->session, rt, st, id);
}

static int
jvm_runtime_stack_merge(void *self, void *st, uint64_t id, size_t n,
    runtime_native_cb native, runtime_frame_cb cb, void *arg)
{
	struct jvm_rt	*rt = self;

	if (jvm_stack_merge(rt->session, rt, st, id, n, native, cb, arg) ==
	    -1) {
		rt->lost++;
		return -1;
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
	.stack_seen = jvm_runtime_stack_seen,
	.log_state = jvm_runtime_log_state,
	.stack_merge = jvm_runtime_stack_merge,
};
