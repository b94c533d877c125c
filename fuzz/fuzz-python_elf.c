/*
 * Telling a CPython interpreter by its ELF file: symbols of .dynsym and
 * .symtab, bytes at their addresses (Py_Version, _PyRuntime's debug
 * offsets, the code of PyGILState_GetThisThreadState), DT_NEEDED names
 * and PT_LOAD segments, asked as src/python/python.c asks them.  A process can
 * map any file and name it python3.12.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "elf/elf_lookup.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const char *const names[] = { "_PyRuntime", "Py_Version",
	    "PyCode_Type", "PyGILState_GetThisThreadState" };
	struct elf_lookup	*pe;
	uint64_t		 val[4], off[16], vaddr[16], seglen[16];
	uint8_t			 buf[0x238];
	size_t			 i, n;
	int			 fd, symtab;

	if ((fd = fuzz_memfd(data, len)) == -1)
		return 0;
	if ((pe = elf_lookup_open(fd)) == NULL) {
		close(fd);
		return 0;
	}
	for (symtab = 0; symtab < 2; symtab++) {
		if (elf_lookup_symbols(pe, names, val, 4, symtab) > 4)
			abort();
		for (i = 0; i < 4; i++) {
			if (val[i] == 0)
				continue;
			elf_lookup_read(pe, val[i], buf, 8);
			elf_lookup_read(pe, val[i], buf, 48);
			elf_lookup_read(pe, val[i], buf, sizeof(buf));
		}
	}
	elf_lookup_needs(pe, "libpython");
	n = elf_lookup_loads(pe, off, vaddr, seglen, 16);
	if (n > 16)
		abort();
	for (i = 0; i < n; i++)
		elf_lookup_read(pe, vaddr[i], buf, 16);
	elf_lookup_close(pe);
	close(fd);
	return 0;
}
