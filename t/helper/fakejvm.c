/*
 * A libjvm.so that is not one: it exports the names of HotSpot's
 * self-description (src/jvm/jvm_structs.h) and nothing behind them but
 * what fakejvm_fill() writes there for t/helper/fakejava.c -- garbage,
 * or tables a JVM would never export.  The words are written here, in
 * the library: the executable's own would be copies (copy relocations)
 * and the library's left at zero.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int	fakejvm_fill(const char *);

uint64_t gHotSpotVMStructs;
uint64_t gHotSpotVMStructEntryTypeNameOffset;
uint64_t gHotSpotVMStructEntryFieldNameOffset;
uint64_t gHotSpotVMStructEntryTypeStringOffset;
uint64_t gHotSpotVMStructEntryIsStaticOffset;
uint64_t gHotSpotVMStructEntryOffsetOffset;
uint64_t gHotSpotVMStructEntryAddressOffset;
uint64_t gHotSpotVMStructEntryArrayStride;
uint64_t gHotSpotVMTypes;
uint64_t gHotSpotVMTypeEntryTypeNameOffset;
uint64_t gHotSpotVMTypeEntrySizeOffset;
uint64_t gHotSpotVMTypeEntryArrayStride;
uint64_t gHotSpotVMIntConstants;
uint64_t gHotSpotVMIntConstantEntryNameOffset;
uint64_t gHotSpotVMIntConstantEntryValueOffset;
uint64_t gHotSpotVMIntConstantEntryArrayStride;
uint64_t gHotSpotVMLongConstants;
uint64_t gHotSpotVMLongConstantEntryNameOffset;
uint64_t gHotSpotVMLongConstantEntryValueOffset;
uint64_t gHotSpotVMLongConstantEntryArrayStride;

#include "fakejvm_entries.h"

static int32_t major;
static struct fstruct structs[16400];
static struct ftype types[4];
static struct fconst ints[2], longs[2];

static void
layout(void)
{
	gHotSpotVMStructs = (uintptr_t)structs;
	gHotSpotVMStructEntryTypeNameOffset = 0;
	gHotSpotVMStructEntryFieldNameOffset = 8;
	gHotSpotVMStructEntryTypeStringOffset = 16;
	gHotSpotVMStructEntryIsStaticOffset = 24;
	gHotSpotVMStructEntryOffsetOffset = 32;
	gHotSpotVMStructEntryAddressOffset = 40;
	gHotSpotVMStructEntryArrayStride = sizeof(structs[0]);
	gHotSpotVMTypes = (uintptr_t)types;
	gHotSpotVMTypeEntryTypeNameOffset = 0;
	gHotSpotVMTypeEntrySizeOffset = 32;
	gHotSpotVMTypeEntryArrayStride = sizeof(types[0]);
	gHotSpotVMIntConstants = (uintptr_t)ints;
	gHotSpotVMIntConstantEntryNameOffset = 0;
	gHotSpotVMIntConstantEntryValueOffset = 8;
	gHotSpotVMIntConstantEntryArrayStride = sizeof(ints[0]);
	gHotSpotVMLongConstants = (uintptr_t)longs;
	gHotSpotVMLongConstantEntryNameOffset = 0;
	gHotSpotVMLongConstantEntryValueOffset = 8;
	gHotSpotVMLongConstantEntryArrayStride = sizeof(longs[0]);
	structs[0].type = "Abstract_VM_Version";
	structs[0].field = "_vm_major_version";
	structs[0].tstr = "int";
	structs[0].is_static = 1;
	structs[0].address = &major;
	types[0].name = "CodeBlob";
	types[0].size = 64;
	ints[0].name = "Symbol::max_symbol_length";
	ints[0].value = 65535;
	longs[0].name = "VM_Version::CPU_CX8";
	longs[0].value = 1;
}

static void
garbage(void)
{
	uint64_t	*w[] = {
		&gHotSpotVMStructs, &gHotSpotVMStructEntryTypeNameOffset,
		&gHotSpotVMStructEntryFieldNameOffset,
		&gHotSpotVMStructEntryTypeStringOffset,
		&gHotSpotVMStructEntryIsStaticOffset,
		&gHotSpotVMStructEntryOffsetOffset,
		&gHotSpotVMStructEntryAddressOffset,
		&gHotSpotVMStructEntryArrayStride, &gHotSpotVMTypes,
		&gHotSpotVMTypeEntryTypeNameOffset,
		&gHotSpotVMTypeEntrySizeOffset,
		&gHotSpotVMTypeEntryArrayStride, &gHotSpotVMIntConstants,
		&gHotSpotVMIntConstantEntryNameOffset,
		&gHotSpotVMIntConstantEntryValueOffset,
		&gHotSpotVMIntConstantEntryArrayStride,
		&gHotSpotVMLongConstants,
		&gHotSpotVMLongConstantEntryNameOffset,
		&gHotSpotVMLongConstantEntryValueOffset,
		&gHotSpotVMLongConstantEntryArrayStride,
	};
	uint64_t	 x = 0x9e3779b97f4a7c15ULL;
	size_t		 i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		*w[i] = x;
	}
}

/* Fill the tables as mode says: 0, -1 for an unknown mode. */
int
fakejvm_fill(const char *mode)
{
	size_t	 i;

	layout();
	major = 17;
	if (strcmp(mode, "garbage") == 0)
		garbage();
	else if (strcmp(mode, "stride") == 0) {
		gHotSpotVMStructEntryArrayStride = 0;
		gHotSpotVMTypeEntryArrayStride = 1 << 20;
	} else if (strcmp(mode, "noend") == 0) {
		for (i = 0; i < sizeof(structs) / sizeof(structs[0]); i++)
			structs[i] = structs[0];
	} else if (strcmp(mode, "names") == 0) {
		structs[1] = structs[0];
		structs[1].field = (const char *)(uintptr_t)0x10;
	} else if (strcmp(mode, "old") == 0)
		major = 8;
	else if (strcmp(mode, "field") != 0)
		return -1;
	return 0;
}
