/*
 * Names of Java frames, read from the JVM and cached by address.  A
 * Method is Method -> ConstMethod -> ConstantPool -> the class's
 * Symbol, the name's and the source file's Symbols by index into the
 * pool; an nmethod is its Method, its compile id and its debug
 * information (PcDescs, scopes, metadata: the inlined methods).
 *
 * The JIT frees code and class unloading frees Methods: an address may
 * hold another object by the time it is named.  So each is checked by
 * what the walker saw with it -- a Method by its ConstMethod, an
 * nmethod by its compile id -- and read again when the check fails; a
 * frame whose object changed gets no name (counted), never another's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jvm_codecache.h"
#include "jvm_layout.h"
#include "jvm_lines.h"
#include "jvm_mem.h"
#include "jvm_sym.h"
#include "util/xmalloc.h"

#define JVM_SYM_BUCKETS		1024
#define JVM_SYM_ENTRIES_MAX	(64 * 1024)	/* then the cache is emptied */
#define JVM_SYM_LINES_MAX	(64 * 1024)	/* bytes of a line table */
#define JVM_SYM_PCS_MAX		(1024 * 1024)
#define JVM_SYM_SCOPES_MAX	(4 * 1024 * 1024)
#define JVM_SYM_META_MAX	(1024 * 1024)
#define JVM_SYM_NAME_MAX	65535

struct jvm_sym_m {
	struct jvm_method	 m;
	struct jvm_sym_m	*next;
};

struct jvm_sym_nm {
	uint64_t		 addr;
	uint32_t		 compile_id;
	uint64_t		 method;
	uint64_t		 code_begin;
	struct jvm_pcdesc	*pcs;
	size_t			 npcs;
	uint8_t			*scopes;
	size_t			 scopes_len;
	uint64_t		*meta;
	size_t			 nmeta;
	struct jvm_sym_nm	*next;
};

struct jvm_sym {
	struct jvm_mem		*mem;
	const struct jvm_layout	*l;
	struct jvm_sym_m	*methods[JVM_SYM_BUCKETS];
	struct jvm_sym_nm	*nmethods[JVM_SYM_BUCKETS];
	size_t			 count;
	struct jvm_sym_stats	 st;
};

static size_t
jvm_sym_bucket(uint64_t addr)
{
	return (addr >> 3) * 0x9e3779b97f4a7c15ULL >> 54;
}

struct jvm_sym *
jvm_sym_create(struct jvm_mem *mem, const struct jvm_layout *l)
{
	struct jvm_sym	*s;

	s = xcalloc(1, sizeof(*s));
	s->mem = mem;
	s->l = l;
	return s;
}

static void
jvm_sym_m_free(struct jvm_sym_m *e)
{
	free(e->m.func);
	free(e->m.file);
	free(e->m.lines);
	free(e);
}

static void
jvm_sym_nm_free(struct jvm_sym_nm *e)
{
	free(e->pcs);
	free(e->scopes);
	free(e->meta);
	free(e);
}

static void
jvm_sym_flush(struct jvm_sym *s)
{
	struct jvm_sym_m	*m;
	struct jvm_sym_nm	*n;
	size_t			 i;

	for (i = 0; i < JVM_SYM_BUCKETS; i++) {
		while ((m = s->methods[i]) != NULL) {
			s->methods[i] = m->next;
			jvm_sym_m_free(m);
		}
		while ((n = s->nmethods[i]) != NULL) {
			s->nmethods[i] = n->next;
			jvm_sym_nm_free(n);
		}
	}
	s->count = 0;
}

void
jvm_sym_free(struct jvm_sym *s)
{
	if (s == NULL)
		return;
	jvm_sym_flush(s);
	free(s);
}

void
jvm_sym_stats(const struct jvm_sym *s, struct jvm_sym_stats *st)
{
	*st = s->st;
	st->reads_failed = s->mem->failed;
}

/* A Symbol's bytes, '/' as '.' if dots: a new string, or NULL. */
static char *
jvm_sym_symbol(struct jvm_sym *s, uint64_t sym, int dots)
{
	uint16_t	 len;
	char		*p;
	size_t		 i;

	if (sym == 0 || jvm_mem_u16(s->mem, sym + s->l->sym_length,
	    &len) == -1 || len == 0)
		return NULL;
	p = xmalloc((size_t)len + 1);
	if (jvm_mem_read(s->mem, sym + s->l->sym_body, p, len) == -1) {
		free(p);
		return NULL;
	}
	p[len] = '\0';
	for (i = 0; i < len; i++) {
		if (p[i] == '\0' || (unsigned char)p[i] < 0x20) {
			free(p);
			return NULL;
		}
		if (dots && p[i] == '/')
			p[i] = '.';
	}
	return p;
}

/* The Symbol at a constant pool's index; the tag bit cleared. */
static char *
jvm_sym_pool_symbol(struct jvm_sym *s, uint64_t cp, uint16_t index)
{
	uint64_t	 sym;

	if (index == 0 || jvm_mem_u64(s->mem, cp + s->l->cp_size +
	    8 * (uint64_t)index, &sym) == -1)
		return NULL;
	return jvm_sym_symbol(s, sym & ~1ULL, 0);
}

/* A Method's line table: after its ConstMethod and its bytecodes. */
static void
jvm_sym_lines(struct jvm_sym *s, struct jvm_method *m, uint16_t code_size)
{
	uint8_t	*buf;
	ssize_t	 n;
	size_t	 len;

	buf = xmalloc(JVM_SYM_LINES_MAX);
	n = jvm_mem_read_some(s->mem, m->constmethod + s->l->cm_size +
	    code_size, buf, JVM_SYM_LINES_MAX);
	if (n > 0 && (len = jvm_lines_table_len(buf, n,
	    s->l->unsigned5_x)) > 0) {
		m->lines = xreallocarray(buf, len, 1);
		m->lines_len = len;
		return;
	}
	free(buf);
}

static struct jvm_sym_m *
jvm_sym_method_read(struct jvm_sym *s, uint64_t addr)
{
	const struct jvm_layout	*l = s->l;
	struct jvm_sym_m	*e;
	uint64_t		 cm, cp, klass, ksym;
	uint32_t		 flags = 0;
	uint16_t		 name_i, file_i, code_size;
	char			*cls, *name;

	if (jvm_mem_u64(s->mem, addr + l->method_constmethod, &cm) == -1 ||
	    cm == 0 ||
	    jvm_mem_u64(s->mem, cm + l->cm_constants, &cp) == -1 || cp == 0 ||
	    jvm_mem_u16(s->mem, cm + l->cm_name_index, &name_i) == -1 ||
	    jvm_mem_u16(s->mem, cm + l->cm_code_size, &code_size) == -1 ||
	    jvm_mem_read(s->mem, cm + l->cm_flags, &flags,
	    l->cm_flags_size <= 4 ? l->cm_flags_size : 4) == -1 ||
	    jvm_mem_u64(s->mem, cp + l->cp_pool_holder, &klass) == -1 ||
	    jvm_mem_u64(s->mem, klass + l->klass_name, &ksym) == -1 ||
	    jvm_mem_u16(s->mem, cp + l->cp_source_file_index, &file_i) == -1)
		return NULL;
	if ((cls = jvm_sym_symbol(s, ksym, 1)) == NULL)
		return NULL;
	if ((name = jvm_sym_pool_symbol(s, cp, name_i)) == NULL) {
		free(cls);
		return NULL;
	}
	e = xcalloc(1, sizeof(*e));
	e->m.addr = addr;
	e->m.constmethod = cm;
	e->m.func = xmalloc(strlen(cls) + strlen(name) + 2);
	strcpy(e->m.func, cls);
	strcat(e->m.func, ".");
	strcat(e->m.func, name);
	free(cls);
	free(name);
	e->m.file = jvm_sym_pool_symbol(s, cp, file_i);
	if (flags & l->cm_has_linenumbers)
		jvm_sym_lines(s, &e->m, code_size);
	s->st.methods++;
	return e;
}

static void
jvm_sym_count(struct jvm_sym *s)
{
	/* Bounded: a process that makes code without end empties it. */
	if (++s->count > JVM_SYM_ENTRIES_MAX)
		jvm_sym_flush(s);
}

/* The Method at addr as read before, without a look at the process. */
const struct jvm_method *
jvm_sym_method_cached(struct jvm_sym *s, uint64_t addr)
{
	struct jvm_sym_m	*e;

	for (e = s->methods[jvm_sym_bucket(addr)]; e != NULL; e = e->next)
		if (e->m.addr == addr)
			return &e->m;
	return NULL;
}

const struct jvm_method *
jvm_sym_method(struct jvm_sym *s, uint64_t addr, uint64_t check)
{
	struct jvm_sym_m	**pp, *e;
	size_t			  b = jvm_sym_bucket(addr);

	for (pp = &s->methods[b]; (e = *pp) != NULL; pp = &e->next) {
		if (e->m.addr != addr)
			continue;
		if (check == 0 || e->m.constmethod == check)
			return &e->m;
		/* Another Method since: read it again. */
		*pp = e->next;
		jvm_sym_m_free(e);
		s->st.stale++;
		break;
	}
	if ((e = jvm_sym_method_read(s, addr)) == NULL)
		return NULL;
	if (check != 0 && e->m.constmethod != check) {
		s->st.stale++;
		jvm_sym_m_free(e);
		return NULL;
	}
	jvm_sym_count(s);
	e->next = s->methods[b];
	s->methods[b] = e;
	return &e->m;
}

static void
jvm_sym_frame(struct jvm_sym *s, const struct jvm_method *m, int bci,
    struct jvm_frame *f)
{
	f->func = m->func;
	f->file = m->file;
	f->bci = bci;
	f->line = m->lines != NULL ? jvm_lines_line(m->lines, m->lines_len,
	    s->l->unsigned5_x, bci < 0 ? 0 : bci) : -1;
}

int
jvm_sym_interpreted(struct jvm_sym *s, uint64_t method, uint64_t check,
    int bci, struct jvm_frame *f)
{
	const struct jvm_method	*m;

	if ((m = jvm_sym_method(s, method, check)) == NULL) {
		s->st.unnamed++;
		return -1;
	}
	jvm_sym_frame(s, m, bci, f);
	return 0;
}

int
jvm_sym_nmethod_id(struct jvm_sym *s, uint64_t nm, uint64_t *method,
    uint32_t *compile_id)
{
	if (jvm_mem_u64(s->mem, nm + s->l->nm_method, method) == -1 ||
	    jvm_mem_u32(s->mem, nm + s->l->nm_compile_id, compile_id) == -1 ||
	    *method == 0)
		return -1;
	return 0;
}

/* Copy [begin, end) of the process, bounded: a new buffer, or NULL. */
static void *
jvm_sym_copy(struct jvm_sym *s, uint64_t begin, uint64_t end, size_t max,
    size_t *len)
{
	void	*p;

	if (end <= begin || end - begin > max)
		return NULL;
	p = xmalloc(end - begin);
	if (jvm_mem_read(s->mem, begin, p, end - begin) == -1) {
		free(p);
		return NULL;
	}
	*len = end - begin;
	return p;
}

/* Where an nmethod's tables lie: before JDK 23 and after. */
static int
jvm_sym_nm_tables(struct jvm_sym *s, uint64_t nm, uint64_t *pcs,
    uint64_t *scopes, uint64_t *meta)
{
	const struct jvm_layout	*l = s->l;
	uint64_t		 imm, mut;
	uint32_t		 a, b, c;

	if (!l->nm_immutable) {
		if (jvm_mem_u64(s->mem, nm + l->nm_scopes_data_begin,
		    &scopes[0]) == -1 ||
		    jvm_mem_u32(s->mem, nm + l->nm_scopes_pcs_offset, &a) ==
		    -1 ||
		    jvm_mem_u32(s->mem, nm + l->nm_dependencies_offset, &b) ==
		    -1 ||
		    jvm_mem_u32(s->mem, nm + l->nm_metadata_offset, &c) == -1)
			return -1;
		pcs[0] = nm + a;
		pcs[1] = nm + b;
		scopes[1] = nm + a;
		meta[0] = nm + c;
		meta[1] = scopes[0];
		return 0;
	}
	if (jvm_mem_u64(s->mem, nm + l->nm_immutable_data, &imm) == -1 ||
	    jvm_mem_u32(s->mem, nm + l->nm_scopes_pcs_offset, &a) == -1 ||
	    jvm_mem_u32(s->mem, nm + l->nm_scopes_data_offset, &b) == -1 ||
	    jvm_mem_u32(s->mem, nm + l->nm_immutable_data_size, &c) == -1)
		return -1;
	pcs[0] = imm + a;
	pcs[1] = imm + b;
	scopes[0] = imm + b;
	scopes[1] = imm + c;
	if (l->nm_metadata_offset != 0) {
		/* 23, 24: the metadata still in the nmethod. */
		if (jvm_mem_u32(s->mem, nm + l->nm_metadata_offset, &a) == -1)
			return -1;
		meta[0] = nm + a;
		meta[1] = nm + a + JVM_SYM_META_MAX;
		return 0;
	}
	if (jvm_mem_u64(s->mem, nm + l->cb_mutable_data, &mut) == -1 ||
	    jvm_mem_u32(s->mem, nm + l->cb_relocation_size, &a) == -1 ||
	    jvm_mem_u32(s->mem, nm + l->cb_mutable_data_size, &b) == -1 ||
	    a > b)
		return -1;
	meta[0] = mut + a;
	meta[1] = mut + b;
	return 0;
}

static struct jvm_sym_nm *
jvm_sym_nm_read(struct jvm_sym *s, uint64_t nm)
{
	const struct jvm_layout	*l = s->l;
	struct jvm_sym_nm	*e;
	struct jvm_blob		 b;
	uint64_t		 pcs[2], scopes[2], meta[2];
	uint8_t			*raw;
	size_t			 len, i;
	int32_t			 pc, sc;

	if (l->pc_pc_offset + 4 > l->pcdesc_size ||
	    l->pc_scope_offset + 4 > l->pcdesc_size ||
	    jvm_codecache_blob(s->mem, l, nm, &b) == -1 ||
	    (b.kind != JVM_BLOB_NMETHOD && b.kind != JVM_BLOB_NATIVE))
		return NULL;
	e = xcalloc(1, sizeof(*e));
	e->addr = nm;
	e->code_begin = b.code_begin;
	if (jvm_sym_nmethod_id(s, nm, &e->method, &e->compile_id) == -1 ||
	    jvm_sym_nm_tables(s, nm, pcs, scopes, meta) == -1) {
		free(e);
		return NULL;
	}
	/* Without debug information it is still its Method's frame. */
	if ((raw = jvm_sym_copy(s, pcs[0], pcs[1], JVM_SYM_PCS_MAX,
	    &len)) != NULL) {
		e->npcs = len / l->pcdesc_size;
		e->pcs = xcalloc(e->npcs, sizeof(*e->pcs));
		for (i = 0; i < e->npcs; i++) {
			memcpy(&pc, raw + i * l->pcdesc_size + l->pc_pc_offset,
			    sizeof(pc));
			memcpy(&sc, raw + i * l->pcdesc_size +
			    l->pc_scope_offset, sizeof(sc));
			e->pcs[i].pc = pc;
			e->pcs[i].scope = sc;
		}
		free(raw);
	}
	e->scopes = jvm_sym_copy(s, scopes[0], scopes[1], JVM_SYM_SCOPES_MAX,
	    &e->scopes_len);
	/* A metadata table is read as far as it can be, to its bound. */
	if (meta[1] > meta[0] && meta[1] - meta[0] <= JVM_SYM_META_MAX) {
		e->meta = xmalloc(meta[1] - meta[0]);
		if (jvm_mem_read(s->mem, meta[0], e->meta, meta[1] - meta[0]) ==
		    0)
			e->nmeta = (meta[1] - meta[0]) / 8;
	}
	s->st.nmethods++;
	return e;
}

static struct jvm_sym_nm *
jvm_sym_nm(struct jvm_sym *s, uint64_t nm, uint32_t compile_id)
{
	struct jvm_sym_nm	**pp, *e;
	size_t			  b = jvm_sym_bucket(nm);

	for (pp = &s->nmethods[b]; (e = *pp) != NULL; pp = &e->next) {
		if (e->addr != nm)
			continue;
		if (e->compile_id == compile_id)
			return e;
		*pp = e->next;
		jvm_sym_nm_free(e);
		s->st.stale++;
		break;
	}
	if ((e = jvm_sym_nm_read(s, nm)) == NULL)
		return NULL;
	if (e->compile_id != compile_id) {
		/* Freed and made again for another method since the sample. */
		s->st.stale++;
		jvm_sym_nm_free(e);
		return NULL;
	}
	jvm_sym_count(s);
	e->next = s->nmethods[b];
	s->nmethods[b] = e;
	return e;
}

int
jvm_sym_compiled(struct jvm_sym *s, uint64_t nm, uint32_t compile_id,
    uint32_t pc_off, int leaf, struct jvm_frame *f, size_t max)
{
	const struct jvm_method	*m;
	struct jvm_sym_nm	*e;
	struct jvm_scope	 sc;
	uint64_t		 method;
	size_t			 n = 0;
	int			 i;
	uint32_t		 off;

	if (max == 0 || (e = jvm_sym_nm(s, nm, compile_id)) == NULL) {
		s->st.unnamed++;
		return -1;
	}
	i = jvm_lines_pcdesc(e->pcs, e->npcs,
	    (int32_t)(nm + pc_off - e->code_begin), leaf);
	off = i >= 0 ? (uint32_t)e->pcs[i].scope : 0;
	while (off != 0 && n < max && n < JVM_SYM_INLINE_MAX &&
	    jvm_lines_scope(e->scopes, e->scopes_len, off,
	    s->l->unsigned5_x, &sc) == 0) {
		if (sc.method > e->nmeta ||
		    (method = e->meta[sc.method - 1]) == 0 ||
		    (m = jvm_sym_method(s, method, 0)) == NULL)
			break;
		jvm_sym_frame(s, m, sc.bci, &f[n++]);
		off = sc.next;
	}
	if (n > 0)
		return n;
	/* No scope: the nmethod's own Method, at no known bci. */
	if ((m = jvm_sym_method(s, e->method, 0)) == NULL) {
		s->st.unnamed++;
		return -1;
	}
	jvm_sym_frame(s, m, -1, &f[0]);
	f[0].line = -1;
	return 1;
}
