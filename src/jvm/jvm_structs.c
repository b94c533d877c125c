/*
 * HotSpot's self-description (vmStructs.cpp): gHotSpotVMStructs and its
 * kin point at arrays of entries whose layout -- the offset of each
 * member, the stride -- is exported beside them, in .bss, filled in by
 * libjvm's initialisers.  So nothing here is assumed of the entries
 * but what the JVM says, and every answer is checked: a stride or an
 * offset out of bounds, an array with no end, a name that is not a
 * name, and the JVM is not one we read (the caller refuses it).
 *
 * The entries are kept in one array, sorted by (kind, type, name), so a
 * lookup is a binary search.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jvm_mem.h"
#include "jvm_structs.h"
#include "util/xmalloc.h"

#define JVM_STRUCTS_ENTRIES	8192	/* per table; JDK 17 has 788 */
#define JVM_STRUCTS_STRIDE	256
#define JVM_STRUCTS_NAME	256
#define JVM_STRUCTS_CHUNK	64	/* entries read at once */

const char *const jvm_structs_symbols[JVM_SYM_MAX] = {
	[JVM_SYM_STRUCTS] = "gHotSpotVMStructs",
	[JVM_SYM_S_TYPE] = "gHotSpotVMStructEntryTypeNameOffset",
	[JVM_SYM_S_FIELD] = "gHotSpotVMStructEntryFieldNameOffset",
	[JVM_SYM_S_TSTR] = "gHotSpotVMStructEntryTypeStringOffset",
	[JVM_SYM_S_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
	[JVM_SYM_S_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
	[JVM_SYM_S_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
	[JVM_SYM_S_STRIDE] = "gHotSpotVMStructEntryArrayStride",
	[JVM_SYM_TYPES] = "gHotSpotVMTypes",
	[JVM_SYM_T_NAME] = "gHotSpotVMTypeEntryTypeNameOffset",
	[JVM_SYM_T_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
	[JVM_SYM_T_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
	[JVM_SYM_INTS] = "gHotSpotVMIntConstants",
	[JVM_SYM_I_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
	[JVM_SYM_I_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
	[JVM_SYM_I_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
	[JVM_SYM_LONGS] = "gHotSpotVMLongConstants",
	[JVM_SYM_L_NAME] = "gHotSpotVMLongConstantEntryNameOffset",
	[JVM_SYM_L_VALUE] = "gHotSpotVMLongConstantEntryValueOffset",
	[JVM_SYM_L_STRIDE] = "gHotSpotVMLongConstantEntryArrayStride",
};

enum jvm_entry_kind {
	JVM_E_FIELD,
	JVM_E_STATIC,
	JVM_E_TYPE,
	JVM_E_INT,
	JVM_E_LONG,
};

struct jvm_entry {
	int		 kind;
	char		*type;		/* "" for constants */
	char		*name;		/* "" for types */
	char		*tstr;		/* a field's C type; may be NULL */
	uint64_t	 value;		/* offset, address, size, constant */
};

struct jvm_structs {
	struct jvm_entry	*v;
	size_t			 n, size;
	size_t			 count[JVM_E_LONG + 1];
};

/* One table: where it is, and where each member of an entry lies. */
struct jvm_table {
	uint64_t	 array;
	uint64_t	 stride;
	uint64_t	 off[5];	/* type/name, field, tstr, static, value */
	int		 has[5];
	uint64_t	 addr_off;	/* a static field's address */
};

static int
jvm_entry_cmp(const void *a, const void *b)
{
	const struct jvm_entry	*x = a, *y = b;
	int			 c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((c = strcmp(x->type, y->type)) != 0)
		return c;
	return strcmp(x->name, y->name);
}

void
jvm_structs_free(struct jvm_structs *s)
{
	size_t	 i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->v[i].type);
		free(s->v[i].name);
		free(s->v[i].tstr);
	}
	free(s->v);
	free(s);
}

static void
jvm_structs_add(struct jvm_structs *s, int kind, const char *type,
    const char *name, const char *tstr, uint64_t value)
{
	struct jvm_entry	*e;

	if (s->n == s->size) {
		s->size = s->size == 0 ? 1024 : s->size * 2;
		s->v = xreallocarray(s->v, s->size, sizeof(*s->v));
	}
	e = &s->v[s->n++];
	e->kind = kind;
	e->type = xstrdup(type);
	e->name = xstrdup(name);
	e->tstr = tstr != NULL ? xstrdup(tstr) : NULL;
	e->value = value;
	s->count[kind]++;
}

static int
jvm_entry_str(struct jvm_mem *m, const uint8_t *e, uint64_t off, char *buf)
{
	uint64_t	 p;

	memcpy(&p, e + off, sizeof(p));
	if (p == 0) {
		buf[0] = '\0';
		return 0;
	}
	return jvm_mem_cstr(m, p, buf, JVM_STRUCTS_NAME);
}

/*
 * Read one table's entries up to the one whose first name is NULL.
 * kind is what a table of fields calls its entries after isStatic;
 * -1 on a bad table or one with no end.
 */
static int
jvm_table_read(struct jvm_mem *m, struct jvm_structs *s,
    const struct jvm_table *t, int kind)
{
	uint8_t		*buf;
	char		 type[JVM_STRUCTS_NAME], name[JVM_STRUCTS_NAME];
	char		 tstr[JVM_STRUCTS_NAME];
	const uint8_t	*e;
	uint64_t	 value, first;
	uint32_t	 is_static;
	size_t		 i, j, k, nread;
	ssize_t		 got;
	int		 rc = -1;

	if (t->stride < 16 || t->stride > JVM_STRUCTS_STRIDE ||
	    t->stride % 8 != 0 || t->array == 0)
		return -1;
	for (k = 0; k < 5; k++)
		if (t->has[k] && t->off[k] + 8 > t->stride)
			return -1;
	buf = xmalloc(t->stride * JVM_STRUCTS_CHUNK);
	for (i = 0; i < JVM_STRUCTS_ENTRIES; i += nread) {
		/* The array may end near the end of its mapping. */
		got = jvm_mem_read_some(m, t->array + i * t->stride, buf,
		    t->stride * JVM_STRUCTS_CHUNK);
		if (got < (ssize_t)t->stride)
			goto out;
		nread = got / t->stride;
		for (j = 0; j < nread; j++) {
			e = buf + j * t->stride;
			memcpy(&first, e + t->off[0], sizeof(first));
			if (first == 0) {
				rc = 0;
				goto out;
			}
			if (jvm_entry_str(m, e, t->off[0], type) == -1 ||
			    (t->has[1] && jvm_entry_str(m, e, t->off[1],
			    name) == -1))
				goto out;
			if (!t->has[1])
				name[0] = '\0';
			if (!t->has[2] ||
			    jvm_entry_str(m, e, t->off[2], tstr) == -1)
				tstr[0] = '\0';
			memcpy(&value, e + t->off[4], sizeof(value));
			is_static = 0;
			if (t->has[3])
				memcpy(&is_static, e + t->off[3],
				    sizeof(is_static));
			if (kind == JVM_E_FIELD && is_static) {
				/* Statics carry an address, not an offset. */
				memcpy(&value, e + t->addr_off,
				    sizeof(value));
				jvm_structs_add(s, JVM_E_STATIC, type, name,
				    tstr, value);
			} else if (kind == JVM_E_INT || kind == JVM_E_LONG)
				jvm_structs_add(s, kind, "", type, NULL,
				    value);
			else
				jvm_structs_add(s, kind, type, name,
				    tstr[0] != '\0' ? tstr : NULL, value);
			if (i + j + 1 >= JVM_STRUCTS_ENTRIES)
				goto out;
		}
	}
out:
	free(buf);
	return rc;
}

/* A .bss word the JVM filled in: an offset or a stride. */
static int
jvm_word(struct jvm_mem *m, uint64_t addr, uint64_t *v)
{
	return addr == 0 ? -1 : jvm_mem_u64(m, addr, v);
}

/*
 * A table of two members, a name and a number: its symbols follow the
 * array's in enum jvm_structs_sym as name, number, stride.
 */
static int
jvm_table_pair(struct jvm_mem *m, struct jvm_structs *s,
    const uint64_t *addr, int sym, int kind)
{
	struct jvm_table	 t;

	memset(&t, 0, sizeof(t));
	if (jvm_word(m, addr[sym], &t.array) == -1 ||
	    jvm_word(m, addr[sym + 1], &t.off[0]) == -1 ||
	    jvm_word(m, addr[sym + 2], &t.off[4]) == -1 ||
	    jvm_word(m, addr[sym + 3], &t.stride) == -1)
		return -1;
	t.has[0] = t.has[4] = 1;
	return jvm_table_read(m, s, &t, kind);
}

struct jvm_structs *
jvm_structs_read(struct jvm_mem *m, const uint64_t *addr)
{
	struct jvm_structs	*s;
	struct jvm_table	 t;
	uint64_t		 a;
	int			 ok = 1;

	s = xcalloc(1, sizeof(*s));
	/* Fields: type, field, type string, isStatic, offset, address. */
	memset(&t, 0, sizeof(t));
	ok &= jvm_word(m, addr[JVM_SYM_STRUCTS], &t.array) == 0;
	ok &= jvm_word(m, addr[JVM_SYM_S_STRIDE], &t.stride) == 0;
	ok &= jvm_word(m, addr[JVM_SYM_S_TYPE], &t.off[0]) == 0;
	ok &= jvm_word(m, addr[JVM_SYM_S_FIELD], &t.off[1]) == 0;
	ok &= jvm_word(m, addr[JVM_SYM_S_STATIC], &t.off[3]) == 0;
	ok &= jvm_word(m, addr[JVM_SYM_S_OFFSET], &t.off[4]) == 0;
	ok &= jvm_word(m, addr[JVM_SYM_S_ADDRESS], &a) == 0;
	t.has[2] = jvm_word(m, addr[JVM_SYM_S_TSTR], &t.off[2]) == 0;
	t.has[0] = t.has[1] = t.has[3] = t.has[4] = 1;
	if (!ok || a + 8 > t.stride || t.off[3] + 4 > t.stride)
		goto fail;
	t.addr_off = a;
	if (jvm_table_read(m, s, &t, JVM_E_FIELD) == -1)
		goto fail;
	/* Types (name, size), int and long constants (name, value). */
	if (jvm_table_pair(m, s, addr, JVM_SYM_TYPES, JVM_E_TYPE) == -1 ||
	    jvm_table_pair(m, s, addr, JVM_SYM_INTS, JVM_E_INT) == -1 ||
	    jvm_table_pair(m, s, addr, JVM_SYM_LONGS, JVM_E_LONG) == -1)
		goto fail;
	if (s->count[JVM_E_FIELD] + s->count[JVM_E_STATIC] == 0 ||
	    s->count[JVM_E_TYPE] == 0)
		goto fail;
	qsort(s->v, s->n, sizeof(*s->v), jvm_entry_cmp);
	return s;
fail:
	jvm_structs_free(s);
	return NULL;
}

void
jvm_structs_counts(const struct jvm_structs *s, size_t *fields,
    size_t *types, size_t *ints, size_t *longs)
{
	*fields = s->count[JVM_E_FIELD] + s->count[JVM_E_STATIC];
	*types = s->count[JVM_E_TYPE];
	*ints = s->count[JVM_E_INT];
	*longs = s->count[JVM_E_LONG];
}

static const struct jvm_entry *
jvm_structs_find(const struct jvm_structs *s, int kind, const char *type,
    const char *name)
{
	struct jvm_entry	 key;

	if (s == NULL || s->n == 0)
		return NULL;
	key.kind = kind;
	key.type = (char *)type;
	key.name = (char *)name;
	return bsearch(&key, s->v, s->n, sizeof(*s->v), jvm_entry_cmp);
}

int
jvm_structs_field(const struct jvm_structs *s, const char *type,
    const char *name, uint64_t *off)
{
	const struct jvm_entry	*e;

	if ((e = jvm_structs_find(s, JVM_E_FIELD, type, name)) == NULL)
		return -1;
	*off = e->value;
	return 0;
}

int
jvm_structs_static(const struct jvm_structs *s, const char *type,
    const char *name, uint64_t *addr)
{
	const struct jvm_entry	*e;

	if ((e = jvm_structs_find(s, JVM_E_STATIC, type, name)) == NULL)
		return -1;
	*addr = e->value;
	return 0;
}

const char *
jvm_structs_field_type(const struct jvm_structs *s, const char *type,
    const char *name)
{
	const struct jvm_entry	*e;

	if ((e = jvm_structs_find(s, JVM_E_FIELD, type, name)) == NULL &&
	    (e = jvm_structs_find(s, JVM_E_STATIC, type, name)) == NULL)
		return NULL;
	return e->tstr;
}

int
jvm_structs_size(const struct jvm_structs *s, const char *type,
    uint64_t *size)
{
	const struct jvm_entry	*e;

	if ((e = jvm_structs_find(s, JVM_E_TYPE, type, "")) == NULL)
		return -1;
	*size = e->value;
	return 0;
}

int
jvm_structs_int(const struct jvm_structs *s, const char *name, int64_t *v)
{
	const struct jvm_entry	*e;

	if ((e = jvm_structs_find(s, JVM_E_INT, "", name)) == NULL)
		return -1;
	/* An int constant: the low 32 bits, signed. */
	*v = (int32_t)e->value;
	return 0;
}

int
jvm_structs_long(const struct jvm_structs *s, const char *name, int64_t *v)
{
	const struct jvm_entry	*e;

	if ((e = jvm_structs_find(s, JVM_E_LONG, "", name)) == NULL)
		return -1;
	*v = (int64_t)e->value;
	return 0;
}

/* Every entry, a line each: for tests and for a new JDK's port. */
void
jvm_structs_dump(const struct jvm_structs *s, FILE *f)
{
	static const char *const kinds[] = {
		"field", "static", "type", "int", "long"
	};
	const struct jvm_entry	*e;
	size_t			 i;

	for (i = 0; i < s->n; i++) {
		e = &s->v[i];
		fprintf(f, "%s %s%s%s %s %#llx\n", kinds[e->kind], e->type,
		    e->type[0] != '\0' && e->name[0] != '\0' ? "::" : "",
		    e->name, e->tstr != NULL ? e->tstr : "-",
		    (unsigned long long)e->value);
	}
}
