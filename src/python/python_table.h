#ifndef EBPFSPY_PYTHON_TABLE_H
#define EBPFSPY_PYTHON_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "pysym.h"

/* A value _Py_DebugOffsets must hold (3.13+): at its offset `at'. */
struct python_debug_check {
	uint16_t	at;
	uint64_t	value;
};

/* One CPython minor version on x86_64 Linux: offsets in bytes. */
struct python_version {
	int			 minor;		/* 3.minor */
	uint8_t			 kind;	/* enum profile_py_kind */
	uint8_t			 has_cframe;
	uint8_t			 has_owner;
	uint16_t		 tss_key;	/* autoTSSkey in _PyRuntime */
	uint16_t		 ts_frame;
	uint16_t		 cframe_frame;
	uint16_t		 f_code;
	uint16_t		 f_back;
	uint16_t		 f_instr;
	uint16_t		 f_owner;
	uint16_t		 f_localsplus;
	uint16_t		 co_code;	/* co_code_adaptive */
	struct pysym_layout	 lay;
	struct python_debug_check debug[16];
	size_t			 ndebug;
};

const struct python_version *python_table_find(int);

#endif
