/*
 * V8's decoders: a String's characters, the inferred name a ScopeInfo
 * holds, and the layout of the v8dbg_ constants of the node at
 * /usr/bin/node (node 20.20.2 here: the values the notes measured).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_lookup.h"
#include "v8/v8_dbg.h"
#include "v8/v8_sym.h"
#include "tap.h"

#define SMI(v)	((uint64_t)(v) << 32)

/* The tagged pointers of the test's non-empty strings. */
static int
is_name_cb(uint64_t slot, void *arg)
{
	const uint64_t	*names = arg;

	return slot == names[0] || slot == names[1];
}

static void
test_chars(void)
{
	const uint8_t	 two[] = { 'f', 0, 0xe9, 0, 'b', 0, 0x42, 0x30 };
	char		 d[16];

	is_int((int)v8_sym_chars((const uint8_t *)"fibRecurse", 10, 0, d,
	    sizeof(d)), 10, "one-byte: all of it");
	is_str(d, "fibRecurse", "one-byte: as it is");
	is_int((int)v8_sym_chars(two, 4, 1, d, sizeof(d)), 4,
	    "two-byte: four characters");
	is_str(d, "f?b?", "two-byte: non-ASCII as ?");
	is_int((int)v8_sym_chars((const uint8_t *)"fibRecurse", 10, 0, d, 4),
	    3, "bounded by the room, with its NUL");
	is_str(d, "fib", "bounded: the first characters");
}

/*
 * A ScopeInfo's slots as V8 11.3 lays them (notes section 3.3): flags,
 * parameter count, context-local count, the locals' names then their
 * infos, the function-variable name (empty here: an anonymous
 * function's), its index, then the inferred name.
 */
static void
test_scope(void)
{
	uint64_t	 names[2] = { 0x7f0000001001ULL, 0x7f0000002001ULL };
	uint64_t	 slots[12] = {
		SMI(0x1234), SMI(1), SMI(2),
		names[0], names[0] + 0x100,	/* the locals' names */
		SMI(7), SMI(8),			/* their infos */
		0x7f0000003001ULL,		/* the empty name */
		SMI(0),
		names[1],			/* the inferred name */
		SMI(30), SMI(90),
	};

	is_int(v8_sym_scope_name(slots, 12, 3, 2, is_name_cb, names), 9,
	    "the inferred name, after the context locals");
	slots[2] = SMI(0);
	is_int(v8_sym_scope_name(slots, 12, 3, 2, is_name_cb, names), 3,
	    "no context locals: the first name after the counts");
	slots[2] = SMI(1000);
	is_int(v8_sym_scope_name(slots, 12, 3, 2, is_name_cb, names), -1,
	    "a count beyond the slots read: none");
	slots[2] = names[0];
	is_int(v8_sym_scope_name(slots, 12, 3, 2, is_name_cb, names), -1,
	    "a count that is no SMI: none");
	is_int(v8_sym_scope_name(slots, 12, 3, 40, is_name_cb, names), -1,
	    "a count index out of the slots: none");
}

static void
test_node(void)
{
	struct elf_lookup	*pe;
	struct v8_layout	 l;
	enum v8_refusal		 why;
	int			 fd;

	if ((fd = open("/usr/bin/node", O_RDONLY)) == -1 ||
	    (pe = elf_lookup_open(fd)) == NULL) {
		ok(1, "# SKIP no /usr/bin/node");
		if (fd != -1)
			close(fd);
		return;
	}
	ok(v8_dbg_present(pe), "node has v8dbg_ symbols");
	if (v8_dbg_read(pe, &l, &why) == -1) {
		ok(0, "node's layout read: refused, %s", v8_refusal_name(why));
	} else {
		is_int(l.fp_function, -16, "the JSFunction at fp-16");
		is_int(l.fp_bytecode_offset, -40, "bytecode offset at fp-40");
		is_int(l.map_type, 12, "Map::instance_type at 12");
		is_int(l.func_shared, 24, "JSFunction::shared at 24");
		is_int(l.func_code, 48, "JSFunction::code derived, 48");
		is_int(l.sfi_name, 16, "SFI name_or_scope_info at 16");
		is_int(l.sfi_script, 32, "SFI script_or_debug_info at 32");
		is_int(l.script_name, 16, "Script::name at 16");
		ok(l.type_sfi > 0 && l.type_func > l.type_sfi,
		    "instance types read: SFI %d, JSFunction %d", l.type_sfi,
		    l.type_func);
	}
	elf_lookup_close(pe);
	close(fd);
}

int
main(void)
{
	test_chars();
	test_scope();
	test_node();
	return done_testing();
}
