/*
 * The records of Java frames the BPF walker stored (bpf/jvmperf.h),
 * named when userspace first hears of them (PROFILE_EVENT_PYSTACK),
 * while the process lives: the JIT may free an nmethod, class
 * unloading a Method, and the process may exit before the round.  Each
 * stack of records is kept by its id with its frames for as long as
 * the process is, and so is its BPF copy: the walker finds it there and
 * tells no one again.  A record gives one frame, or several when the
 * compiler inlined methods into it; a native frame without a record
 * stays as the native walk named it.  Names, functions and files are
 * ids in the stacks' interned names (three copies of each frame's
 * strings cost 17 MB a busy JVM).
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/profile.h"
#include "jvm.h"
#include "jvm_runtime.h"
#include "jvm_stack.h"
#include "session/session.h"
#include "util/intern.h"
#include "util/xmalloc.h"

#define JVM_NO_FILE	UINT32_MAX

/* One frame a record gives; its strings are ids in jp->stacks.names. */
struct jvm_sframe {
	uint16_t	 index;		/* its native frame */
	uint32_t	 name;		/* as folded files show it */
	uint32_t	 func;
	uint32_t	 file;		/* JVM_NO_FILE: none */
	int		 line;		/* 0: none */
};

/* Innermost first: a record's frames too, the inlined ones first. */
struct jvm_stack {
	uint64_t		 id;
	size_t			 n;
	struct jvm_sframe	*f;
};

/* The frames one record gives, outermost first, as they are named. */
struct jvm_group {
	struct jvm_sframe	 f[JVM_SYM_INLINE_MAX + 1];
	size_t			 n;
	uint16_t		 index;
	struct intern		*names;
};

static void
jvm_stack_clear(void *arg)
{
	struct jvm_stack	*s = arg;

	free(s->f);
}

void
jvm_stacks_free(struct session *session, struct jvm_proc *jp)
{
	rt_stacks_free(&jp->stacks, session, jvm_stack_clear);
}

static void
jvm_group_cb(const char *name, const struct runtime_where *w, void *arg)
{
	struct jvm_group	*g = arg;
	struct jvm_sframe	*f;

	if (g->n >= sizeof(g->f) / sizeof(g->f[0]))
		return;
	f = &g->f[g->n++];
	f->index = g->index;
	f->name = intern_add(g->names, name);
	f->func = intern_add(g->names,
	    w != NULL && w->func != NULL ? w->func : name);
	f->file = w != NULL && w->file != NULL ?
	    intern_add(g->names, w->file) : JVM_NO_FILE;
	f->line = w != NULL ? w->line : 0;
}

/* One record of the walker to its frames, outermost first, in g. */
static void
jvm_stack_record(void *rt, struct jvm_proc *jp,
    const struct profile_rt_frame *rf, struct jvm_group *g)
{
	const struct jvm_method	*m;
	struct jvm_record	 r;
	struct jvm_blob		 b;
	uint64_t		 cm;

	g->n = 0;
	g->index = rf->index;
	memset(&r, 0, sizeof(r));
	r.ptr = rf->ptr;
	r.off = rf->offset;
	r.leaf = rf->index == 0;
	switch (rf->kind) {
	case PROFILE_RT_JVM_JIT:
		r.kind = JVM_RECORD_COMPILED;
		r.check = rf->check;
		break;
	case PROFILE_RT_JVM_INTERP:
		/*
		 * The walker kept the ConstMethod's low bits: the Method is
		 * the one sampled if its ConstMethod is still that one.
		 */
		r.kind = JVM_RECORD_INTERPRETED;
		/*
		 * A Method named before is checked against the walker's
		 * bits without a read: a stack heard of late, its JVM
		 * gone, still gets its names (t7112 under CI load: the
		 * last half second of an -Xint run was [unknown java]).
		 */
		if ((m = jvm_sym_method_cached(jp->sym, rf->ptr)) != NULL &&
		    (uint32_t)(m->constmethod >> 3) == rf->check)
			cm = m->constmethod;
		else if (jvm_mem_u64(&jp->mem, rf->ptr +
		    jp->lay.method_constmethod, &cm) == -1 ||
		    (uint32_t)(cm >> 3) != rf->check)
			cm = 1;		/* no Method has it: unnamed */
		r.check = cm;
		break;
	case PROFILE_RT_JVM_STUB:
		if (jvm_codecache_blob(&jp->mem, &jp->lay, rf->ptr, &b) == 0)
			jvm_group_cb(b.name, NULL, g);
		return;
	default:
		return;
	}
	(void)jvm_runtime_name(rt, jp, &r, jvm_group_cb, g);
}

int
jvm_stack_seen(struct session *session, void *rt, struct jvm_proc *jp,
    uint64_t id)
{
	struct profile_rtstack	 rs;
	struct jvm_group	 g;
	struct jvm_stack	*s;
	size_t			 i, j, n, k;

	if (id == 0 || rt_stacks_find(&jp->stacks, id) != NULL ||
	    session_rtstack_read(session, id, &rs) == -1 ||
	    (s = rt_stacks_add(&jp->stacks, session, id, sizeof(*s),
	    jvm_stack_clear)) == NULL)
		return 0;
	g.names = jp->stacks.names;
	n = rs.n < PROFILE_RT_DEPTH ? rs.n : PROFILE_RT_DEPTH;
	for (i = 0; i < n; i++) {
		jvm_stack_record(rt, jp, &rs.f[i], &g);
		if (g.n == 0)
			continue;
		k = s->n;
		s->n += g.n;
		s->f = xreallocarray(s->f, s->n, sizeof(*s->f));
		for (j = 0; j < g.n; j++)
			s->f[k + j] = g.f[g.n - 1 - j];
	}
	return 0;
}

int
jvm_stack_merge(struct session *session, void *rt, struct jvm_proc *jp,
    uint64_t id, size_t n, runtime_native_cb native, runtime_frame_cb cb,
    void *arg)
{
	struct runtime_where	 w;
	const struct jvm_stack	*s;
	const struct jvm_sframe	*f;
	size_t			 i, k;
	int			 named;

	/* Not heard of (its event lost): read now, if it still can be. */
	if (rt_stacks_find(&jp->stacks, id) == NULL)
		(void)jvm_stack_seen(session, rt, jp, id);
	if ((s = rt_stacks_find(&jp->stacks, id)) == NULL)
		return -1;
	/* Frames go innermost first, as the native frames do. */
	k = s->n;
	for (i = n; i-- > 0;) {
		while (k > 0 && s->f[k - 1].index > i)
			k--;
		named = 0;
		while (k > 0 && s->f[k - 1].index == i) {
			f = &s->f[--k];
			memset(&w, 0, sizeof(w));
			w.func = intern_name(jp->stacks.names, f->func);
			w.file = f->file == JVM_NO_FILE ? NULL :
			    intern_name(jp->stacks.names, f->file);
			w.line = f->line;
			cb(intern_name(jp->stacks.names, f->name), &w, arg);
			named = 1;
		}
		if (!named)
			native(i, arg);
	}
	return 0;
}
