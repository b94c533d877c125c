/*
 * The records of V8 frames the BPF walker stored (bpf/rtframe.bpf.h),
 * named when userspace first hears of them (PROFILE_EVENT_PYSTACK),
 * while the process lives: the GC may move or free a function after,
 * and the process may exit before the round.  Each stack of records is
 * kept by its id with its names, for as long as the process is, and so
 * is its BPF copy: the walker finds it there and tells no one again.
 * A recorded native frame shows its function, "name (file.js)", the
 * others stay as the native walk named them.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/profile.h"
#include "session/session.h"
#include "util/hash.h"
#include "util/xmalloc.h"
#include "v8_int.h"

#define V8_STACKS_MAX	(64 * 1024)	/* per process */
#define V8_NAME_MAX	1024

static struct v8_stack *
v8_stack_slot(struct v8_stack *v, size_t size, uint64_t id)
{
	size_t	 i = hash_mix(id) & (size - 1);

	while (v[i].id != 0 && v[i].id != id)
		i = (i + 1) & (size - 1);
	return &v[i];
}

static void
v8_stack_clear(struct v8_stack *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++) {
		free(s->f[i].name);
		free(s->f[i].file);
	}
	free(s->f);
	memset(s, 0, sizeof(*s));
}

void
v8_stacks_free(struct v8 *v, struct v8_proc *vp)
{
	size_t	 i;

	for (i = 0; i < vp->size; i++) {
		if (vp->stacks[i].id != 0)
			(void)session_rtstack_delete(v->session,
			    vp->stacks[i].id);
		v8_stack_clear(&vp->stacks[i]);
	}
	free(vp->stacks);
	vp->stacks = NULL;
	vp->size = vp->n = 0;
}

/* Room for one more stack: the table doubled, or emptied when full. */
static void
v8_stacks_room(struct v8 *v, struct v8_proc *vp)
{
	struct v8_stack	*old = vp->stacks;
	size_t		 i, size = vp->size;

	if (2 * (vp->n + 1) <= vp->size)
		return;
	if (vp->n >= V8_STACKS_MAX)
		v8_stacks_free(v, vp);
	vp->size = vp->size == 0 ? 64 : 2 * vp->size;
	vp->stacks = xcalloc(vp->size, sizeof(*vp->stacks));
	for (i = 0; old != NULL && i < size; i++) {
		if (old[i].id != 0)
			*v8_stack_slot(vp->stacks, vp->size, old[i].id) =
			    old[i];
	}
	free(old);
}

int
v8_stack_seen(struct v8 *v, struct v8_proc *vp, uint64_t id)
{
	struct profile_rtstack	 rs;
	struct v8_stack		*s;
	struct v8_func		 fn;
	enum v8_unnamed		 why;
	size_t			 i, n;

	if (id == 0 || session_rtstack_read(v->session, id, &rs) == -1)
		return 0;
	v->st.stacks++;
	n = rs.n < PROFILE_RT_DEPTH ? rs.n : PROFILE_RT_DEPTH;
	v8_stacks_room(v, vp);
	s = v8_stack_slot(vp->stacks, vp->size, id);
	if (s->id != 0)
		return 0;
	s->id = id;
	s->n = n;
	s->f = xcalloc(n > 0 ? n : 1, sizeof(*s->f));
	vp->n++;
	for (i = 0; i < n; i++) {
		s->f[i].index = rs.f[i].index;
		if (v8_sym_func(vp->sym, rs.f[i].ptr, &fn, &why) == -1) {
			v->st.unnamed[why]++;
			continue;
		}
		v->st.named++;
		s->f[i].name = xstrdup(fn.name);
		s->f[i].file = xstrdup(fn.file);
	}
	return 0;
}

/* "name (file.js)": the script's base name, node's own as they are. */
static void
v8_stack_display(const struct v8_frame *f, char *d, size_t room)
{
	const char	*base;

	if (f->file == NULL || *f->file == '\0') {
		snprintf(d, room, "%s", f->name);
		return;
	}
	base = strrchr(f->file, '/');
	if (strncmp(f->file, "node:", 5) == 0 || base == NULL ||
	    base[1] == '\0')
		base = f->file;
	else
		base++;
	snprintf(d, room, "%s (%s)", f->name, base);
}

int
v8_stack_merge(struct v8 *v, struct v8_proc *vp, uint64_t id, size_t n,
    runtime_native_cb native, runtime_frame_cb cb, void *arg)
{
	struct runtime_where	 w;
	const struct v8_stack	*s;
	const struct v8_frame	*f;
	char			 name[V8_NAME_MAX];
	size_t			 i, k;

	/* Not heard of (its event lost): read now, if it still can be. */
	if (vp->size == 0 || v8_stack_slot(vp->stacks, vp->size, id)->id == 0)
		(void)v8_stack_seen(v, vp, id);
	if (vp->size == 0 || (s = v8_stack_slot(vp->stacks, vp->size,
	    id))->id == 0) {
		v->st.lost++;
		return -1;
	}
	/* Records go innermost first, as the native frames do. */
	k = s->n;
	for (i = n; i-- > 0;) {
		while (k > 0 && s->f[k - 1].index > i)
			k--;
		f = k > 0 && s->f[k - 1].index == i ? &s->f[k - 1] : NULL;
		if (f == NULL || f->name == NULL) {
			native(i, arg);
			continue;
		}
		v8_stack_display(f, name, sizeof(name));
		memset(&w, 0, sizeof(w));
		w.func = f->name;
		w.file = f->file;
		cb(name, &w, arg);
	}
	return 0;
}
