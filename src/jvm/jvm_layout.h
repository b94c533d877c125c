#ifndef EBPFSPY_JVM_LAYOUT_H
#define EBPFSPY_JVM_LAYOUT_H

#include <stdint.h>

struct jvm_mem;
struct jvm_structs;

/* The oldest major version read: JDK 9's code heaps, 11's Symbol. */
#define JVM_MAJOR_MIN	11

/*
 * What naming and unwinding need of a JVM, from its own tables: byte
 * offsets in its objects, sizes, and the addresses of its statics.
 */
struct jvm_layout {
	int		 major;		/* Abstract_VM_Version */
	int		 unsigned5_x;	/* UNSIGNED5 bytes stored +1 (20+) */
	/* The code cache (statics: addresses in the process). */
	uint64_t	 heaps;		/* GrowableArray<CodeHeap*>** */
	uint64_t	 low_bound, high_bound;	/* address* */
	uint64_t	 ga_len, ga_data;
	uint64_t	 heap_memory, heap_segmap, heap_log2seg;
	uint64_t	 vs_low_boundary, vs_high_boundary, vs_high;
	uint64_t	 heapblock_size, hb_length, hb_length_size, hb_used;
	/* CodeBlob: code at pointers (17) or at offsets from it (23+). */
	uint64_t	 cb_name, cb_size, cb_frame_size;
	uint64_t	 cb_frame_complete, cb_frame_complete_size;
	int		 cb_code_ptrs;
	uint64_t	 cb_code_begin, cb_code_end;
	/* nmethod: its Method, its identity, its debug information. */
	uint64_t	 nm_method, nm_compile_id;
	int		 nm_immutable;	/* 23+: tables after _immutable_data */
	uint64_t	 nm_scopes_data_begin;	/* 17: a pointer */
	uint64_t	 nm_metadata_offset, nm_dependencies_offset;
	uint64_t	 nm_immutable_data, nm_immutable_data_size;
	uint64_t	 nm_scopes_pcs_offset, nm_scopes_data_offset;
	uint64_t	 cb_mutable_data, cb_relocation_size;
	uint64_t	 cb_mutable_data_size;
	uint64_t	 pcdesc_size, pc_pc_offset, pc_scope_offset;
	/* Method -> ConstMethod -> ConstantPool -> Klass -> Symbol. */
	uint64_t	 method_constmethod;
	uint64_t	 cm_constants, cm_flags, cm_flags_size, cm_code_size;
	uint64_t	 cm_name_index, cm_signature_index, cm_size;
	uint64_t	 cm_has_linenumbers;	/* the flag's bit */
	uint64_t	 cp_pool_holder, cp_source_file_index, cp_size;
	uint64_t	 klass_name, sym_length, sym_body;
};

/*
 * The layout of a JVM from its tables: 0; -1 with *missing naming the
 * first field, type or static it lacks ("version" when its version is
 * too old or cannot be read).
 */
int	 jvm_layout_make(const struct jvm_structs *, struct jvm_mem *,
	    struct jvm_layout *, const char **);

#endif
