/*
 * src/jvm/jvm_structs.c and jvm_layout.c: HotSpot's tables, made up in
 * this process's own memory in the layout JDK 17 and 25 export them
 * (the strides and member offsets are read, not assumed), read back by
 * lookup; the layouts of a JDK 17 and of a JDK 25 taken from them with
 * their differences; and tables that are not tables refused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jvm/jvm_layout.h"
#include "jvm/jvm_mem.h"
#include "jvm/jvm_structs.h"
#include "tap.h"
#include "../helper/fakejvm_entries.h"

static struct fstruct	 structs[128];
static struct fstruct	 noend[8300];	/* more than a table may hold */
static struct ftype	 types[16];
static struct fconst	 ints[8], longs[4];
static uint64_t		 words[JVM_SYM_MAX];
static uint64_t		 addr[JVM_SYM_MAX];
static int32_t		 major;
static uint64_t		 heaps, low, high;
static size_t		 ns, nt, ni;

static void
field(const char *type, const char *name, const char *tstr, uint64_t off)
{
	structs[ns].type = type;
	structs[ns].field = name;
	structs[ns].tstr = tstr;
	structs[ns].offset = off;
	ns++;
}

static void
stat_field(const char *type, const char *name, void *a)
{
	structs[ns].type = type;
	structs[ns].field = name;
	structs[ns].tstr = "int";
	structs[ns].is_static = 1;
	structs[ns].address = a;
	ns++;
}

static void
type(const char *name, uint64_t size)
{
	types[nt].name = name;
	types[nt].size = size;
	nt++;
}

static void
tables(void)
{
	size_t	 i;

	memset(structs, 0, sizeof(structs));
	memset(types, 0, sizeof(types));
	memset(ints, 0, sizeof(ints));
	ns = nt = ni = 0;
	words[JVM_SYM_STRUCTS] = (uintptr_t)structs;
	words[JVM_SYM_S_TYPE] = 0;
	words[JVM_SYM_S_FIELD] = 8;
	words[JVM_SYM_S_TSTR] = 16;
	words[JVM_SYM_S_STATIC] = 24;
	words[JVM_SYM_S_OFFSET] = 32;
	words[JVM_SYM_S_ADDRESS] = 40;
	words[JVM_SYM_S_STRIDE] = sizeof(structs[0]);
	words[JVM_SYM_TYPES] = (uintptr_t)types;
	words[JVM_SYM_T_NAME] = 0;
	words[JVM_SYM_T_SIZE] = 32;
	words[JVM_SYM_T_STRIDE] = sizeof(types[0]);
	words[JVM_SYM_INTS] = (uintptr_t)ints;
	words[JVM_SYM_I_NAME] = 0;
	words[JVM_SYM_I_VALUE] = 8;
	words[JVM_SYM_I_STRIDE] = sizeof(ints[0]);
	words[JVM_SYM_LONGS] = (uintptr_t)longs;
	words[JVM_SYM_L_NAME] = 0;
	words[JVM_SYM_L_VALUE] = 8;
	words[JVM_SYM_L_STRIDE] = sizeof(longs[0]);
	for (i = 0; i < JVM_SYM_MAX; i++)
		addr[i] = (uintptr_t)&words[i];
	longs[0].name = "VM_Version::CPU_CX8";
	longs[0].value = 1;
}

/* What both versions share, at JDK 17's offsets. */
static void
common(void)
{
	stat_field("Abstract_VM_Version", "_vm_major_version", &major);
	stat_field("CodeCache", "_heaps", &heaps);
	stat_field("CodeCache", "_low_bound", &low);
	stat_field("CodeCache", "_high_bound", &high);
	field("GrowableArrayBase", "_len", "int", 0);
	field("GrowableArray<int>", "_data", "int*", 8);
	field("VirtualSpace", "_low_boundary", "char*", 0);
	field("VirtualSpace", "_high_boundary", "char*", 8);
	field("VirtualSpace", "_high", "char*", 24);
	field("HeapBlock::Header", "_used", "bool", 8);
	field("CodeBlob", "_name", "const char*", 96);
	field("CodeBlob", "_size", "int", 12);
	field("CodeBlob", "_frame_size", "int", 28);
	field("nmethod", "_compile_id", "int", 304);
	field("nmethod", "_scopes_pcs_offset", "int", 268);
	field("PcDesc", "_pc_offset", "int", 0);
	field("PcDesc", "_scope_decode_offset", "int", 4);
	field("Method", "_constMethod", "ConstMethod*", 8);
	field("ConstMethod", "_constants", "ConstantPool*", 8);
	field("ConstMethod", "_code_size", "u2", 32);
	field("ConstMethod", "_name_index", "u2", 34);
	field("ConstMethod", "_signature_index", "u2", 36);
	field("ConstantPool", "_pool_holder", "InstanceKlass*", 24);
	field("ConstantPool", "_source_file_name_index", "u2", 54);
	field("Klass", "_name", "Symbol*", 24);
	field("Symbol", "_length", "u2", 4);
	field("Symbol", "_body", NULL, 6);
	type("PcDesc", 16);
	type("ConstantPool", 72);
}

static void
jdk17(void)
{
	tables();
	common();
	major = 17;
	field("CodeHeap", "_memory", "VirtualSpace", 8);
	field("CodeHeap", "_segmap", "VirtualSpace", 120);
	field("CodeHeap", "_log2_segment_size", "int", 256);
	field("HeapBlock::Header", "_length", "size_t", 0);
	field("CodeBlob", "_frame_complete_offset", "int", 20);
	field("CodeBlob", "_code_begin", "address", 32);
	field("CodeBlob", "_code_end", "address", 40);
	field("CompiledMethod", "_method", "Method*", 112);
	field("CompiledMethod", "_scopes_data_begin", "address", 120);
	field("nmethod", "_metadata_offset", "int", 260);
	field("nmethod", "_dependencies_offset", "int", 272);
	field("ConstMethod", "_flags", "u2", 28);
	type("HeapBlock", 16);
	type("ConstMethod", 48);
	ints[0].name = "ConstMethod::_has_linenumber_table";
	ints[0].value = 1;
}

static void
jdk25(void)
{
	tables();
	common();
	major = 25;
	field("CodeHeap", "_memory", "VirtualSpace", 0);
	field("CodeHeap", "_segmap", "VirtualSpace", 112);
	field("CodeHeap", "_log2_segment_size", "int", 248);
	field("HeapBlock::Header", "_length", "uint32_t", 0);
	field("CodeBlob", "_frame_complete_offset", "int16_t", 54);
	field("CodeBlob", "_code_offset", "int", 36);
	field("CodeBlob", "_data_offset", "int", 40);
	field("CodeBlob", "_mutable_data", "address", 16);
	field("CodeBlob", "_relocation_size", "int", 28);
	field("CodeBlob", "_mutable_data_size", "int", 48);
	field("nmethod", "_method", "Method*", 80);
	field("nmethod", "_immutable_data", "address", 96);
	field("nmethod", "_immutable_data_size", "int", 160);
	field("nmethod", "_scopes_data_offset", "int", 200);
	field("ConstMethod", "_flags._flags", "u4", 28);
	type("HeapBlock", 8);
	type("ConstMethod", 56);
	ints[0].name = "ConstMethodFlags::_misc_has_linenumber_table";
	ints[0].value = 1;
}

static void
test_lookup(struct jvm_mem *m)
{
	struct jvm_structs	*s;
	uint64_t		 v;
	int64_t			 c;
	size_t			 nf, ntt, nic, nl;

	jdk17();
	if (!ok((s = jvm_structs_read(m, addr)) != NULL, "JDK 17's tables"))
		return;
	jvm_structs_counts(s, &nf, &ntt, &nic, &nl);
	ok(nf == ns && ntt == nt && nic == 1 && nl == 1,
	    "every entry, up to each table's NULL");
	ok(jvm_structs_field(s, "CodeBlob", "_frame_size", &v) == 0 &&
	    v == 28, "an instance field's offset");
	ok(jvm_structs_static(s, "CodeCache", "_heaps", &v) == 0 &&
	    v == (uintptr_t)&heaps, "a static field's address");
	is_int(jvm_structs_field(s, "CodeCache", "_heaps", &v), -1,
	    "a static is not an instance field");
	is_str(jvm_structs_field_type(s, "ConstMethod", "_flags"), "u2",
	    "a field's C type");
	ok(jvm_structs_size(s, "ConstMethod", &v) == 0 && v == 48,
	    "a type's size");
	ok(jvm_structs_int(s, "ConstMethod::_has_linenumber_table", &c) == 0 &&
	    c == 1, "an int constant");
	ok(jvm_structs_long(s, "VM_Version::CPU_CX8", &c) == 0 && c == 1,
	    "a long constant");
	is_int(jvm_structs_field(s, "CodeBlob", "_nothing", &v), -1,
	    "no such field");
	jvm_structs_free(s);
}

static void
test_layouts(struct jvm_mem *m)
{
	struct jvm_structs	*s;
	struct jvm_layout	 l;
	const char		*missing;
	size_t			 i;

	jdk17();
	s = jvm_structs_read(m, addr);
	ok(jvm_layout_make(s, m, &l, &missing) == 0, "JDK 17's layout");
	ok(l.major == 17 && !l.unsigned5_x && l.cb_code_ptrs &&
	    !l.nm_immutable && l.nm_method == 112 && l.heapblock_size == 16 &&
	    l.hb_length_size == 8 && l.cb_frame_complete_size == 4 &&
	    l.cm_flags_size == 2 && l.cm_size == 48 && l.heap_segmap == 120,
	    "JDK 17: code pointers, CompiledMethod, the old UNSIGNED5");
	jvm_structs_free(s);
	jdk25();
	s = jvm_structs_read(m, addr);
	ok(jvm_layout_make(s, m, &l, &missing) == 0, "JDK 25's layout");
	ok(l.major == 25 && l.unsigned5_x && !l.cb_code_ptrs &&
	    l.cb_code_begin == 36 && l.nm_immutable && l.nm_method == 80 &&
	    l.nm_metadata_offset == 0 && l.cb_relocation_size == 28 &&
	    l.heapblock_size == 8 && l.hb_length_size == 4 &&
	    l.cb_frame_complete_size == 2 && l.cm_flags == 28 &&
	    l.cm_flags_size == 4 && l.cm_has_linenumbers == 1,
	    "JDK 25: code offsets, immutable and mutable data, +1 bytes");
	jvm_structs_free(s);
	/* A field gone: refused, and named. */
	jdk25();
	for (i = 0; i < ns; i++)
		if (strcmp(structs[i].field, "_scopes_data_offset") == 0)
			structs[i].field = "_scopes_data_offset_renamed";
	s = jvm_structs_read(m, addr);
	ok(jvm_layout_make(s, m, &l, &missing) == -1 &&
	    strcmp(missing, "_scopes_data_offset") == 0,
	    "a missing field refuses the JVM, by its name");
	jvm_structs_free(s);
	jdk17();
	major = 8;
	s = jvm_structs_read(m, addr);
	ok(jvm_layout_make(s, m, &l, &missing) == -1 &&
	    strcmp(missing, "version") == 0, "JDK 8 is refused: version");
	jvm_structs_free(s);
}

static void
test_refused(struct jvm_mem *m)
{
	size_t	 i;

	jdk17();
	words[JVM_SYM_S_STRIDE] = 0;
	ok(jvm_structs_read(m, addr) == NULL, "a stride of 0");
	jdk17();
	words[JVM_SYM_T_STRIDE] = 1 << 20;
	ok(jvm_structs_read(m, addr) == NULL, "a stride of 1 MB");
	jdk17();
	words[JVM_SYM_S_OFFSET] = 44;
	ok(jvm_structs_read(m, addr) == NULL, "a member past the entry");
	jdk17();
	structs[1].field = (const char *)(uintptr_t)0x10;
	ok(jvm_structs_read(m, addr) == NULL, "a name at no address");
	jdk17();
	structs[1].field = "bad\001name";
	ok(jvm_structs_read(m, addr) == NULL, "a name with a control byte");
	jdk17();
	for (i = 0; i < sizeof(noend) / sizeof(noend[0]); i++)
		noend[i] = structs[0];
	words[JVM_SYM_STRUCTS] = (uintptr_t)noend;
	ok(jvm_structs_read(m, addr) == NULL,
	    "entries without an end: bounded, refused");
	jdk17();
	addr[JVM_SYM_LONGS] = 0;
	ok(jvm_structs_read(m, addr) == NULL, "a symbol missing");
}

int
main(void)
{
	struct jvm_mem	 m = { getpid(), 0, 0 };

	test_lookup(&m);
	test_layouts(&m);
	test_refused(&m);
	return done_testing();
}
