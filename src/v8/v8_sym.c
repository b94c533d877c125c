/*
 * V8 functions named from a process's memory: SharedFunctionInfo ->
 * name (a String, or the inferred name a ScopeInfo holds) and Script ->
 * name, read from the process's memory while it lives.  The
 * memory is untrusted: every object's type is checked by its map, every
 * length bounded; a bad object gives no name, never a wrong one or a
 * long read.
 */
#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "proc/proc_root.h"
#include "util/hash.h"
#include "util/xmalloc.h"
#include "v8_dbg.h"
#include "v8_sym.h"

#define V8_SYM_STR_MAX		512	/* characters of a name */
#define V8_SYM_CONS_DEPTH	8	/* cons and thin strings followed */
#define V8_SYM_SCOPE_SLOTS	48	/* ScopeInfo slots read */
#define V8_SYM_FUNCS_MAX	(64 * 1024)

struct v8_sym_entry {
	uint64_t	 sfi;
	uint64_t	 name_ptr;	/* what the SFI pointed to when read */
	uint64_t	 script_ptr;
	char		*name;
	char		*file;
};

struct v8_sym {
	pid_t			 pid;
	const struct v8_layout	*lay;
	struct v8_sym_entry	*v;		/* open addressing by sfi */
	size_t			 size;
	size_t			 n;
};

struct v8_sym *
v8_sym_create(pid_t pid, const struct v8_layout *lay)
{
	struct v8_sym	*s;

	s = xcalloc(1, sizeof(*s));
	s->pid = pid;
	s->lay = lay;
	s->size = 256;
	s->v = xcalloc(s->size, sizeof(*s->v));
	return s;
}

static void
v8_sym_clear(struct v8_sym *s)
{
	size_t	 i;

	for (i = 0; i < s->size; i++) {
		free(s->v[i].name);
		free(s->v[i].file);
	}
	memset(s->v, 0, s->size * sizeof(*s->v));
	s->n = 0;
}

void
v8_sym_free(struct v8_sym *s)
{
	if (s == NULL)
		return;
	v8_sym_clear(s);
	free(s->v);
	free(s);
}

size_t
v8_sym_count(const struct v8_sym *s)
{
	return s->n;
}

static int
v8_sym_read(struct v8_sym *s, uint64_t addr, void *buf, size_t len)
{
	if (addr == 0 || addr > UINT64_MAX - len)
		return -1;
	return proc_root_read_mem(s->pid, addr, buf, len);
}

/* A tagged field of a tagged object; 0 when unreadable. */
static uint64_t
v8_sym_field(struct v8_sym *s, uint64_t obj, int off)
{
	uint64_t	 v;

	if ((obj & 3) != 1 || v8_sym_read(s, obj - 1 + off, &v,
	    sizeof(v)) == -1)
		return 0;
	return v;
}

/* The instance type of a tagged object; -1 when unreadable. */
static int
v8_sym_type(struct v8_sym *s, uint64_t obj)
{
	uint64_t	 map;
	uint16_t	 t;

	if ((map = v8_sym_field(s, obj, s->lay->map)) == 0 ||
	    (map & 3) != 1 || v8_sym_read(s, map - 1 + s->lay->map_type,
	    &t, sizeof(t)) == -1)
		return -1;
	return t;
}

size_t
v8_sym_chars(const uint8_t *b, size_t n, int two, char *d, size_t room)
{
	size_t	 i, k = 0;
	unsigned int c;

	for (i = 0; i < n && k + 1 < room; i++) {
		c = two ? b[2 * i] | b[2 * i + 1] << 8 : b[i];
		d[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (room > 0)
		d[k] = '\0';
	return k;
}

/*
 * Append the String at obj to d (len used of room); -1 if it is no
 * string this reads (external, sliced) or unreadable.
 */
static int
v8_sym_string(struct v8_sym *s, uint64_t obj, char *d, size_t *len,
    size_t room, int depth)
{
	const struct v8_layout	*l = s->lay;
	uint8_t			 buf[2 * V8_SYM_STR_MAX];
	int32_t			 n;
	int			 t, repr, two;

	if (depth > V8_SYM_CONS_DEPTH)
		return -1;
	if ((t = v8_sym_type(s, obj)) < 0 || t >= l->first_nonstring)
		return -1;
	repr = t & l->str_repr_mask;
	if (repr == l->str_cons) {
		if (v8_sym_string(s, v8_sym_field(s, obj, l->cons_first), d,
		    len, room, depth + 1) == -1)
			return -1;
		return v8_sym_string(s, v8_sym_field(s, obj, l->cons_second),
		    d, len, room, depth + 1);
	}
	if (repr == l->str_thin)
		return v8_sym_string(s, v8_sym_field(s, obj, l->thin_actual),
		    d, len, room, depth + 1);
	if (repr != l->str_seq || v8_sym_read(s, obj - 1 + l->str_length, &n,
	    sizeof(n)) == -1 || n < 0)
		return -1;
	if (n > V8_SYM_STR_MAX)
		n = V8_SYM_STR_MAX;
	two = (t & l->str_enc_mask) != l->str_one_byte;
	if (n > 0 && v8_sym_read(s, obj - 1 + (two ? l->seq_two_chars :
	    l->seq_one_chars), buf, (size_t)n << two) == -1)
		return -1;
	if (*len < room)
		*len += v8_sym_chars(buf, n, two, d + *len, room - *len);
	return 0;
}

struct v8_sym_pred {
	struct v8_sym	*s;
	char		*d;
	size_t		 room;
};

/* Is the slot a non-empty string?  Then it is in the buffer. */
static int
v8_sym_pred_cb(uint64_t slot, void *arg)
{
	struct v8_sym_pred	*p = arg;
	size_t			 len = 0;

	return v8_sym_string(p->s, slot, p->d, &len, p->room, 0) == 0 &&
	    len > 0;
}

int
v8_sym_scope_name(const uint64_t *slots, size_t n, int first_vars,
    int nlocals_idx, int (*is_name)(uint64_t, void *), void *arg)
{
	uint64_t	 nlocals;
	size_t		 i;

	if (nlocals_idx < 0 || (size_t)nlocals_idx >= n ||
	    (slots[nlocals_idx] & 1) != 0)
		return -1;
	nlocals = slots[nlocals_idx] >> 32;
	if (nlocals > n)
		return -1;
	for (i = first_vars + 2 * nlocals; i < n; i++) {
		if ((slots[i] & 3) == 1 && is_name(slots[i], arg))
			return (int)i;
	}
	return -1;
}

/* The name an SFI's name_or_scope_info gives, into d. */
static int
v8_sym_func_name(struct v8_sym *s, uint64_t nos, char *d, size_t room)
{
	struct v8_sym_pred	 p;
	uint64_t		 slots[V8_SYM_SCOPE_SLOTS];
	size_t			 len = 0;
	int			 t;

	d[0] = '\0';
	if ((nos & 1) == 0)
		return 0;		/* no name: a SMI sentinel */
	if ((t = v8_sym_type(s, nos)) < 0)
		return -1;
	if (t < s->lay->first_nonstring)
		return v8_sym_string(s, nos, d, &len, room, 0);
	if (t != s->lay->type_scope_info)
		return -1;
	/* The slots after the map word: the inferred name among them. */
	if (v8_sym_read(s, nos - 1 + 8, slots, sizeof(slots)) == -1)
		return -1;
	p.s = s;
	p.d = d;
	p.room = room;
	if (v8_sym_scope_name(slots, V8_SYM_SCOPE_SLOTS,
	    s->lay->si_first_vars, s->lay->si_ncontextlocals,
	    v8_sym_pred_cb, &p) == -1)
		d[0] = '\0';
	return 0;
}

static struct v8_sym_entry *
v8_sym_slot(struct v8_sym *s, uint64_t sfi)
{
	size_t	 i = hash_mix(sfi) & (s->size - 1);

	while (s->v[i].sfi != 0 && s->v[i].sfi != sfi)
		i = (i + 1) & (s->size - 1);
	return &s->v[i];
}

static void
v8_sym_grow(struct v8_sym *s)
{
	struct v8_sym_entry	*old = s->v, *e;
	size_t			 i, size = s->size;

	if (s->n >= V8_SYM_FUNCS_MAX) {
		v8_sym_clear(s);	/* forget them all: rare */
		return;
	}
	s->size *= 2;
	s->v = xcalloc(s->size, sizeof(*s->v));
	for (i = 0; i < size; i++) {
		if (old[i].sfi == 0)
			continue;
		e = v8_sym_slot(s, old[i].sfi);
		*e = old[i];
	}
	free(old);
}

int
v8_sym_func(struct v8_sym *s, uint64_t sfi, struct v8_func *f,
    enum v8_unnamed *why)
{
	struct v8_sym_entry	*e;
	char			 name[V8_SYM_STR_MAX + 1];
	char			 file[V8_SYM_STR_MAX + 1];
	uint64_t		 nos, script, sname;
	size_t			 len = 0;

	int			 t;

	if ((t = v8_sym_type(s, sfi)) != s->lay->type_sfi) {
		*why = t < 0 && (sfi & 3) == 1 ? V8_UNNAMED_READ :
		    V8_UNNAMED_TYPE;
		return -1;
	}
	nos = v8_sym_field(s, sfi, s->lay->sfi_name);
	script = v8_sym_field(s, sfi, s->lay->sfi_script);
	e = v8_sym_slot(s, sfi);
	if (e->sfi == sfi && e->name_ptr == nos && e->script_ptr == script) {
		f->name = e->name;
		f->file = e->file;
		return 0;
	}
	if (v8_sym_func_name(s, nos, name, sizeof(name)) == -1) {
		*why = V8_UNNAMED_STRING;
		return -1;
	}
	file[0] = '\0';
	if (v8_sym_type(s, script) == s->lay->type_script &&
	    (sname = v8_sym_field(s, script, s->lay->script_name)) != 0)
		(void)v8_sym_string(s, sname, file, &len, sizeof(file), 0);
	if (e->sfi == 0) {
		if (2 * (s->n + 1) > s->size) {
			v8_sym_grow(s);
			e = v8_sym_slot(s, sfi);
		}
		s->n++;
	} else {
		free(e->name);
		free(e->file);
	}
	e->sfi = sfi;
	e->name_ptr = nos;
	e->script_ptr = script;
	e->name = xstrdup(name[0] != '\0' ? name : "(anonymous)");
	e->file = xstrdup(file);
	f->name = e->name;
	f->file = e->file;
	return 0;
}

const char *
v8_unnamed_name(int why)
{
	static const char *const names[V8_UNNAMED_MAX] = {
		[V8_UNNAMED_READ] = "read",
		[V8_UNNAMED_TYPE] = "type",
		[V8_UNNAMED_STRING] = "string",
	};

	if (why < 0 || why >= V8_UNNAMED_MAX)
		return "?";
	return names[why];
}
