/*
 * The offsets of CPython 3.8 to 3.13 on x86_64 Linux, as the walker and
 * the code object reader use them.  Each was read with gdb `ptype/o'
 * from the DWARF of pyenv's libpython3.X.so.1.0 (3.8.18, 3.9.18,
 * 3.10.13, 3.11.7, 3.12.1, 3.13.0) and, for 3.11, Debian's 3.11.2, and
 * checked by walking live processes; see t/t7000-python-split.sh.  The
 * layouts do not change within a minor version.  Two checks guard
 * against a build that differs anyway: src/python/python.c takes the autoTSSkey
 * offset from the code of PyGILState_GetThisThreadState when it can,
 * and 3.13's own _Py_DebugOffsets must agree with the table.
 */
#include <stddef.h>

#include "bpf/profile.h"
#include "python_table.h"

static const struct python_version python_table[] = {
	{
		/* 3.8: PyFrameObject chain from tstate->frame. */
		.minor = 8, .kind = PROFILE_PY_FRAMEOBJ,
		.tss_key = 0x570, .ts_frame = 24,
		.f_code = 32, .f_back = 24, .f_instr = 104,
		.f_localsplus = 360,
		.lay = { .lines = PYSYM_LNOTAB, .co_argcount = 16,
		    .co_firstlineno = 40, .co_varnames = 72,
		    .co_filename = 104, .co_name = 112, .co_linetable = 120,
		    .unicode_ascii = 48, .unicode_compact = 72 },
	},
	{
		.minor = 9, .kind = PROFILE_PY_FRAMEOBJ,
		.tss_key = 0x248, .ts_frame = 24,
		.f_code = 32, .f_back = 24, .f_instr = 104,
		.f_localsplus = 360,
		.lay = { .lines = PYSYM_LNOTAB, .co_argcount = 16,
		    .co_firstlineno = 40, .co_varnames = 72,
		    .co_filename = 104, .co_name = 112, .co_linetable = 120,
		    .unicode_ascii = 48, .unicode_compact = 72 },
	},
	{
		/* 3.10: f_lasti counts code units; co_linetable. */
		.minor = 10, .kind = PROFILE_PY_FRAMEOBJ,
		.tss_key = 0x248, .ts_frame = 24,
		.f_code = 32, .f_back = 24, .f_instr = 96,
		.f_localsplus = 352,
		.lay = { .lines = PYSYM_LINETABLE, .co_argcount = 16,
		    .co_firstlineno = 40, .co_varnames = 72,
		    .co_filename = 104, .co_name = 112, .co_linetable = 120,
		    .unicode_ascii = 48, .unicode_compact = 72 },
	},
	{
		/* 3.11: _PyInterpreterFrame via tstate->cframe. */
		.minor = 11, .kind = PROFILE_PY_IFRAME, .has_cframe = 1,
		.tss_key = 0x250, .ts_frame = 56, .cframe_frame = 8,
		.f_code = 32, .f_back = 48, .f_instr = 56, .f_owner = 69,
		.co_code = 184,
		.lay = { .lines = PYSYM_LOCATIONS, .co_argcount = 56,
		    .co_firstlineno = 72, .co_filename = 112,
		    .co_name = 120, .co_qualname = 128, .co_linetable = 136,
		    .unicode_ascii = 48, .unicode_compact = 72 },
	},
	{
		/* 3.12: shim frames (owner 3) to skip. */
		.minor = 12, .kind = PROFILE_PY_IFRAME, .has_cframe = 1,
		.has_owner = 1,
		.tss_key = 0x608, .ts_frame = 56, .cframe_frame = 0,
		.f_code = 0, .f_back = 8, .f_instr = 56, .f_owner = 70,
		.co_code = 192,
		.lay = { .lines = PYSYM_LOCATIONS, .co_argcount = 52,
		    .co_firstlineno = 68, .co_filename = 112,
		    .co_name = 120, .co_qualname = 128, .co_linetable = 136,
		    .unicode_ascii = 40, .unicode_compact = 56 },
	},
	{
		/* 3.13: tstate->current_frame; f_executable. */
		.minor = 13, .kind = PROFILE_PY_IFRAME, .has_owner = 1,
		.tss_key = 0x870, .ts_frame = 72,
		.f_code = 0, .f_back = 8, .f_instr = 56, .f_owner = 70,
		.co_code = 200,
		.lay = { .lines = PYSYM_LOCATIONS, .co_argcount = 52,
		    .co_firstlineno = 68, .co_filename = 112,
		    .co_name = 120, .co_qualname = 128, .co_linetable = 136,
		    .unicode_ascii = 40, .unicode_compact = 56 },
		/* Offsets into 3.13's _Py_DebugOffsets, and their values. */
		.debug = {
			{ 0x10, 0 },		/* free_threaded */
			{ 0xb8, 72 },		/* tstate.current_frame */
			{ 0xe8, 8 },		/* frame.previous */
			{ 0xf0, 0 },		/* .executable */
			{ 0xf8, 56 },		/* .instr_ptr */
			{ 0x108, 70 },		/* .owner */
			{ 0x118, 112 },		/* code.filename */
			{ 0x120, 120 },		/* .name */
			{ 0x128, 128 },		/* .qualname */
			{ 0x130, 136 },		/* .linetable */
			{ 0x138, 68 },		/* .firstlineno */
			{ 0x140, 52 },		/* .argcount */
			{ 0x158, 200 },		/* .co_code_adaptive */
			{ 0x230, 40 },		/* ASCII str header */
		},
		.ndebug = 14,
	},
};

const struct python_version *
python_table_find(int minor)
{
	size_t	 i;

	for (i = 0; i < sizeof(python_table) / sizeof(python_table[0]); i++)
		if (python_table[i].minor == minor)
			return &python_table[i];
	return NULL;
}
