/*
 * Python code objects, read from a process with process_vm_readv() and
 * cached by address, and the line tables that map an instruction
 * offset to a line.  The process's memory is untrusted: it can hold
 * anything at any address, so every length is bounded and every string
 * is checked before it is used; a bad object gives no name, never a
 * crash or a long read.
 */
#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/profile.h"
#include "util/hash.h"
#include "pysym.h"
#include "util/xmalloc.h"

#define PYSYM_STR_MAX		4096	/* characters of a name */
#define PYSYM_TABLE_MAX		(1024 * 1024)	/* a line table */
#define PYSYM_CODE_READ		152	/* enough for every layout */
#define PYSYM_TYPES_MAX		1024
#define PYSYM_CODES_MAX		(256 * 1024)
#define PYSYM_BYTES_MAX		(32 * 1024 * 1024)	/* per process */

/* PyObject and its kin: the same on every supported version. */
#define PY_OB_TYPE		8
#define PY_VAR_SIZE		16
#define PY_BYTES_SVAL		32
#define PY_TUPLE_ITEM		24
#define PY_TYPE_NAME		24
#define PY_UNICODE_LENGTH	16
#define PY_UNICODE_STATE	32

struct pysym_type {
	uint64_t	 addr;
	char		*name;
};

struct pysym {
	pid_t			 pid;
	struct pysym_layout	 lay;
	struct pysym_code	**v;	/* open addressing by addr */
	size_t			 size, count;
	size_t			 bytes;	/* of the entries */
	struct pysym_type	*types;
	size_t			 ntypes;
	uint64_t		 round;
	struct pysym_stats	 st;
};

struct pysym *
pysym_create(pid_t pid, const struct pysym_layout *lay)
{
	struct pysym	*s;

	s = xcalloc(1, sizeof(*s));
	s->pid = pid;
	s->lay = *lay;
	s->size = 256;
	s->v = xcalloc(s->size, sizeof(*s->v));
	return s;
}

static size_t
pysym_code_bytes(const struct pysym_code *c)
{
	return sizeof(*c) + strlen(c->name) + strlen(c->filename) + 2 +
	    c->table_len;
}

static void
pysym_code_free(struct pysym_code *c)
{
	if (c == NULL)
		return;
	free(c->name);
	free(c->filename);
	free(c->table);
	free(c);
}

void
pysym_free(struct pysym *s)
{
	size_t	 i;

	if (s == NULL)
		return;
	for (i = 0; i < s->size; i++)
		pysym_code_free(s->v[i]);
	for (i = 0; i < s->ntypes; i++)
		free(s->types[i].name);
	free(s->types);
	free(s->v);
	free(s);
}

/* Read len bytes at addr; the number read, -1 on failure. */
static ssize_t
pysym_read(struct pysym *s, uint64_t addr, void *buf, size_t len)
{
	struct iovec	 local, remote;

	if (addr == 0 || addr > UINT64_MAX - len)
		return -1;
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = len;
	return process_vm_readv(s->pid, &local, 1, &remote, 1, 0);
}

static int
pysym_read_all(struct pysym *s, uint64_t addr, void *buf, size_t len)
{
	return pysym_read(s, addr, buf, len) == (ssize_t)len ? 0 : -1;
}

static uint64_t
pysym_u64(const uint8_t *buf, size_t off)
{
	uint64_t	 v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

static uint32_t
pysym_u32(const uint8_t *buf, size_t off)
{
	uint32_t	 v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* Append one code point as UTF-8; surrogates and junk become '?'. */
static size_t
pysym_utf8(char *d, uint32_t c)
{
	if (c < 0x80) {
		d[0] = c != 0 ? c : '?';
		return 1;
	}
	if (c < 0x800) {
		d[0] = 0xc0 | c >> 6;
		d[1] = 0x80 | (c & 0x3f);
		return 2;
	}
	if (c < 0x10000) {
		if (c >= 0xd800 && c < 0xe000) {
			d[0] = '?';
			return 1;
		}
		d[0] = 0xe0 | c >> 12;
		d[1] = 0x80 | ((c >> 6) & 0x3f);
		d[2] = 0x80 | (c & 0x3f);
		return 3;
	}
	if (c < 0x110000) {
		d[0] = 0xf0 | c >> 18;
		d[1] = 0x80 | ((c >> 12) & 0x3f);
		d[2] = 0x80 | ((c >> 6) & 0x3f);
		d[3] = 0x80 | (c & 0x3f);
		return 4;
	}
	d[0] = '?';
	return 1;
}

/*
 * A str object as UTF-8.  Only the compact forms, which every name and
 * file name of a code object has: ASCII right after the header, or
 * UCS-1/2/4 after the longer header.
 */
static char *
pysym_string(struct pysym *s, uint64_t addr)
{
	uint8_t		 head[80], *raw;
	char		*out;
	uint64_t	 len;
	uint32_t	 state, kind, c;
	size_t		 i, o, hsize = s->lay.unicode_compact;

	if (hsize > sizeof(head) || s->lay.unicode_ascii > hsize ||
	    pysym_read_all(s, addr, head, hsize) == -1)
		return NULL;
	len = pysym_u64(head, PY_UNICODE_LENGTH);
	state = pysym_u32(head, PY_UNICODE_STATE);
	kind = (state >> 2) & 7;
	if (len > PYSYM_STR_MAX || !((state >> 5) & 1))
		return NULL;
	if ((state >> 6) & 1) {
		out = xmalloc(len + 1);
		if (pysym_read_all(s, addr + s->lay.unicode_ascii, out,
		    len) == -1) {
			free(out);
			return NULL;
		}
		out[len] = '\0';
		for (i = 0; i < len; i++)
			if (out[i] == '\0' || (unsigned char)out[i] >= 0x80)
				out[i] = '?';
		return out;
	}
	if (kind != 1 && kind != 2 && kind != 4)
		return NULL;
	raw = xmalloc(len * kind + 1);
	if (pysym_read_all(s, addr + hsize, raw, len * kind) == -1) {
		free(raw);
		return NULL;
	}
	out = xmalloc(len * 4 + 1);
	for (i = o = 0; i < len; i++) {
		if (kind == 1)
			c = raw[i];
		else if (kind == 2)
			c = raw[2 * i] | raw[2 * i + 1] << 8;
		else
			c = pysym_u32(raw, 4 * i);
		o += pysym_utf8(out + o, c);
	}
	out[o] = '\0';
	free(raw);
	return out;
}

/* A bytes object's content, bounded. */
static uint8_t *
pysym_bytes(struct pysym *s, uint64_t addr, size_t *lenp)
{
	uint8_t		 head[PY_BYTES_SVAL], *buf;
	uint64_t	 len;

	*lenp = 0;
	if (pysym_read_all(s, addr, head, sizeof(head)) == -1)
		return NULL;
	len = pysym_u64(head, PY_VAR_SIZE);
	if (len == 0 || len > PYSYM_TABLE_MAX)
		return NULL;
	buf = xmalloc(len);
	if (pysym_read_all(s, addr + PY_BYTES_SVAL, buf, len) == -1) {
		free(buf);
		return NULL;
	}
	*lenp = len;
	return buf;
}

/* 3.8-3.10: is the first local variable named self? */
static int
pysym_self_arg(struct pysym *s, const uint8_t *head)
{
	uint8_t		 tuple[PY_TUPLE_ITEM + 8];
	char		*name;
	int		 is;

	if (pysym_read_all(s, pysym_u64(head, s->lay.co_varnames), tuple,
	    sizeof(tuple)) == -1 || pysym_u64(tuple, PY_VAR_SIZE) == 0)
		return 0;
	if ((name = pysym_string(s, pysym_u64(tuple, PY_TUPLE_ITEM))) == NULL)
		return 0;
	is = strcmp(name, "self") == 0;
	free(name);
	return is;
}

static struct pysym_code *
pysym_code_read(struct pysym *s, uint64_t addr)
{
	struct pysym_code	*c;
	uint8_t			 head[PYSYM_CODE_READ];
	uint64_t		 name;

	if (pysym_read_all(s, addr, head, sizeof(head)) == -1)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->addr = addr;
	c->firstlineno = (int32_t)pysym_u32(head, s->lay.co_firstlineno);
	c->check = profile_py_check(pysym_u64(head, s->lay.co_name),
	    pysym_u64(head, s->lay.co_filename), c->firstlineno,
	    pysym_u32(head, s->lay.co_argcount));
	name = pysym_u64(head, s->lay.co_qualname != 0 ?
	    s->lay.co_qualname : s->lay.co_name);
	if ((c->name = pysym_string(s, name)) == NULL ||
	    (c->filename = pysym_string(s, pysym_u64(head,
	    s->lay.co_filename))) == NULL) {
		pysym_code_free(c);
		return NULL;
	}
	c->table = pysym_bytes(s, pysym_u64(head, s->lay.co_linetable),
	    &c->table_len);
	if (s->lay.co_qualname == 0 && (int32_t)pysym_u32(head,
	    s->lay.co_argcount) > 0)
		c->self_arg = pysym_self_arg(s, head);
	return c;
}

static void	pysym_evict(struct pysym *, unsigned int);

static size_t
pysym_slot(struct pysym_code **v, size_t size, uint64_t addr)
{
	size_t	 i;

	for (i = hash_mix(addr) & (size - 1);;
	    i = (i + 1) & (size - 1))
		if (v[i] == NULL || v[i]->addr == addr)
			return i;
}

static void
pysym_rehash(struct pysym *s, size_t size)
{
	struct pysym_code	**v;
	size_t			  i;

	v = xcalloc(size, sizeof(*v));
	for (i = 0; i < s->size; i++)
		if (s->v[i] != NULL)
			v[pysym_slot(v, size, s->v[i]->addr)] = s->v[i];
	free(s->v);
	s->v = v;
	s->size = size;
}

const struct pysym_code *
pysym_code(struct pysym *s, uint64_t addr, uint32_t check)
{
	struct pysym_code	*c;
	size_t			 i;

	i = pysym_slot(s->v, s->size, addr);
	if ((c = s->v[i]) != NULL && (check == 0 || c->check == check)) {
		s->st.hits++;
		c->used = s->round;
		return c;
	}
	s->st.reads++;
	if ((c = pysym_code_read(s, addr)) == NULL) {
		s->st.read_failed++;
		return NULL;
	}
	if (check != 0 && c->check != check) {
		/* Freed since the sample, the address reused: unnamed. */
		s->st.stale++;
		pysym_code_free(c);
		return NULL;
	}
	c->used = s->round;
	if (s->v[i] != NULL) {
		/* The same address, another code object: replace it. */
		s->bytes -= pysym_code_bytes(s->v[i]);
		pysym_code_free(s->v[i]);
		s->v[i] = c;
		s->bytes += pysym_code_bytes(c);
		return c;
	}
	if (s->count >= PYSYM_CODES_MAX ||
	    s->bytes + pysym_code_bytes(c) > PYSYM_BYTES_MAX) {
		/* Past the bounds: keep only what this round uses. */
		pysym_evict(s, 0);
		if (s->count >= PYSYM_CODES_MAX ||
		    s->bytes + pysym_code_bytes(c) > PYSYM_BYTES_MAX) {
			s->st.over++;
			pysym_code_free(c);
			return NULL;
		}
	}
	i = pysym_slot(s->v, s->size, addr);
	s->bytes += pysym_code_bytes(c);
	s->v[i] = c;
	if (++s->count * 2 > s->size)
		pysym_rehash(s, s->size * 2);
	return c;
}

const char *
pysym_type_name(struct pysym *s, uint64_t addr)
{
	uint8_t	 buf[PY_TYPE_NAME + 8];
	char	 name[256];
	ssize_t	 n;
	size_t	 i;

	for (i = 0; i < s->ntypes; i++)
		if (s->types[i].addr == addr)
			return s->types[i].name;
	if (s->ntypes >= PYSYM_TYPES_MAX ||
	    pysym_read_all(s, addr, buf, sizeof(buf)) == -1)
		return NULL;
	/* A C string: read what is there, up to a page end. */
	if ((n = pysym_read(s, pysym_u64(buf, PY_TYPE_NAME), name,
	    sizeof(name) - 1)) <= 0)
		return NULL;
	name[n] = '\0';
	if (strlen(name) == 0 || strlen(name) == (size_t)n)
		return NULL;
	s->types = xreallocarray(s->types, s->ntypes + 1, sizeof(*s->types));
	s->types[s->ntypes].addr = addr;
	s->types[s->ntypes].name = xstrdup(name);
	return s->types[s->ntypes++].name;
}

/*
 * Lines are summed in 64 bits: the first line and the deltas come from
 * the process, and a sum past an int is no line, not an overflow.
 */
static int
pysym_line_int(long long line)
{
	return line < INT_MIN || line > INT_MAX ? -1 : (int)line;
}

int
pysym_line_lnotab(const uint8_t *t, size_t len, int first, int addr)
{
	size_t		 i;
	long long	 line = first;
	int		 a = 0;

	for (i = 0; i + 1 < len; i += 2) {
		a += t[i];
		if (a > addr)
			break;
		line += (int8_t)t[i + 1];
	}
	return pysym_line_int(line);
}

int
pysym_line_linetable(const uint8_t *t, size_t len, int first, int addr)
{
	size_t		 i;
	long long	 line = first;
	int		 start, end = 0, delta;

	if (addr < 0)
		return first;
	for (i = 0; i + 1 < len; i += 2) {
		start = end;
		end += t[i];
		delta = (int8_t)t[i + 1];
		if (delta != -128)
			line += delta;
		if (start <= addr && addr < end)
			return delta == -128 ? -1 : pysym_line_int(line);
	}
	return -1;
}

/* The location table's variable-length integers: 6 bits a byte. */
static unsigned int
pysym_varint(const uint8_t *t, size_t len, size_t *i)
{
	unsigned int	 v = 0, shift = 0;
	uint8_t		 b;

	do {
		if (*i >= len || shift > 24)
			return v;
		b = t[(*i)++];
		v |= (unsigned int)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

int
pysym_line_locations(const uint8_t *t, size_t len, int first, int addr)
{
	size_t		 i = 0;
	unsigned int	 v;
	long long	 line = first;
	int		 a = 0, code, units, delta;

	if (addr < 0)
		return first;
	while (i < len) {
		if (!(t[i] & 0x80)) {
			i++;		/* not an entry's start: resync */
			continue;
		}
		code = (t[i] >> 3) & 15;
		units = (t[i] & 7) + 1;
		i++;
		delta = 0;
		if (code == 13 || code == 14) {
			v = pysym_varint(t, len, &i);
			delta = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
		} else if (code >= 10 && code <= 12)
			delta = code - 10;
		line += delta;
		if (addr < a + units)
			return code == 15 ? -1 : pysym_line_int(line);
		a += units;
		while (i < len && !(t[i] & 0x80))
			i++;
	}
	return -1;
}

int
pysym_code_line(const struct pysym *s, const struct pysym_code *c,
    int32_t lasti)
{
	int	 addr;

	if (c->table == NULL)
		return -1;
	switch (s->lay.lines) {
	case PYSYM_LNOTAB:
		return pysym_line_lnotab(c->table, c->table_len,
		    c->firstlineno, lasti < 0 ? -1 : lasti);
	case PYSYM_LINETABLE:
		addr = lasti < 0 || lasti > INT32_MAX / 2 ? -1 : lasti * 2;
		return pysym_line_linetable(c->table, c->table_len,
		    c->firstlineno, addr);
	default:
		/* Bytes from co_code_adaptive, in 2-byte code units. */
		addr = lasti < 0 ? -1 : lasti / 2;
		return pysym_line_locations(c->table, c->table_len,
		    c->firstlineno, addr);
	}
}

/* Drop the code objects not used in the last keep rounds. */
static void
pysym_evict(struct pysym *s, unsigned int keep)
{
	size_t	 i;

	for (i = 0; i < s->size; i++) {
		if (s->v[i] == NULL || s->v[i]->used + keep >= s->round)
			continue;
		s->bytes -= pysym_code_bytes(s->v[i]);
		pysym_code_free(s->v[i]);
		s->v[i] = NULL;
		s->count--;
	}
	pysym_rehash(s, s->size);
}

void
pysym_round_end(struct pysym *s, unsigned int keep)
{
	pysym_evict(s, keep);
	s->round++;
}

void
pysym_stats(const struct pysym *s, struct pysym_stats *st)
{
	*st = s->st;
	st->codes = s->count;
	st->bytes = s->bytes;
}
