/*
 * The hashes of the daemon's tables: hash_mix() is MurmurHash3's
 * finalizer to the bit (the BPF programs share it), and every hash
 * spreads keys over a table's low bits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "tap.h"

#define SLOTS_SHIFT	16
#define SLOTS		(1U << SLOTS_SHIFT)

static int
popcount64(uint64_t x)
{
	int	 n = 0;

	for (; x != 0; x &= x - 1)
		n++;
	return n;
}

/*
 * Of SLOTS keys put in SLOTS slots by their low bits, the share of
 * slots left empty, in thousandths: about 1/e (368) for a good hash.
 */
static unsigned int
empty_permille(const uint64_t *h)
{
	uint8_t		*used;
	size_t		 i, empty = 0;

	used = calloc(SLOTS, 1);
	for (i = 0; i < SLOTS; i++)
		used[h[i] & (SLOTS - 1)] = 1;
	for (i = 0; i < SLOTS; i++)
		empty += used[i] == 0;
	free(used);
	return empty * 1000 / SLOTS;
}

static void
test_mix(void)
{
	uint64_t	 x, flips = 0, n = 0;
	int		 bit, i;

	/* Reference values of MurmurHash3's fmix64. */
	ok(hash_mix(0) == 0, "mix: 0 stays 0");
	ok(hash_mix(1) == 0xb456bcfc34c2cb2cULL, "mix: fmix64(1)");
	ok(hash_mix(0xdeadbeefULL) == 0xd24bd59f862a1dacULL,
	    "mix: fmix64(0xdeadbeef)");
	ok(hash_mix(UINT64_MAX) == 0x64b5720b4b825f21ULL,
	    "mix: fmix64(2^64 - 1)");

	/* Avalanche: one input bit flips about half the output bits. */
	for (i = 0, x = 0x0123456789abcdefULL; i < 256; i++,
	    x = x * 6364136223846793005ULL + 1442695040888963407ULL) {
		for (bit = 0; bit < 64; bit++) {
			flips += popcount64(hash_mix(x) ^
			    hash_mix(x ^ 1ULL << bit));
			n++;
		}
	}
	ok(flips * 100 / n >= 3100 && flips * 100 / n <= 3300,
	    "mix: a flipped input bit flips 32 output bits on average (%.2f)",
	    (double)flips / n);
}

static void
test_bytes(void)
{
	unsigned char	 buf[64], moved[72];
	uint64_t	 h, seen[41];
	size_t		 len, i, j;
	int		 all;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 37 + 11);

	ok(hash_bytes(buf, 0) == hash_bytes("", 0),
	    "bytes: nothing hashes the same wherever it is");
	ok(hash_bytes("a", 1) != hash_bytes("a\0", 2),
	    "bytes: a trailing NUL is another key");

	/* Every prefix of the buffer hashes apart from the others. */
	for (len = 0; len <= 40; len++)
		seen[len] = hash_bytes(buf, len);
	all = 1;
	for (i = 0; i <= 40; i++)
		for (j = i + 1; j <= 40; j++)
			if (seen[i] == seen[j])
				all = 0;
	ok(all, "bytes: the 41 prefixes of a buffer hash apart");

	/* A change in any byte, whole words and the tail alike, shows. */
	h = hash_bytes(buf, 37);
	all = 1;
	for (i = 0; i < 37; i++) {
		buf[i] ^= 0x40;
		if (hash_bytes(buf, 37) == h)
			all = 0;
		buf[i] ^= 0x40;
	}
	ok(all, "bytes: a change in any of 37 bytes changes the hash");
	ok(hash_bytes(buf, 37) == h, "bytes: the same bytes, the same hash");

	/* Where the bytes lie does not matter (unaligned words). */
	all = 1;
	for (i = 1; i < 8; i++) {
		memcpy(moved + i, buf, 37);
		if (hash_bytes(moved + i, 37) != h)
			all = 0;
	}
	ok(all, "bytes: the same at any alignment");

	ok(hash_str("burn_a") == hash_bytes("burn_a", 6),
	    "str: the hash of its bytes");
	ok(hash_str("burn_a") != hash_str("burn_b"), "str: another name");
	ok(hash_str("") == hash_bytes(NULL, 0), "str: the empty name");
}

static void
test_u32s(void)
{
	uint32_t	 a[3] = { 1, 2, 3 }, b[3] = { 2, 1, 3 };
	uint32_t	 z[2] = { 0, 0 };

	ok(hash_u32s(a, 3) == hash_u32s(a, 3), "u32s: the same ids, the same");
	ok(hash_u32s(a, 3) != hash_u32s(b, 3), "u32s: the order counts");
	ok(hash_u32s(a, 2) != hash_u32s(a, 3), "u32s: a prefix differs");
	ok(hash_u32s(z, 1) != hash_u32s(z, 2), "u32s: so does a zero more");
}

/* Keys that differ little (counters, addresses, names) fill a table. */
static void
test_spread(void)
{
	uint64_t	*h;
	char		 name[32];
	uint32_t	 ids[2];
	size_t		 i;
	unsigned int	 e;

	h = calloc(SLOTS, sizeof(*h));

	for (i = 0; i < SLOTS; i++)
		h[i] = hash_mix(i << 12);
	e = empty_permille(h);
	ok(e >= 355 && e <= 380, "mix: page addresses spread (%u/1000 "
	    "empty)", e);

	for (i = 0; i < SLOTS; i++)
		h[i] = hash_pair(0x400000 + i * 16, i % 3);
	e = empty_permille(h);
	ok(e >= 355 && e <= 380, "pair: (address, generation) spreads "
	    "(%u/1000 empty)", e);

	for (i = 0; i < SLOTS; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		h[i] = hash_str(name);
	}
	e = empty_permille(h);
	ok(e >= 355 && e <= 380, "str: names f0 .. f65535 spread (%u/1000 "
	    "empty)", e);

	for (i = 0; i < SLOTS; i++) {
		ids[0] = i >> 8;
		ids[1] = i & 0xff;
		h[i] = hash_u32s(ids, 2);
	}
	e = empty_permille(h);
	ok(e >= 355 && e <= 380, "u32s: pairs of small ids spread (%u/1000 "
	    "empty)", e);

	ok(hash_pair(1, 2) != hash_pair(2, 1), "pair: (a, b) is not (b, a)");
	ok(hash_pair(5, 0) != hash_pair(0, 5), "pair: nor with a zero");
	free(h);
}

int
main(void)
{
	test_mix();
	test_bytes();
	test_u32s();
	test_spread();
	return done_testing();
}
