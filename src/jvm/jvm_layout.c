/*
 * A JVM's layout, taken from what it exports (jvm_structs.c), with the
 * version differences the tables alone do not say: JDK 23 moved the
 * CodeBlob's code to offsets and the nmethod's tables to "immutable
 * data", JDK 25 its metadata to "mutable data"; JDK 20 stores UNSIGNED5
 * bytes +1; a few JDKs between 11 and 16 export Symbol's length as
 * _length_and_refcount.  Each difference is told by the fields the JVM
 * has, not by its version number, where it can be: a build that
 * backports a change is still read right.  A field that is missing
 * refuses the JVM (the caller counts it): nothing is guessed.
 */
#include <stdint.h>
#include <string.h>

#include "jvm_layout.h"
#include "jvm_mem.h"
#include "jvm_structs.h"

/* Look a field up, or note it as the one missing. */
static int
jvm_layout_field(const struct jvm_structs *s, const char *type,
    const char *name, uint64_t *v, const char **missing)
{
	if (jvm_structs_field(s, type, name, v) == 0)
		return 0;
	if (*missing == NULL)
		*missing = name;
	return -1;
}

static int
jvm_layout_static(const struct jvm_structs *s, const char *type,
    const char *name, uint64_t *v, const char **missing)
{
	if (jvm_structs_static(s, type, name, v) == 0)
		return 0;
	if (*missing == NULL)
		*missing = name;
	return -1;
}

static int
jvm_layout_size(const struct jvm_structs *s, const char *type, uint64_t *v,
    const char **missing)
{
	if (jvm_structs_size(s, type, v) == 0)
		return 0;
	if (*missing == NULL)
		*missing = type;
	return -1;
}

/* A field's width from its C type: what the table says, not a guess. */
static uint64_t
jvm_layout_width(const struct jvm_structs *s, const char *type,
    const char *name, uint64_t dflt)
{
	const char	*t = jvm_structs_field_type(s, type, name);

	if (t == NULL)
		return dflt;
	if (strcmp(t, "u1") == 0 || strcmp(t, "bool") == 0 ||
	    strcmp(t, "CompLevel") == 0 || strcmp(t, "CodeBlobKind") == 0)
		return 1;
	if (strcmp(t, "u2") == 0 || strcmp(t, "int16_t") == 0 ||
	    strcmp(t, "uint16_t") == 0)
		return 2;
	if (strcmp(t, "size_t") == 0 || strcmp(t, "uint64_t") == 0)
		return 8;
	return 4;
}

static int
jvm_layout_code(const struct jvm_structs *s, struct jvm_layout *l,
    const char **m)
{
	int	 rc = 0;

	rc |= jvm_layout_static(s, "CodeCache", "_heaps", &l->heaps, m);
	rc |= jvm_layout_static(s, "CodeCache", "_low_bound", &l->low_bound,
	    m);
	rc |= jvm_layout_static(s, "CodeCache", "_high_bound",
	    &l->high_bound, m);
	rc |= jvm_layout_field(s, "GrowableArrayBase", "_len", &l->ga_len, m);
	rc |= jvm_layout_field(s, "GrowableArray<int>", "_data", &l->ga_data,
	    m);
	rc |= jvm_layout_field(s, "CodeHeap", "_memory", &l->heap_memory, m);
	rc |= jvm_layout_field(s, "CodeHeap", "_segmap", &l->heap_segmap, m);
	rc |= jvm_layout_field(s, "CodeHeap", "_log2_segment_size",
	    &l->heap_log2seg, m);
	rc |= jvm_layout_field(s, "VirtualSpace", "_low_boundary",
	    &l->vs_low_boundary, m);
	rc |= jvm_layout_field(s, "VirtualSpace", "_high_boundary",
	    &l->vs_high_boundary, m);
	rc |= jvm_layout_field(s, "VirtualSpace", "_high", &l->vs_high, m);
	rc |= jvm_layout_size(s, "HeapBlock", &l->heapblock_size, m);
	rc |= jvm_layout_field(s, "HeapBlock::Header", "_length",
	    &l->hb_length, m);
	rc |= jvm_layout_field(s, "HeapBlock::Header", "_used", &l->hb_used,
	    m);
	l->hb_length_size = jvm_layout_width(s, "HeapBlock::Header",
	    "_length", 8);
	rc |= jvm_layout_field(s, "CodeBlob", "_name", &l->cb_name, m);
	rc |= jvm_layout_field(s, "CodeBlob", "_size", &l->cb_size, m);
	rc |= jvm_layout_field(s, "CodeBlob", "_frame_size",
	    &l->cb_frame_size, m);
	rc |= jvm_layout_field(s, "CodeBlob", "_frame_complete_offset",
	    &l->cb_frame_complete, m);
	l->cb_frame_complete_size = jvm_layout_width(s, "CodeBlob",
	    "_frame_complete_offset", 4);
	/* JDK 23 made the code's bounds offsets from the blob. */
	if (jvm_structs_field(s, "CodeBlob", "_code_begin",
	    &l->cb_code_begin) == 0) {
		l->cb_code_ptrs = 1;
		rc |= jvm_layout_field(s, "CodeBlob", "_code_end",
		    &l->cb_code_end, m);
	} else {
		rc |= jvm_layout_field(s, "CodeBlob", "_code_offset",
		    &l->cb_code_begin, m);
		rc |= jvm_layout_field(s, "CodeBlob", "_data_offset",
		    &l->cb_code_end, m);
	}
	return rc;
}

static int
jvm_layout_nmethod(const struct jvm_structs *s, struct jvm_layout *l,
    const char **m)
{
	int	 rc = 0;

	/* JDK 23 folded CompiledMethod into nmethod. */
	if (jvm_structs_field(s, "nmethod", "_method", &l->nm_method) == -1)
		rc |= jvm_layout_field(s, "CompiledMethod", "_method",
		    &l->nm_method, m);
	rc |= jvm_layout_field(s, "nmethod", "_compile_id",
	    &l->nm_compile_id, m);
	rc |= jvm_layout_field(s, "nmethod", "_scopes_pcs_offset",
	    &l->nm_scopes_pcs_offset, m);
	if (jvm_structs_field(s, "nmethod", "_immutable_data",
	    &l->nm_immutable_data) == 0) {
		l->nm_immutable = 1;
		rc |= jvm_layout_field(s, "nmethod", "_immutable_data_size",
		    &l->nm_immutable_data_size, m);
		rc |= jvm_layout_field(s, "nmethod", "_scopes_data_offset",
		    &l->nm_scopes_data_offset, m);
		/* 25: the metadata after the relocations, mutable. */
		if (jvm_structs_field(s, "nmethod", "_metadata_offset",
		    &l->nm_metadata_offset) == -1) {
			rc |= jvm_layout_field(s, "CodeBlob", "_mutable_data",
			    &l->cb_mutable_data, m);
			rc |= jvm_layout_field(s, "CodeBlob",
			    "_relocation_size", &l->cb_relocation_size, m);
			rc |= jvm_layout_field(s, "CodeBlob",
			    "_mutable_data_size", &l->cb_mutable_data_size,
			    m);
		}
	} else {
		if (jvm_structs_field(s, "nmethod", "_scopes_data_begin",
		    &l->nm_scopes_data_begin) == -1)
			rc |= jvm_layout_field(s, "CompiledMethod",
			    "_scopes_data_begin", &l->nm_scopes_data_begin,
			    m);
		rc |= jvm_layout_field(s, "nmethod", "_metadata_offset",
		    &l->nm_metadata_offset, m);
		rc |= jvm_layout_field(s, "nmethod", "_dependencies_offset",
		    &l->nm_dependencies_offset, m);
	}
	rc |= jvm_layout_size(s, "PcDesc", &l->pcdesc_size, m);
	rc |= jvm_layout_field(s, "PcDesc", "_pc_offset", &l->pc_pc_offset, m);
	rc |= jvm_layout_field(s, "PcDesc", "_scope_decode_offset",
	    &l->pc_scope_offset, m);
	return rc;
}

static int
jvm_layout_method(const struct jvm_structs *s, struct jvm_layout *l,
    const char **m)
{
	int64_t	 bit;
	int	 rc = 0;

	rc |= jvm_layout_field(s, "Method", "_constMethod",
	    &l->method_constmethod, m);
	rc |= jvm_layout_field(s, "ConstMethod", "_constants",
	    &l->cm_constants, m);
	/* JDK 21 made the flags a ConstMethodFlags of 4 bytes. */
	if (jvm_structs_field(s, "ConstMethod", "_flags", &l->cm_flags) == 0)
		l->cm_flags_size = jvm_layout_width(s, "ConstMethod",
		    "_flags", 2);
	else {
		rc |= jvm_layout_field(s, "ConstMethod", "_flags._flags",
		    &l->cm_flags, m);
		l->cm_flags_size = jvm_layout_width(s, "ConstMethod",
		    "_flags._flags", 4);
	}
	if (jvm_structs_int(s, "ConstMethod::_has_linenumber_table",
	    &bit) == -1 && jvm_structs_int(s,
	    "ConstMethodFlags::_misc_has_linenumber_table", &bit) == -1)
		bit = 1;
	l->cm_has_linenumbers = (uint64_t)bit;
	rc |= jvm_layout_field(s, "ConstMethod", "_code_size",
	    &l->cm_code_size, m);
	rc |= jvm_layout_field(s, "ConstMethod", "_name_index",
	    &l->cm_name_index, m);
	rc |= jvm_layout_field(s, "ConstMethod", "_signature_index",
	    &l->cm_signature_index, m);
	rc |= jvm_layout_size(s, "ConstMethod", &l->cm_size, m);
	rc |= jvm_layout_field(s, "ConstantPool", "_pool_holder",
	    &l->cp_pool_holder, m);
	rc |= jvm_layout_field(s, "ConstantPool", "_source_file_name_index",
	    &l->cp_source_file_index, m);
	rc |= jvm_layout_size(s, "ConstantPool", &l->cp_size, m);
	rc |= jvm_layout_field(s, "Klass", "_name", &l->klass_name, m);
	rc |= jvm_layout_field(s, "Symbol", "_body", &l->sym_body, m);
	/* 11 to 16 (some): the length shares a word with the count. */
	if (jvm_structs_field(s, "Symbol", "_length", &l->sym_length) == -1) {
		rc |= jvm_layout_field(s, "Symbol", "_length_and_refcount",
		    &l->sym_length, m);
		l->sym_length += 2;
	}
	return rc;
}

int
jvm_layout_make(const struct jvm_structs *s, struct jvm_mem *mem,
    struct jvm_layout *l, const char **missing)
{
	uint64_t	 addr;
	uint32_t	 major;

	memset(l, 0, sizeof(*l));
	*missing = NULL;
	if (jvm_structs_static(s, "Abstract_VM_Version", "_vm_major_version",
	    &addr) == -1 || jvm_mem_u32(mem, addr, &major) == -1 ||
	    major < JVM_MAJOR_MIN || major > 1000) {
		*missing = "version";
		return -1;
	}
	l->major = major;
	l->unsigned5_x = major >= 20;
	if (jvm_layout_code(s, l, missing) != 0 ||
	    jvm_layout_nmethod(s, l, missing) != 0 ||
	    jvm_layout_method(s, l, missing) != 0)
		return -1;
	return 0;
}
