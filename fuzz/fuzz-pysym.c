/*
 * Python code objects read from a process's memory: names (ASCII and
 * UCS-1/2/4 strings), file names, line tables and type names, for each
 * CPython layout.  The process is this one: the input is copied to a
 * fixed address, FUZZ_PY_BASE, so that pointers in it lead back into it,
 * and the code object is read there with process_vm_readv(2), as from a
 * profiled interpreter.
 *
 * Input: 1 byte version (3.8 + n % 6), 4 bytes lasti, 4 bytes check
 * (0: any), then the memory image from FUZZ_PY_BASE on.  The line table
 * decoders get the image too.
 */
#include <sys/mman.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "python/pysym.h"
#include "python/python_table.h"

#define FUZZ_PY_BASE	0x30000000UL
#define FUZZ_PY_SIZE	(64 * 1024)

static uint8_t	*fuzz_py_mem;
static size_t	 fuzz_py_used;

void
fuzz_setup(void)
{
	void	*p;

	p = mmap((void *)FUZZ_PY_BASE, FUZZ_PY_SIZE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		abort();
	if (p != (void *)FUZZ_PY_BASE) {
		/* An old kernel took it as a hint: still usable. */
		write(2, "fuzz-pysym: image not at its address\n", 37);
	}
	fuzz_py_mem = p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	const struct python_version	*v;
	const struct pysym_code		*c;
	struct pysym_stats		 st;
	struct pysym			*s;
	uint64_t			 type;
	uint32_t			 check;
	int32_t				 lasti;
	size_t				 n;

	if (fuzz_py_mem == NULL)
		LLVMFuzzerInitialize(NULL, NULL);
	if (len < 9)
		return 0;
	if ((v = python_table_find(8 + data[0] % 6)) == NULL)
		return 0;
	memcpy(&lasti, data + 1, 4);
	memcpy(&check, data + 5, 4);
	data += 9;
	len -= 9;
	n = len < FUZZ_PY_SIZE ? len : FUZZ_PY_SIZE;
	if (fuzz_py_used > n)
		memset(fuzz_py_mem + n, 0, fuzz_py_used - n);
	memcpy(fuzz_py_mem, data, n);
	fuzz_py_used = n;

	s = pysym_create(getpid(), &v->lay);
	if ((c = pysym_code(s, (uintptr_t)fuzz_py_mem, check)) != NULL) {
		(void)strlen(c->name);
		(void)strlen(c->filename);
		pysym_code_line(s, c, lasti);
		pysym_code_line(s, c, -1);
		pysym_code_line(s, c, INT32_MAX);
		/* Again: from the cache. */
		if (pysym_code(s, (uintptr_t)fuzz_py_mem, check) != c)
			abort();
	}
	/* The object's type, as the walker names a native frame's. */
	if (n >= 16) {
		memcpy(&type, fuzz_py_mem + 8, sizeof(type));
		pysym_type_name(s, type);
		pysym_type_name(s, type);
	}
	pysym_round_end(s, 0);
	pysym_round_end(s, 0);
	pysym_stats(s, &st);
	pysym_free(s);

	/* The three line table formats, on the same bytes. */
	pysym_line_lnotab(data, n, 1, lasti);
	pysym_line_linetable(data, n, 1, lasti);
	pysym_line_locations(data, n, 1, lasti);
	return 0;
}
