/*
 * src/python/pysym.c, src/elf/elf_lookup.c,
 * src/python/python_table.c: line tables decoded by hand-made tables,
 * code objects and strings read from fake objects in this process's own
 * memory (bad ones too), and the ELF lookups on this test's own
 * executable.
 */
#include <sys/types.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/profile.h"
#include "elf/elf_lookup.h"
#include "python/pysym.h"
#include "python/python.h"
#include "python/python_table.h"
#include "tap.h"

const unsigned long t_pysym_marker = 0x0123456789abcdefUL;

static void
test_lnotab(void)
{
	/* (addr delta, line delta): 6 +1, 8 +2, 4 -1. */
	static const uint8_t	 t[] = { 6, 1, 8, 2, 4, 0xff };

	is_int(pysym_line_lnotab(t, sizeof(t), 10, 0), 10, "lnotab: start");
	is_int(pysym_line_lnotab(t, sizeof(t), 10, 5), 10, "lnotab: 5");
	is_int(pysym_line_lnotab(t, sizeof(t), 10, 6), 11, "lnotab: 6");
	is_int(pysym_line_lnotab(t, sizeof(t), 10, 14), 13, "lnotab: 14");
	is_int(pysym_line_lnotab(t, sizeof(t), 10, 18), 12, "lnotab: back");
	is_int(pysym_line_lnotab(t, sizeof(t), 10, 500), 12, "lnotab: end");
	is_int(pysym_line_lnotab(t, 5, 10, 500), 13, "lnotab: odd length");
	is_int(pysym_line_lnotab(NULL, 0, 7, 3), 7, "lnotab: empty");
}

static void
test_linetable(void)
{
	/* 3.10: (bytes, line delta), -128: no line. */
	static const uint8_t	 t[] = { 4, 0, 6, 1, 2, 0x80, 4, 2 };

	is_int(pysym_line_linetable(t, sizeof(t), 10, -1), 10,
	    "linetable: before the start");
	is_int(pysym_line_linetable(t, sizeof(t), 10, 0), 10, "linetable: 0");
	is_int(pysym_line_linetable(t, sizeof(t), 10, 4), 11, "linetable: 4");
	is_int(pysym_line_linetable(t, sizeof(t), 10, 9), 11, "linetable: 9");
	is_int(pysym_line_linetable(t, sizeof(t), 10, 10), -1,
	    "linetable: no line");
	is_int(pysym_line_linetable(t, sizeof(t), 10, 12), 13,
	    "linetable: after no line");
	is_int(pysym_line_linetable(t, sizeof(t), 10, 16), -1,
	    "linetable: past the end");
}

static void
test_locations(void)
{
	static const uint8_t	 t[] = {
		0x81, 0x05,			/* short, 2 units: +0 */
		0xd8, 0x01, 0x02,		/* one line +1, 1 unit */
		0xea, 0x07,			/* no columns, -3, 3 units */
		0xf8,				/* none, 1 unit */
		0xf0, 0x28, 0x00, 0x01, 0x02,	/* long, +20, 1 unit */
		0xe8, 0x48, 0x03,		/* no columns, +100 */
	};
	uint8_t			 junk[512];
	size_t			 i;
	int			 a, line;

	is_int(pysym_line_locations(t, sizeof(t), 50, -1), 50,
	    "locations: before the start");
	is_int(pysym_line_locations(t, sizeof(t), 50, 1), 50,
	    "locations: short form");
	is_int(pysym_line_locations(t, sizeof(t), 50, 2), 51,
	    "locations: one-line form");
	is_int(pysym_line_locations(t, sizeof(t), 50, 5), 48,
	    "locations: negative delta");
	is_int(pysym_line_locations(t, sizeof(t), 50, 6), -1,
	    "locations: no location");
	is_int(pysym_line_locations(t, sizeof(t), 50, 7), 68,
	    "locations: long form");
	is_int(pysym_line_locations(t, sizeof(t), 50, 8), 168,
	    "locations: two-byte varint");
	is_int(pysym_line_locations(t, sizeof(t), 50, 9), -1,
	    "locations: past the end");
	is_int(pysym_line_locations(t, 14, 50, 8), 50 + 1 - 3 + 20,
	    "locations: a table cut inside an entry");
	/* Untrusted bytes: any answer, but an answer. */
	srand(7);
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = rand();
	for (a = 0, line = 0; a < 2000; a += 7) {
		line += pysym_line_locations(junk, sizeof(junk), 1, a) != 0;
		line += pysym_line_linetable(junk, sizeof(junk), 1, a) != 0;
		line += pysym_line_lnotab(junk, sizeof(junk), 1, a) != 0;
	}
	ok(line > 0, "random tables decode without harm");
}

/* Fake CPython 3.12 objects, in our own memory. */
struct fake_str {
	uint8_t		 head[56];
	char		 data[64];
};

static void
fake_ascii(struct fake_str *s, const char *text)
{
	uint64_t	 len = strlen(text);
	uint32_t	 state = 1 << 2 | 1 << 5 | 1 << 6;

	memset(s, 0, sizeof(*s));
	memcpy(s->head + 16, &len, 8);
	memcpy(s->head + 32, &state, 4);
	/* 3.12: the ASCII data follows a 40-byte header. */
	memcpy(s->head + 40, text, len);
}

static void
set64(uint8_t *obj, size_t off, uint64_t v)
{
	memcpy(obj + off, &v, 8);
}

static void
set32(uint8_t *obj, size_t off, uint32_t v)
{
	memcpy(obj + off, &v, 4);
}

static void
test_code(void)
{
	const struct python_version	*v = python_table_find(12);
	const struct pysym_code		*c;
	struct pysym_stats		 st;
	struct pysym			*s;
	struct fake_str			 name, file, bad, big;
	uint8_t				 code[256], bytes[40], type[64];
	uint8_t				 ucs2[56 + 8];
	uint64_t			 len;
	uint32_t			 check, state;
	const char			*tn;
	static const char		 tpname[] = "Worker";

	ok(v != NULL, "3.12 has a table");
	if (v == NULL)
		return;
	fake_ascii(&name, "Worker.step");
	fake_ascii(&file, "/srv/app/worker.py");
	memset(bytes, 0, sizeof(bytes));
	len = 2;
	set64(bytes, 16, len);
	bytes[32] = 0x81;	/* one entry, 2 units, same line */
	bytes[33] = 0;
	memset(code, 0, sizeof(code));
	set32(code, v->lay.co_argcount, 1);
	set32(code, v->lay.co_firstlineno, 42);
	set64(code, v->lay.co_filename, (uintptr_t)&file);
	set64(code, v->lay.co_name, (uintptr_t)&name);
	set64(code, v->lay.co_qualname, (uintptr_t)&name);
	set64(code, v->lay.co_linetable, (uintptr_t)bytes);
	check = profile_py_check((uintptr_t)&name, (uintptr_t)&file, 42, 1);

	s = pysym_create(getpid(), &v->lay);
	c = pysym_code(s, (uintptr_t)code, check);
	ok(c != NULL, "a code object is read");
	if (c != NULL) {
		is_str(c->name, "Worker.step", "its qualified name");
		is_str(c->filename, "/srv/app/worker.py", "its file");
		is_int(c->firstlineno, 42, "its first line");
		is_int(pysym_code_line(s, c, 2), 42, "the line of lasti");
		is_int(pysym_code_line(s, c, -2), 42, "before the first");
	}
	ok(pysym_code(s, (uintptr_t)code, check) == c, "cached");
	ok(pysym_code(s, (uintptr_t)code, 0) == c, "no check: cached");
	ok(pysym_code(s, (uintptr_t)code, check ^ 1) == NULL,
	    "another check: not this object");
	pysym_stats(s, &st);
	is_int(st.stale, 1, "counted stale");
	is_int(st.codes, 1, "one cached");

	/* A non-ASCII file name: compact UCS-2 after 56 bytes. */
	memset(ucs2, 0, sizeof(ucs2));
	len = 3;
	state = 2 << 2 | 1 << 5;
	memcpy(ucs2 + 16, &len, 8);
	memcpy(ucs2 + 32, &state, 4);
	ucs2[56] = 'a';
	ucs2[58] = 0xe9;	/* é */
	ucs2[60] = 0xac;	/* € = 0x20ac */
	ucs2[61] = 0x20;
	set64(code, v->lay.co_filename, (uintptr_t)ucs2);
	check = profile_py_check((uintptr_t)&name, (uintptr_t)ucs2, 42, 1);
	c = pysym_code(s, (uintptr_t)code, check);
	ok(c != NULL && strcmp(c->filename, "a\xc3\xa9\xe2\x82\xac") == 0,
	    "UCS-2 becomes UTF-8");

	/* Not compact: refused. */
	fake_ascii(&bad, "x");
	state = 1 << 2 | 1 << 6;
	memcpy(bad.head + 32, &state, 4);
	set64(code, v->lay.co_filename, (uintptr_t)&bad);
	check = profile_py_check((uintptr_t)&name, (uintptr_t)&bad, 42, 1);
	ok(pysym_code(s, (uintptr_t)code, check) == NULL,
	    "a string that is not compact: no name");
	/* A length past the bound. */
	fake_ascii(&big, "x");
	len = 1 << 20;
	memcpy(big.head + 16, &len, 8);
	set64(code, v->lay.co_filename, (uintptr_t)&big);
	check = profile_py_check((uintptr_t)&name, (uintptr_t)&big, 42, 1);
	ok(pysym_code(s, (uintptr_t)code, check) == NULL,
	    "a string a megabyte long: no name");
	/* Memory that is not there. */
	set64(code, v->lay.co_filename, 8);
	check = profile_py_check((uintptr_t)&name, 8, 42, 1);
	ok(pysym_code(s, (uintptr_t)code, check) == NULL,
	    "an unmapped string");
	ok(pysym_code(s, 16, 0) == NULL, "an unmapped code object");

	memset(type, 0, sizeof(type));
	set64(type, 24, (uintptr_t)tpname);
	tn = pysym_type_name(s, (uintptr_t)type);
	is_str(tn, "Worker", "a type's name");
	ok(pysym_type_name(s, (uintptr_t)type) == tn, "cached");
	pysym_round_end(s, 0);
	pysym_round_end(s, 0);
	pysym_stats(s, &st);
	is_int(st.codes, 0, "unused code objects are forgotten");
	pysym_free(s);
	pysym_free(NULL);
}

static void
test_self(void)
{
	const struct python_version	*v = python_table_find(10);
	const struct pysym_code		*c;
	struct pysym			*s;
	struct fake_str			 name, file, self;
	uint8_t				 code[256], tuple[40];

	ok(v != NULL && v->lay.co_qualname == 0, "3.10: no co_qualname");
	if (v == NULL)
		return;
	/* 3.10 strings: 48-byte ASCII header. */
	fake_ascii(&name, "");
	memcpy(name.head + 48, "step", 5);
	name.head[16] = 4;
	fake_ascii(&file, "");
	memcpy(file.head + 48, "w.py", 5);
	file.head[16] = 4;
	fake_ascii(&self, "");
	memcpy(self.head + 48, "self", 5);
	self.head[16] = 4;
	memset(tuple, 0, sizeof(tuple));
	set64(tuple, 16, 1);
	set64(tuple, 24, (uintptr_t)&self);
	memset(code, 0, sizeof(code));
	set32(code, v->lay.co_argcount, 1);
	set32(code, v->lay.co_firstlineno, 3);
	set64(code, v->lay.co_filename, (uintptr_t)&file);
	set64(code, v->lay.co_name, (uintptr_t)&name);
	set64(code, v->lay.co_varnames, (uintptr_t)tuple);
	s = pysym_create(getpid(), &v->lay);
	c = pysym_code(s, (uintptr_t)code, 0);
	ok(c != NULL && c->self_arg && strcmp(c->name, "step") == 0,
	    "3.10: a method's first argument is self");
	ok(c != NULL && c->table == NULL && pysym_code_line(s, c, 4) == -1,
	    "no line table: no line");
	pysym_free(s);
}

static void
test_elf(void)
{
	static const char *const names[] = { "t_pysym_marker", "main",
	    "no_such_symbol" };
	struct elf_lookup	*pe;
	uint64_t		 val[3], got = 0, off[8], va[8], len[8];
	char			 path[] = "/tmp/t-pysym.XXXXXX";
	int			 fd;

	if ((fd = open("/proc/self/exe", O_RDONLY)) == -1) {
		ok(0, "open /proc/self/exe");
		return;
	}
	pe = elf_lookup_open(fd);
	ok(pe != NULL, "our own executable opens");
	if (pe != NULL) {
		is_int(elf_lookup_symbols(pe, names, val, 3, 1), 2,
		    "two symbols of three found");
		ok(val[0] != 0 && val[1] != 0 && val[2] == 0,
		    "the right two");
		ok(elf_lookup_read(pe, val[0], &got, sizeof(got)) == 0 &&
		    got == t_pysym_marker, "a constant read from the file");
		ok(elf_lookup_read(pe, 0, &got, sizeof(got)) == -1,
		    "address 0 is in no section");
		ok(elf_lookup_needs(pe, "libc."), "DT_NEEDED libc");
		ok(!elf_lookup_needs(pe, "libpython"), "no libpython");
		ok(elf_lookup_loads(pe, off, va, len, 8) > 0, "PT_LOAD");
		elf_lookup_close(pe);
	}
	close(fd);

	/* A truncated ELF header, then a lying section count. */
	if ((fd = mkstemp(path)) == -1) {
		ok(0, "mkstemp");
		return;
	}
	unlink(path);
	if (write(fd, "\177ELF\2\1\1", 7) != 7)
		ok(0, "write");
	ok(elf_lookup_open(fd) == NULL, "a truncated header is refused");
	close(fd);
	elf_lookup_close(NULL);
}

static void
test_table_and_stacks(void)
{
	struct profile_pystack		 st;
	const struct profile_py_frame	*f;
	size_t				 n;
	uint32_t			 flags;
	int				 m, found = 0;

	for (m = 0; m < 20; m++)
		found += python_table_find(m) != NULL;
	is_int(found, 6, "six versions have tables");
	ok(python_table_find(7) == NULL && python_table_find(14) == NULL,
	    "3.7 and 3.14 have none");

	memset(&st, 0, sizeof(st));
	st.n = 2;
	st.flags = PROFILE_PY_F_TRUNCATED;
	st.f[1].code = 0x1234;
	is_int(python_stack_words((const uint64_t *)&st,
	    sizeof(st) / 8), 1 + 2 * 3, "words kept of a 2-frame stack");
	ok(python_stack_frames((const uint64_t *)&st, 7, &f, &n, &flags) ==
	    0 && n == 2 && f[1].code == 0x1234 &&
	    flags == PROFILE_PY_F_TRUNCATED, "its frames and flags");
	ok(python_stack_frames((const uint64_t *)&st, 6, &f, &n, &flags) ==
	    -1, "short words are refused");
	st.n = 100000;
	is_int(python_stack_words((const uint64_t *)&st, sizeof(st) / 8),
	    sizeof(st) / 8, "a frame count past the depth is capped");
}

int
main(void)
{
	test_lnotab();
	test_linetable();
	test_locations();
	test_code();
	test_self();
	test_elf();
	test_table_and_stacks();
	return done_testing();
}
