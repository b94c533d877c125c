/*
 * symtab: names with a symbol version (glibc's debug file has
 * memcpy@@GLIBC_2.14 and memcpy@GLIBC_2.2.5) are named without it, and
 * keep it as the name the file has; names that only look versioned
 * ("@x", "a@", "a@@") stay as they are; a table full of versioned names
 * still counts their bytes against its bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "elf/symtab.h"
#include "tap.h"

static void
add(struct symtab_builder *b, uint64_t addr, const char *name)
{
	ok(symtab_builder_add(b, addr, 0x10, UINT64_MAX, name, strlen(name),
	    1) == 0, "add %s", name);
}

static void
check(const struct symtab *st, uint64_t addr, const char *name,
    const char *system)
{
	const struct symtab_sym	*s;

	s = symtab_find(st, addr);
	ok(s != NULL, "a symbol at %#llx", (unsigned long long)addr);
	if (s == NULL)
		return;
	is_str(symtab_name(st, s), name, "its name");
	is_str(symtab_system_name(st, s), system, "as the file has it");
	is_str(symtab_lookup(st, addr + 1), name, "looked up within");
}

int
main(void)
{
	struct symtab_builder	*b;
	struct symtab		*st;

	b = symtab_builder_create();
	add(b, 0x1000, "memcpy@@GLIBC_2.14");
	add(b, 0x2000, "memcpy@GLIBC_2.2.5");
	add(b, 0x3000, "plain");
	add(b, 0x4000, "@odd");
	add(b, 0x5000, "trail@");
	add(b, 0x6000, "trail2@@");
	add(b, 0x7000, "a@b");
	st = symtab_builder_finish(b);
	check(st, 0x1000, "memcpy", "memcpy@@GLIBC_2.14");
	check(st, 0x2000, "memcpy", "memcpy@GLIBC_2.2.5");
	check(st, 0x3000, "plain", "plain");
	check(st, 0x4000, "@odd", "@odd");
	check(st, 0x5000, "trail@", "trail@");
	check(st, 0x6000, "trail2@@", "trail2@@");
	check(st, 0x7000, "a", "a@b");
	symtab_free(st);

	/* Both copies count: 19 + 7 bytes, not 19. */
	b = symtab_builder_create();
	symtab_builder_limit(b, 0, 20);
	ok(symtab_builder_add(b, 0x1000, 0x10, UINT64_MAX,
	    "memcpy@@GLIBC_2.14", 18, 1) == -1,
	    "a versioned name counts both its copies");
	ok(symtab_builder_refused(b) & SYMTAB_REFUSED_NAMES, "refused: names");
	symtab_builder_free(b);
	return done_testing();
}
