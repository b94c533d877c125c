/*
 * The code cache: CodeCache::_heaps, a GrowableArray of CodeHeaps, each
 * committed memory cut into segments (128 bytes here) with a map of one
 * byte a segment.  A block's first segment maps to 0, the others to
 * how far back to step (at most 0xfe at a time), a free segment to
 * 0xff; the block starts with a HeapBlock header (its length in
 * segments, whether it is used) and the CodeBlob follows.
 *
 * The heaps are made while the JVM starts: until CodeCache::_heaps
 * holds them, the reader answers "not yet" and the caller retries.
 */
#include <stdint.h>
#include <string.h>

#include "jvm_codecache.h"
#include "jvm_layout.h"
#include "jvm_mem.h"

#define JVM_SEGMAP_FREE		0xff
#define JVM_SEGMAP_STEPS	4096	/* a 120 MB blob, at 0xfe a step */
#define JVM_BLOBS_MAX		(4 * 1024 * 1024)
#define JVM_BLOB_READ		512	/* every header field we read */

static int
jvm_codecache_heap(struct jvm_mem *m, const struct jvm_layout *l,
    uint64_t heap, struct jvm_heap *h)
{
	uint64_t	 low, high, reserved, segmap;
	uint32_t	 shift;

	if (jvm_mem_u64(m, heap + l->heap_memory + l->vs_low_boundary,
	    &low) == -1 ||
	    jvm_mem_u64(m, heap + l->heap_memory + l->vs_high_boundary,
	    &reserved) == -1 ||
	    jvm_mem_u64(m, heap + l->heap_memory + l->vs_high, &high) == -1 ||
	    jvm_mem_u64(m, heap + l->heap_segmap + l->vs_low_boundary,
	    &segmap) == -1 ||
	    jvm_mem_u32(m, heap + l->heap_log2seg, &shift) == -1)
		return -1;
	if (low == 0 || high < low || reserved < high || segmap == 0 ||
	    shift < 4 || shift > 16)
		return -1;
	h->low = low;
	h->high = high;
	h->reserved = reserved;
	h->segmap = segmap;
	h->shift = shift;
	return 0;
}

int
jvm_codecache_read(struct jvm_mem *m, const struct jvm_layout *l,
    struct jvm_codecache *cc)
{
	uint64_t	 ga, data, heap;
	uint32_t	 len, i;

	memset(cc, 0, sizeof(*cc));
	if (jvm_mem_u64(m, l->heaps, &ga) == -1 || ga == 0 ||
	    jvm_mem_u32(m, ga + l->ga_len, &len) == -1 || len == 0 ||
	    len > JVM_HEAPS_MAX ||
	    jvm_mem_u64(m, ga + l->ga_data, &data) == -1 || data == 0)
		return -1;
	if (jvm_mem_u64(m, l->low_bound, &cc->low) == -1 ||
	    jvm_mem_u64(m, l->high_bound, &cc->high) == -1 ||
	    cc->low == 0 || cc->high <= cc->low)
		return -1;
	for (i = 0; i < len; i++) {
		if (jvm_mem_u64(m, data + 8 * i, &heap) == -1 || heap == 0 ||
		    jvm_codecache_heap(m, l, heap, &cc->heaps[cc->nheaps]) ==
		    -1)
			return -1;
		cc->nheaps++;
	}
	return 0;
}

int
jvm_codecache_has(const struct jvm_codecache *cc, uint64_t pc)
{
	return pc >= cc->low && pc < cc->high;
}

static void
jvm_blob_kind(struct jvm_blob *b)
{
	if (strcmp(b->name, "nmethod") == 0)
		b->kind = JVM_BLOB_NMETHOD;
	else if (strcmp(b->name, "native nmethod") == 0)
		b->kind = JVM_BLOB_NATIVE;
	else if (strcmp(b->name, "Interpreter") == 0)
		b->kind = JVM_BLOB_INTERPRETER;
	else
		b->kind = JVM_BLOB_STUB;
}

static int32_t
jvm_blob_int(const uint8_t *h, uint64_t off, uint64_t width)
{
	int16_t	 s;
	int32_t	 v;

	if (width == 2) {
		memcpy(&s, h + off, sizeof(s));
		return s;
	}
	memcpy(&v, h + off, sizeof(v));
	return v;
}

int
jvm_codecache_blob(struct jvm_mem *m, const struct jvm_layout *l,
    uint64_t addr, struct jvm_blob *b)
{
	uint8_t		 h[JVM_BLOB_READ];
	uint64_t	 name, begin, end;

	memset(b, 0, sizeof(*b));
	if (l->cb_name + 8 > sizeof(h) || l->cb_code_end + 8 > sizeof(h) ||
	    l->cb_code_begin + 8 > sizeof(h) || l->cb_size + 4 > sizeof(h) ||
	    l->cb_frame_size + 4 > sizeof(h) ||
	    l->cb_frame_complete + 4 > sizeof(h) ||
	    jvm_mem_read(m, addr, h, sizeof(h)) == -1)
		return -1;
	b->addr = addr;
	b->size = jvm_blob_int(h, l->cb_size, 4);
	b->frame_size = jvm_blob_int(h, l->cb_frame_size, 4);
	b->frame_complete = jvm_blob_int(h, l->cb_frame_complete,
	    l->cb_frame_complete_size);
	if (l->cb_code_ptrs) {
		memcpy(&begin, h + l->cb_code_begin, sizeof(begin));
		memcpy(&end, h + l->cb_code_end, sizeof(end));
	} else {
		begin = addr + (uint32_t)jvm_blob_int(h, l->cb_code_begin, 4);
		end = addr + (uint32_t)jvm_blob_int(h, l->cb_code_end, 4);
	}
	/* A blob's code lies inside it. */
	if (b->size <= 0 || begin < addr || end < begin ||
	    end > addr + (uint64_t)b->size || b->frame_size < 0 ||
	    b->frame_size > 1 << 20)
		return -1;
	b->code_begin = begin;
	b->code_end = end;
	memcpy(&name, h + l->cb_name, sizeof(name));
	if (jvm_mem_cstr(m, name, b->name, sizeof(b->name)) == -1)
		return -1;
	jvm_blob_kind(b);
	return 0;
}

static const struct jvm_heap *
jvm_codecache_heap_of(const struct jvm_codecache *cc, uint64_t pc)
{
	size_t	 i;

	for (i = 0; i < cc->nheaps; i++)
		if (pc >= cc->heaps[i].low && pc < cc->heaps[i].high)
			return &cc->heaps[i];
	return NULL;
}

/* A block's header: used, and its length in segments. */
static int
jvm_codecache_block(struct jvm_mem *m, const struct jvm_layout *l,
    uint64_t block, uint64_t *len, int *used)
{
	uint64_t	 v = 0;
	uint8_t		 u;

	if (jvm_mem_read(m, block + l->hb_length, &v,
	    l->hb_length_size <= 8 ? l->hb_length_size : 8) == -1 ||
	    jvm_mem_u8(m, block + l->hb_used, &u) == -1)
		return -1;
	*len = v;
	*used = u != 0;
	return 0;
}

int
jvm_codecache_find(struct jvm_mem *m, const struct jvm_layout *l,
    const struct jvm_codecache *cc, uint64_t pc, struct jvm_blob *b)
{
	const struct jvm_heap	*h;
	uint64_t		 seg, len;
	uint8_t			 tag;
	int			 i, used;

	if ((h = jvm_codecache_heap_of(cc, pc)) == NULL)
		return -1;
	seg = (pc - h->low) >> h->shift;
	for (i = 0; i < JVM_SEGMAP_STEPS; i++) {
		if (jvm_mem_u8(m, h->segmap + seg, &tag) == -1 ||
		    tag == JVM_SEGMAP_FREE)
			return -1;
		if (tag == 0)
			break;
		if (tag > seg)
			return -1;
		seg -= tag;
	}
	if (i == JVM_SEGMAP_STEPS ||
	    jvm_codecache_block(m, l, h->low + (seg << h->shift), &len,
	    &used) == -1 || !used)
		return -1;
	if (jvm_codecache_blob(m, l, h->low + (seg << h->shift) +
	    l->heapblock_size, b) == -1 || pc >= b->addr + (uint64_t)b->size)
		return -1;
	return 0;
}

size_t
jvm_codecache_each(struct jvm_mem *m, const struct jvm_layout *l,
    const struct jvm_codecache *cc,
    void (*cb)(const struct jvm_blob *, void *), void *arg)
{
	const struct jvm_heap	*h;
	struct jvm_blob		 b;
	uint64_t		 seg, len, nseg;
	size_t			 i, n = 0, steps = 0;
	int			 used;

	for (i = 0; i < cc->nheaps; i++) {
		h = &cc->heaps[i];
		nseg = (h->high - h->low) >> h->shift;
		for (seg = 0; seg < nseg && steps++ < JVM_BLOBS_MAX;
		    seg += len) {
			if (jvm_codecache_block(m, l, h->low +
			    (seg << h->shift), &len, &used) == -1 ||
			    len == 0 || len > nseg - seg)
				break;
			if (!used || jvm_codecache_blob(m, l, h->low +
			    (seg << h->shift) + l->heapblock_size, &b) == -1)
				continue;
			cb(&b, arg);
			n++;
		}
	}
	return n;
}
