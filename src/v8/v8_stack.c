/*
 * The records of V8 frames the BPF walker stored (bpf/rtframe.bpf.h),
 * named when userspace first hears of them (PROFILE_EVENT_PYSTACK),
 * while the process lives: the GC may move or free a function after,
 * and the process may exit before the round.  Each stack of records is
 * kept by its id with its names, for as long as the process is, and so
 * is its BPF copy: the walker finds it there and tells no one again.
 * A recorded native frame shows its function, "name (file.js)", the
 * others stay as the native walk named them.  Names are ids in the
 * stacks' interned names, not copies a frame.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/profile.h"
#include "session/session.h"
#include "util/intern.h"
#include "util/xmalloc.h"
#include "v8_int.h"

#define V8_NAME_MAX	1024

static void
v8_stack_clear(void *arg)
{
	struct v8_stack	*s = arg;

	free(s->f);
}

void
v8_stacks_free(struct v8 *v, struct v8_proc *vp)
{
	rt_stacks_free(&vp->stacks, v->session, v8_stack_clear);
}

int
v8_stack_seen(struct v8 *v, struct v8_proc *vp, uint64_t id)
{
	struct profile_rtstack	 rs;
	struct v8_stack		*s;
	struct v8_func		 fn;
	enum v8_unnamed		 why;
	size_t			 i, n;

	if (id == 0 || rt_stacks_find(&vp->stacks, id) != NULL ||
	    session_rtstack_read(v->session, id, &rs) == -1 ||
	    (s = rt_stacks_add(&vp->stacks, v->session, id, sizeof(*s),
	    v8_stack_clear)) == NULL)
		return 0;
	v->st.stacks++;
	n = rs.n < PROFILE_RT_DEPTH ? rs.n : PROFILE_RT_DEPTH;
	s->n = n;
	s->f = xcalloc(n > 0 ? n : 1, sizeof(*s->f));
	for (i = 0; i < n; i++) {
		s->f[i].index = rs.f[i].index;
		s->f[i].name = V8_NO_NAME;
		if (v8_sym_func(vp->sym, rs.f[i].ptr, &fn, &why) == -1) {
			v->st.unnamed[why]++;
			continue;
		}
		v->st.named++;
		s->f[i].name = intern_add(vp->stacks.names, fn.name);
		s->f[i].file = intern_add(vp->stacks.names,
		    fn.file != NULL ? fn.file : "");
	}
	return 0;
}

/* "name (file.js)": the script's base name, node's own as they are. */
static void
v8_stack_display(const char *name, const char *file, char *d, size_t room)
{
	const char	*base;

	if (*file == '\0') {
		snprintf(d, room, "%s", name);
		return;
	}
	base = strrchr(file, '/');
	if (strncmp(file, "node:", 5) == 0 || base == NULL ||
	    base[1] == '\0')
		base = file;
	else
		base++;
	snprintf(d, room, "%s (%s)", name, base);
}

int
v8_stack_merge(struct v8 *v, struct v8_proc *vp, uint64_t id, size_t n,
    runtime_native_cb native, runtime_frame_cb cb, void *arg)
{
	struct runtime_where	 w;
	const struct v8_stack	*s;
	const struct v8_frame	*f;
	const char		*fn, *file;
	char			 name[V8_NAME_MAX];
	size_t			 i, k;

	/* Not heard of (its event lost): read now, if it still can be. */
	if (rt_stacks_find(&vp->stacks, id) == NULL)
		(void)v8_stack_seen(v, vp, id);
	if ((s = rt_stacks_find(&vp->stacks, id)) == NULL) {
		v->st.lost++;
		return -1;
	}
	/* Records go innermost first, as the native frames do. */
	k = s->n;
	for (i = n; i-- > 0;) {
		while (k > 0 && s->f[k - 1].index > i)
			k--;
		f = k > 0 && s->f[k - 1].index == i ? &s->f[k - 1] : NULL;
		if (f == NULL || f->name == V8_NO_NAME) {
			native(i, arg);
			continue;
		}
		fn = intern_name(vp->stacks.names, f->name);
		file = intern_name(vp->stacks.names, f->file);
		v8_stack_display(fn, file, name, sizeof(name));
		memset(&w, 0, sizeof(w));
		w.func = fn;
		w.file = file;
		cb(name, &w, arg);
	}
	return 0;
}
