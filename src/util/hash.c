/*
 * Hashing bytes and arrays for the daemon's tables.  Names are hashed
 * eight bytes at a time: C++ and Rust names run to hundreds of bytes and
 * a round hashes hundreds of thousands of frames.  Unseeded: the same
 * input hashes the same in every run, and nothing here resists inputs
 * chosen to collide.
 */
#include <stdint.h>
#include <string.h>

#include "hash.h"

uint64_t
hash_bytes(const void *p, size_t len)
{
	const unsigned char	*s = p;
	uint64_t		 h = len, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * HASH_GOLDEN;
		h ^= h >> 32;
	}
	/* Shifts, not memcpy(): a partial store cannot be forwarded. */
	for (w = 0; len > 0; len--)
		w = w << 8 | s[len - 1];
	return hash_mix(h ^ w);
}

uint64_t
hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

/* The same for an array of 32-bit ids, a word at a time. */
uint64_t
hash_u32s(const uint32_t *v, size_t n)
{
	uint64_t	 h = n;
	size_t		 i;

	for (i = 0; i < n; i++) {
		h = (h ^ v[i]) * HASH_GOLDEN;
		h ^= h >> 32;
	}
	return hash_mix(h);
}
