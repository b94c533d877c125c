#ifndef EBPFSPY_HASH_H
#define EBPFSPY_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Hashes for the daemon's tables.  hash_mix() is inline (tables call it
 * on every lookup) and shared with the BPF programs: bpf/hash.h holds
 * the one copy.  The others hash eight bytes at a time and end in
 * hash_mix(), so that any of their bits may index a table.
 */
#include "bpf/hash.h"

#define HASH_GOLDEN	0x9e3779b97f4a7c15ULL	/* 2^64 / golden ratio */

/* Two words, as one key: (a, b) and (b, a) differ. */
static inline uint64_t
hash_pair(uint64_t a, uint64_t b)
{
	return hash_mix(a ^ b * HASH_GOLDEN);
}

uint64_t	 hash_bytes(const void *, size_t);
uint64_t	 hash_str(const char *);
uint64_t	 hash_u32s(const uint32_t *, size_t);

#endif
