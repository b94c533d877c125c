#ifndef EBPFSPY_V8_DBG_H
#define EBPFSPY_V8_DBG_H

#include <stdint.h>

struct elf_lookup;

/* Why a V8 is not walked (its process is profiled natively). */
enum v8_refusal {
	V8_REFUSE_MISSING,		/* a v8dbg_ constant is not there */
	V8_REFUSE_COMPRESSED,		/* pointer compression: SmiShiftSize */
	V8_REFUSE_LAYOUT,		/* a constant out of any sane range */
	V8_REFUSE_ARCH,			/* the walker is x86_64 only */
	V8_REFUSE_BPF,			/* the BPF v8_info map is full */
	V8_REFUSE_MAX
};

/*
 * What naming a V8 frame needs of the objects it reads: the v8dbg_
 * constants of one file (node, libnode), offsets from an object's
 * untagged address, and the derived ones (v8_dbg.c says which).
 */
struct v8_layout {
	int	fp_function;
	int	fp_context;
	int	fp_bytecode_array;
	int	fp_bytecode_offset;
	int	map;
	int	map_type;
	int	type_func;		/* JS_FUNCTION_TYPE, the first */
	int	type_sfi;
	int	type_code;
	int	type_bytecode;
	int	type_script;
	int	type_scope_info;
	int	first_nonstring;
	int	func_shared;
	int	func_code;		/* derived: shared + 24 */
	int	sfi_name;		/* name_or_scope_info */
	int	sfi_script;		/* script_or_debug_info */
	int	sfi_data;		/* function_data */
	int	script_name;
	int	script_source;
	int	str_length;
	int	str_repr_mask;
	int	str_seq;
	int	str_cons;
	int	str_thin;
	int	str_enc_mask;
	int	str_one_byte;
	int	seq_one_chars;
	int	seq_two_chars;
	int	cons_first;
	int	cons_second;
	int	thin_actual;
	int	si_first_vars;
	int	si_ncontextlocals;
	int	bytecode_data;		/* BytecodeArray::data */
	int	bytecode_positions;	/* derived: source_position_table */
	int	code_start;		/* derived where not exported */
	int	code_inline;		/* start = Code + code_start */
};

/* The layout of a file's v8dbg_ symbols: 0, or -1 and why. */
int		 v8_dbg_read(struct elf_lookup *, struct v8_layout *,
		    enum v8_refusal *);
/* Any v8dbg_ symbol at all: 1 if the file has V8 in it. */
int		 v8_dbg_present(struct elf_lookup *);
const char	*v8_refusal_name(int);

#endif
