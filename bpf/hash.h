/*
 * The one 64-bit mixer of the project, MurmurHash3's finalizer (fmix64):
 * every input bit reaches every output bit, so that the low bits of a
 * mixed key can index a table.  Compiled by clang -target bpf against
 * vmlinux.h for the BPF programs and by cc against <linux/types.h> for
 * the daemon, which reaches it through src/util/hash.h.
 */
#ifndef EBPFSPY_BPF_HASH_H
#define EBPFSPY_BPF_HASH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

static inline __u64
hash_mix(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

#endif
