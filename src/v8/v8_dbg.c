/*
 * V8's postmortem constants: the v8dbg_ symbols that Node.js always
 * links in (tools/gen-postmortem-metadata.py), each a 4-byte int in the
 * executable or libnode, read from the file.  They give the frame
 * layout, the instance types and the offsets of the fields naming a
 * frame reads; the few V8 11 no longer exports are derived by the rule
 * /work/shared/notes/jvm-v8.md section 3.1 gives (node 20, V8 11.3).
 * The file is untrusted: a constant out of any sane range refuses it,
 * and so does pointer compression (SmiShiftSize not 31: 32-bit tagged
 * fields the walker does not read).
 */
#include <stddef.h>
#include <stdint.h>

#include "elf/elf_lookup.h"
#include "v8_dbg.h"

#define V8_DBG_OFF_MAX		4096	/* of a field in an object */
#define V8_DBG_TYPE_MAX		65535

enum v8_dbg_sym {
	D_SMI_SHIFT, D_FP_FUNCTION, D_FP_CONTEXT, D_FP_BYTECODE_ARRAY,
	D_FP_BYTECODE_OFFSET, D_MAP, D_MAP_TYPE, D_TYPE_FUNC, D_TYPE_SFI,
	D_TYPE_CODE, D_TYPE_BYTECODE, D_TYPE_SCRIPT, D_TYPE_SCOPE_INFO,
	D_FIRST_NONSTRING, D_FUNC_SHARED, D_SFI_NAME, D_SFI_SCRIPT,
	D_SFI_DATA, D_SCRIPT_NAME, D_SCRIPT_SOURCE, D_STR_LENGTH,
	D_STR_REPR_MASK, D_STR_SEQ, D_STR_CONS, D_STR_THIN, D_STR_ENC_MASK,
	D_STR_ONE_BYTE, D_SEQ_ONE_CHARS, D_SEQ_TWO_CHARS, D_CONS_FIRST,
	D_CONS_SECOND, D_THIN_ACTUAL, D_SI_FIRST_VARS, D_SI_NCONTEXTLOCALS,
	D_BYTECODE_DATA, D_MAX
};

static const char *const v8_dbg_names[D_MAX] = {
	"v8dbg_SmiShiftSize",
	"v8dbg_off_fp_function",
	"v8dbg_off_fp_context",
	"v8dbg_off_fp_bytecode_array",
	"v8dbg_off_fp_bytecode_offset",
	"v8dbg_class_HeapObject__map__Map",
	"v8dbg_class_Map__instance_type__uint16_t",
	"v8dbg_type_JSFunction__JS_FUNCTION_TYPE",
	"v8dbg_type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE",
	"v8dbg_type_Code__CODE_TYPE",
	"v8dbg_type_BytecodeArray__BYTECODE_ARRAY_TYPE",
	"v8dbg_type_Script__SCRIPT_TYPE",
	"v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE",
	"v8dbg_FirstNonstringType",
	"v8dbg_class_JSFunction__shared__SharedFunctionInfo",
	"v8dbg_class_SharedFunctionInfo__name_or_scope_info__Object",
	"v8dbg_class_SharedFunctionInfo__script_or_debug_info__HeapObject",
	"v8dbg_class_SharedFunctionInfo__function_data__Object",
	"v8dbg_class_Script__name__Object",
	"v8dbg_class_Script__source__Object",
	"v8dbg_class_String__length__int32_t",
	"v8dbg_StringRepresentationMask",
	"v8dbg_SeqStringTag",
	"v8dbg_ConsStringTag",
	"v8dbg_ThinStringTag",
	"v8dbg_StringEncodingMask",
	"v8dbg_OneByteStringTag",
	"v8dbg_class_SeqOneByteString__chars__char",
	"v8dbg_class_SeqTwoByteString__chars__char",
	"v8dbg_class_ConsString__first__String",
	"v8dbg_class_ConsString__second__String",
	"v8dbg_class_ThinString__actual__String",
	"v8dbg_scopeinfo_idx_first_vars",
	"v8dbg_scopeinfo_idx_ncontextlocals",
	"v8dbg_class_BytecodeArray__data__uintptr_t",
};

/* Constants that may be 0 in the file: tags and masks, .bss. */
static int
v8_dbg_may_be_zero(int i)
{
	return i == D_MAP || i == D_STR_SEQ || i == D_FP_CONTEXT;
}

static int
v8_dbg_off_ok(int v)
{
	return v >= 0 && v < V8_DBG_OFF_MAX && (v & 7) == 0;
}

int
v8_dbg_present(struct elf_lookup *pe)
{
	const char	*name = v8_dbg_names[D_SMI_SHIFT];
	uint64_t	 v;

	return elf_lookup_symbols(pe, &name, &v, 1, 0) == 1;
}

static int
v8_dbg_check(const struct v8_layout *l)
{
	const int	 offs[] = { l->map, l->func_shared, l->sfi_name,
	    l->sfi_script, l->sfi_data, l->script_name, l->script_source,
	    l->seq_one_chars & ~7, l->cons_first, l->cons_second,
	    l->thin_actual, l->str_length & ~7, l->map_type & ~7 };
	size_t		 i;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		if (!v8_dbg_off_ok(offs[i]))
			return -1;
	}
	if (l->fp_function > -8 || l->fp_function < -56 ||
	    l->fp_bytecode_offset > -8 || l->fp_bytecode_offset < -56 ||
	    l->fp_bytecode_array > -8 || l->fp_bytecode_array < -56 ||
	    l->fp_context > -8 || l->fp_context < -56)
		return -1;
	if (l->type_func <= 0 || l->type_func > V8_DBG_TYPE_MAX - 16 ||
	    l->type_sfi <= 0 || l->type_sfi > V8_DBG_TYPE_MAX ||
	    l->type_code <= 0 || l->type_code > V8_DBG_TYPE_MAX ||
	    l->type_bytecode <= 0 || l->type_bytecode > V8_DBG_TYPE_MAX ||
	    l->first_nonstring <= 0 || l->first_nonstring > 1024 ||
	    l->str_repr_mask <= 0 || l->str_repr_mask > 255 ||
	    l->si_first_vars < 0 || l->si_first_vars > 64 ||
	    l->si_ncontextlocals < 0 || l->si_ncontextlocals > 64 ||
	    l->bytecode_data <= 0 || l->bytecode_data > V8_DBG_OFF_MAX)
		return -1;
	return 0;
}

int
v8_dbg_read(struct elf_lookup *pe, struct v8_layout *l,
    enum v8_refusal *why)
{
	uint64_t	 addr[D_MAX];
	int32_t		 v[D_MAX];
	int		 i;

	elf_lookup_symbols(pe, v8_dbg_names, addr, D_MAX, 0);
	for (i = 0; i < D_MAX; i++) {
		v[i] = 0;
		if (addr[i] == 0 || elf_lookup_read(pe, addr[i], &v[i],
		    sizeof(v[i])) == -1) {
			if (addr[i] != 0 && v8_dbg_may_be_zero(i))
				continue;
			*why = V8_REFUSE_MISSING;
			return -1;
		}
	}
	if (v[D_SMI_SHIFT] != 31) {
		*why = V8_REFUSE_COMPRESSED;
		return -1;
	}
	l->fp_function = v[D_FP_FUNCTION];
	l->fp_context = v[D_FP_CONTEXT];
	l->fp_bytecode_array = v[D_FP_BYTECODE_ARRAY];
	l->fp_bytecode_offset = v[D_FP_BYTECODE_OFFSET];
	l->map = v[D_MAP];
	l->map_type = v[D_MAP_TYPE];
	l->type_func = v[D_TYPE_FUNC];
	l->type_sfi = v[D_TYPE_SFI];
	l->type_code = v[D_TYPE_CODE];
	l->type_bytecode = v[D_TYPE_BYTECODE];
	l->type_script = v[D_TYPE_SCRIPT];
	l->type_scope_info = v[D_TYPE_SCOPE_INFO];
	l->first_nonstring = v[D_FIRST_NONSTRING];
	l->func_shared = v[D_FUNC_SHARED];
	l->sfi_name = v[D_SFI_NAME];
	l->sfi_script = v[D_SFI_SCRIPT];
	l->sfi_data = v[D_SFI_DATA];
	l->script_name = v[D_SCRIPT_NAME];
	l->script_source = v[D_SCRIPT_SOURCE];
	l->str_length = v[D_STR_LENGTH];
	l->str_repr_mask = v[D_STR_REPR_MASK];
	l->str_seq = v[D_STR_SEQ];
	l->str_cons = v[D_STR_CONS];
	l->str_thin = v[D_STR_THIN];
	l->str_enc_mask = v[D_STR_ENC_MASK];
	l->str_one_byte = v[D_STR_ONE_BYTE];
	l->seq_one_chars = v[D_SEQ_ONE_CHARS];
	l->seq_two_chars = v[D_SEQ_TWO_CHARS];
	l->cons_first = v[D_CONS_FIRST];
	l->cons_second = v[D_CONS_SECOND];
	l->thin_actual = v[D_THIN_ACTUAL];
	l->si_first_vars = v[D_SI_FIRST_VARS];
	l->si_ncontextlocals = v[D_SI_NCONTEXTLOCALS];
	l->bytecode_data = v[D_BYTECODE_DATA];
	/*
	 * Not exported by V8 11 (node 20): the JSFunction's code follows
	 * its shared info, the Code holds a pointer to its instructions
	 * at 40, and the BytecodeArray's source positions are the fourth
	 * field after its length.
	 */
	l->func_code = l->func_shared + 24;
	l->code_start = 40;
	l->code_inline = 0;
	l->bytecode_positions = 32;
	if (v8_dbg_check(l) == -1) {
		*why = V8_REFUSE_LAYOUT;
		return -1;
	}
	return 0;
}

const char *
v8_refusal_name(int why)
{
	static const char *const names[V8_REFUSE_MAX] = {
		[V8_REFUSE_MISSING] = "missing",
		[V8_REFUSE_COMPRESSED] = "pointer_compression",
		[V8_REFUSE_LAYOUT] = "layout",
		[V8_REFUSE_ARCH] = "arch",
		[V8_REFUSE_BPF] = "bpf",
	};

	if (why < 0 || why >= V8_REFUSE_MAX)
		return "?";
	return names[why];
}
