#ifndef EBPFSPY_COLLECT_FRAME_H
#define EBPFSPY_COLLECT_FRAME_H

#include <stddef.h>
#include <stdint.h>

struct resolve;
struct resolve_proc;
struct stacknames;

/* Functions inlined at one address that a frame expands to. */
#define COLLECT_FRAME_INLINE_MAX	16
/* What a frame's names are: name j is one of the unknown forms... */
#define COLLECT_FRAME_UNKNOWN(j)	(1U << (j))
/* ...the frame is of the kernel's tracing machinery. */
#define COLLECT_FRAME_BPF		(1U << 31)

/*
 * The generation the names of a process's frames (user), or of the
 * kernel's (rp unused), are kept under in a stacknames.
 */
uint64_t	 collect_frame_gen(const struct resolve *,
		    const struct resolve_proc *, int);
/*
 * The names of the frame at addr of rp (user), or of the kernel, as
 * location ids of sn (a name with its mapping and address, for pprof):
 * *n of them, outermost first, and their COLLECT_FRAME_
 * flags.  Valid until the next call with the same scratch (room for
 * COLLECT_FRAME_INLINE_MAX ids).
 */
const uint32_t	*collect_frame_name(struct stacknames *, struct resolve *,
		    struct resolve_proc *, int, uint64_t, size_t *, uint32_t *,
		    uint32_t *);
int		 collect_frame_is_bpf(const char *);

#endif
