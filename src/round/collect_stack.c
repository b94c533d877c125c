/*
 * The names of a count's stack.  Each stack is rooted at the process's
 * comm; user frames come first (outermost to innermost), kernel frames
 * on top of them.  Return addresses are looked up at address - 1, the
 * call instruction, so a call that ends a function is not named after
 * the next function.
 *
 * A stack named in an earlier round under the same generation of the
 * process's mappings (or the kernel's symbols) gets the names it had
 * then (src/round/stacknames.c); else it is named frame by frame
 * (src/round/collect_frame.c) and kept, unless a name may change meanwhile.
 */
#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "bpf/profile.h"
#include "bpf/unwind.h"
#include "collect_frame.h"
#include "collect_stack.h"
#include "pids.h"
#include "profile/frametab.h"
#include "runtime/runtime.h"
#include "sym/resolve.h"
#include "session/session.h"
#include "stacknames.h"
#include "sym/symstats.h"
#include "proc/target.h"
#include "util/xmalloc.h"

#define COLLECT_STACK_MAX	(1 + 2 * PROFILE_STACK_DEPTH + 2 + \
				    PROFILE_PY_DEPTH + 1)
/* Named stacks unused this many rounds are forgotten. */
#define COLLECT_STACK_ROUNDS	3

struct collect_stack {
	struct session		*session;
	struct resolve		*resolve;
	struct symstats		*symstats;	/* names found, per service */
	struct stacknames	*names;		/* kept across rounds */
	uint64_t		 names_epoch;	/* of resolve's names */
	uint32_t		 ids[COLLECT_STACK_MAX];	/* a stack */
	size_t			 n;
	uint32_t		 unknown[COLLECT_STACK_MAX];
	uint32_t		 fids[COLLECT_FRAME_INLINE_MAX]; /* a frame */
	uint32_t		 comm_id;	/* the last comm interned */
	uint64_t		 lost;
};

struct collect_stack *
collect_stack_create(struct session *session, struct resolve *resolve,
    struct symstats *symstats)
{
	struct collect_stack	*cs;

	cs = xcalloc(1, sizeof(*cs));
	cs->session = session;
	cs->resolve = resolve;
	cs->symstats = symstats;
	cs->names = stacknames_create(COLLECT_STACK_ROUNDS, 4 * 32768);
	cs->names_epoch = resolve_epoch(resolve);
	return cs;
}

void
collect_stack_free(struct collect_stack *cs)
{
	if (cs == NULL)
		return;
	stacknames_free(cs->names);
	free(cs);
}

void
collect_stack_round_start(struct collect_stack *cs, size_t stacks)
{
	if (resolve_epoch(cs->resolve) != cs->names_epoch) {
		/* Names come out otherwise now: name every stack again. */
		stacknames_clear(cs->names);
		cs->names_epoch = resolve_epoch(cs->resolve);
	}
	stacknames_configure(cs->names, COLLECT_STACK_ROUNDS, 4 * stacks);
}

void
collect_stack_round_end(struct collect_stack *cs)
{
	stacknames_round_end(cs->names);
}

struct stacknames *
collect_stack_names(struct collect_stack *cs)
{
	return cs->names;
}

uint64_t
collect_stack_lost(struct collect_stack *cs)
{
	return cs->lost;
}

/* Append a name, a frame of no details, to the stack being built. */
static void
collect_stack_add(struct collect_stack *cs, const char *name)
{
	if (cs->n >= COLLECT_STACK_MAX)
		return;
	cs->ids[cs->n++] = stacknames_loc(cs->names, name, NULL);
}

/*
 * A frame a runtime named (Python's): its name, and its function, file
 * and line for pprof.
 */
static void
collect_stack_add_cb(const char *name, const struct runtime_where *w,
    void *arg)
{
	struct collect_stack	*cs = arg;
	struct frametab_frame	 f;

	if (w == NULL) {
		collect_stack_add(cs, name);
		return;
	}
	if (cs->n >= COLLECT_STACK_MAX)
		return;
	memset(&f, 0, sizeof(f));
	f.func = stacknames_intern(cs->names, w->func);
	if (w->file != NULL && *w->file != '\0')
		f.file = stacknames_intern(cs->names, w->file);
	f.line = w->line;
	cs->ids[cs->n++] = stacknames_loc(cs->names, name, &f);
}

/*
 * A stack's root, the process's comm: most counts of a round are of a
 * few processes, so the last one interned is checked first.  Its name,
 * and its having no mapping, say whether the location is still it
 * (names are cleared now and then, and a function may have its name).
 */
static void
collect_stack_comm(struct collect_stack *cs, const char *comm)
{
	const struct frametab_loc	*l;

	l = frametab_loc(stacknames_frames(cs->names), cs->comm_id);
	if (*comm == '\0' || l == NULL || l->f.map != 0 || l->f.file != 0 ||
	    strcmp(stacknames_name(cs->names, l->name), comm) != 0)
		cs->comm_id = stacknames_loc(cs->names, comm, NULL);
	cs->ids[cs->n++] = cs->comm_id;
}

/*
 * A stack named in an earlier round, of the same generation: its names,
 * and the frame counts it had then.  1 if it was there.
 */
static int
collect_stack_cached(struct collect_stack *cs, const char *service,
    uint64_t gen, uint64_t id, int user)
{
	const uint32_t	*ids;
	size_t		 n, nunknown, i, room;

	if ((ids = stacknames_get(cs->names, gen, id, &n, &nunknown)) == NULL)
		return 0;
	/* Sampled: the stack store must know, though not read it. */
	session_stack_touch(cs->session, id);
	room = COLLECT_STACK_MAX - cs->n;
	memcpy(cs->ids + cs->n, ids, (n < room ? n : room) * sizeof(*ids));
	cs->n += n < room ? n : room;
	if (user) {
		/* Counted as when it was named: all its frames. */
		symstats_known(cs->symstats, service, n - nunknown);
		for (i = 0; i < nunknown; i++)
			symstats_frame(cs->symstats, service,
			    stacknames_loc_name(cs->names, ids[n + i]));
	}
	return 1;
}

/* The n frames of a process whose mappings are gone: all unknown. */
static void
collect_stack_unknown(struct collect_stack *cs, const char *service,
    size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		symstats_frame(cs->symstats, service, "[unknown]");
		collect_stack_add(cs, "[unknown]");
	}
}

/*
 * The frames of a native stack, outermost first, named or found named.
 * User frames are counted per service, named or not.
 */
static void
collect_stack_native(struct collect_stack *cs, struct pids_proc *proc,
    uint64_t id, int user)
{
	struct resolve_proc	*rp = pids_proc_resolve(proc);
	const char		*service;
	const uint32_t		*ids;
	const uint64_t		*ip;
	size_t			 n, i, j, nn, skip, start = cs->n, nunknown = 0;
	uint64_t		 unstable, known = 0;
	uint32_t		 flags;

	if (id == 0)
		return;
	service = pids_proc_service(proc)->service;
	if ((!user || rp != NULL) && collect_stack_cached(cs, service,
	    collect_frame_gen(cs->resolve, rp, user), id, user))
		return;
	if ((ip = session_stack_get(cs->session, id, &n)) == NULL) {
		cs->lost++;
		collect_stack_add(cs, "[lost stack]");
		return;
	}
	/* A walk cut short (bpf/unwind.h): said at the outer end. */
	if (user && n > 0 && ip[n - 1] == UNWIND_TRUNCATED_IP) {
		collect_stack_add(cs, "[truncated]");
		n--;
	}
	if (user && rp == NULL) {
		collect_stack_unknown(cs, service, n);
		return;
	}
	unstable = resolve_unstable(cs->resolve);
	/*
	 * A kernel stack walked from a tracepoint starts in the tracing
	 * machinery and our own program: not the task's, drop them.
	 */
	skip = 0;
	while (!user && skip < n) {
		(void)collect_frame_name(cs->names, cs->resolve, NULL, 0,
		    skip > 0 ? ip[skip] - 1 : ip[skip], &nn, &flags, cs->fids);
		if (!(flags & COLLECT_FRAME_BPF))
			break;
		skip++;
	}
	for (i = n; i-- > skip;) {
		ids = collect_frame_name(cs->names, cs->resolve, rp, user,
		    i > 0 ? ip[i] - 1 : ip[i], &nn, &flags, cs->fids);
		for (j = 0; j < nn; j++) {
			if (cs->n < COLLECT_STACK_MAX)
				cs->ids[cs->n++] = ids[j];
			if (!user)
				continue;
			if (!(flags & COLLECT_FRAME_UNKNOWN(j))) {
				known++;
				continue;
			}
			symstats_frame(cs->symstats, service,
			    stacknames_loc_name(cs->names, ids[j]));
			if (nunknown < COLLECT_STACK_MAX)
				cs->unknown[nunknown++] = ids[j];
		}
	}
	if (user)
		symstats_known(cs->symstats, service, known);
	if (resolve_unstable(cs->resolve) != unstable ||
	    cs->n >= COLLECT_STACK_MAX)
		return;
	stacknames_put(cs->names, collect_frame_gen(cs->resolve, rp, user),
	    id, cs->ids + start, cs->n - start, cs->unknown, nunknown);
}

/* A stack being merged: the native frames and what names them. */
struct collect_merge {
	struct collect_stack	*cs;
	struct resolve_proc	*rp;
	const uint64_t		*ip;
	const char		*service;
	uint64_t		 known;
};

/* A native frame among a runtime's, named as any native frame. */
static void
collect_stack_merge_cb(size_t i, void *arg)
{
	struct collect_merge	*m = arg;
	struct collect_stack	*cs = m->cs;
	const uint32_t		*ids;
	size_t			 j, nn;
	uint32_t		 flags;

	if (m->rp == NULL) {
		symstats_frame(cs->symstats, m->service, "[unknown]");
		collect_stack_add(cs, "[unknown]");
		return;
	}
	ids = collect_frame_name(cs->names, cs->resolve, m->rp, 1,
	    i > 0 ? m->ip[i] - 1 : m->ip[i], &nn, &flags, cs->fids);
	for (j = 0; j < nn; j++) {
		if (cs->n < COLLECT_STACK_MAX)
			cs->ids[cs->n++] = ids[j];
		if (!(flags & COLLECT_FRAME_UNKNOWN(j)))
			m->known++;
		else
			symstats_frame(cs->symstats, m->service,
			    stacknames_loc_name(cs->names, ids[j]));
	}
}

/* A runtime frame among the native ones: named, so known. */
static void
collect_stack_merge_rt_cb(const char *name, const struct runtime_where *w,
    void *arg)
{
	struct collect_merge	*m = arg;

	m->known++;
	collect_stack_add_cb(name, w, m->cs);
}

/*
 * The user stack of a process whose runtime's frames are native frames
 * too (V8): each native frame the walk recorded named by the runtime,
 * the others as native frames.  Without its records, its native stack.
 */
static void
collect_stack_merge(struct collect_stack *cs, struct pids_proc *proc,
    const struct profile_key *key, const struct runtime_proc *rt)
{
	struct collect_merge	 m;
	size_t			 n;

	memset(&m, 0, sizeof(m));
	m.cs = cs;
	m.rp = pids_proc_resolve(proc);
	m.service = pids_proc_service(proc)->service;
	if (key->ustack == 0 || (m.ip = session_stack_get(cs->session,
	    key->ustack, &n)) == NULL) {
		collect_stack_native(cs, proc, key->ustack, 1);
		return;
	}
	if (n > 0 && m.ip[n - 1] == UNWIND_TRUNCATED_IP) {
		collect_stack_add(cs, "[truncated]");
		n--;
	}
	if (runtime_stack_merge(rt, key->pystack, n, collect_stack_merge_cb,
	    collect_stack_merge_rt_cb, &m) == -1) {
		/* Its records are gone: the native names. */
		cs->lost++;
		while (n-- > 0)
			collect_stack_merge_cb(n, &m);
	}
	symstats_known(cs->symstats, m.service, m.known);
}

/*
 * The user frames of a process a runtime's walker walks (Python's): its
 * runtime's stack, outermost first, then the native frames that ran
 * above the runtime at the sample (a C extension, libc), innermost
 * last.  Without that stack (a thread that runs no Python), its native
 * stack as any process's.
 */
static void
collect_stack_runtime(struct collect_stack *cs, struct pids_proc *proc,
    const struct profile_key *key)
{
	struct resolve_proc	*rp = pids_proc_resolve(proc);
	struct runtime_proc	 rt;
	const uint64_t		*ip = NULL;
	const uint32_t		*ids;
	size_t			 i, j, above = 0, nip = 0, nn;
	uint32_t		 flags;

	pids_proc_stack_runtime(proc, &rt);
	if (rt.ops != NULL && rt.ops->stack_merge != NULL) {
		collect_stack_merge(cs, proc, key, &rt);
		return;
	}
	if (runtime_stack_names(&rt, key->pystack, collect_stack_add_cb,
	    cs) == -1) {
		cs->lost++;
		collect_stack_add(cs, "[lost python stack]");
		collect_stack_native(cs, proc, key->ustack, 1);
		return;
	}
	if (key->ustack != 0 && rt.st != NULL && (ip =
	    session_stack_get(cs->session, key->ustack, &nip)) != NULL) {
		if (nip > 0 && ip[nip - 1] == UNWIND_TRUNCATED_IP)
			nip--;
		above = runtime_native_above(&rt, ip, nip);
	}
	for (i = above; i-- > 0;) {
		if (rp == NULL) {
			collect_stack_add(cs, "[unknown]");
			continue;
		}
		/* Named as any native frame: kept, with its location. */
		ids = collect_frame_name(cs->names, cs->resolve, rp, 1,
		    i > 0 ? ip[i] - 1 : ip[i], &nn, &flags, cs->fids);
		for (j = 0; j < nn && cs->n < COLLECT_STACK_MAX; j++)
			cs->ids[cs->n++] = ids[j];
	}
}

const uint32_t *
collect_stack_name(struct collect_stack *cs, struct pids_proc *proc,
    const struct profile_key *key, size_t *n)
{
	cs->n = 0;
	collect_stack_comm(cs, pids_proc_comm(proc));
	if (key->pystack != 0)
		collect_stack_runtime(cs, proc, key);
	else
		collect_stack_native(cs, proc, key->ustack, 1);
	collect_stack_native(cs, proc, key->kstack, 0);
	*n = cs->n;
	return cs->ids;
}
