/*
 * Naming one frame of a collection round, through the names kept in a
 * stacknames.
 *
 * A round of a busy host brings tens of thousands of stacks that were
 * never seen before (their leaf addresses vary), made of return
 * addresses that were: so a frame's names are kept under the generation
 * of the process's mappings (or of the kernel's symbols) and its
 * address, interned, with what the round needs to know of them (which
 * are unknown, for the statistics; whether a kernel frame is the
 * tracing machinery's).  A known frame then costs one lookup instead of
 * a symbol search and an interning per name.  A name that may change
 * within its generation (resolve_unstable(): perf maps, addresses in no
 * mapping, kernel addresses kallsyms did not know) is not kept.
 */
#include <stdint.h>
#include <string.h>

#include "collect_frame.h"
#include "sym/resolve.h"
#include "stacknames.h"
#include "sym/symstats.h"

/* Kernel generations, apart from processes'. */
#define COLLECT_FRAME_KERNEL_GEN	(1ULL << 63)

_Static_assert(COLLECT_FRAME_INLINE_MAX < 31, "a flag per inlined name");

uint64_t
collect_frame_gen(const struct resolve *r, const struct resolve_proc *rp,
    int user)
{
	return user ? resolve_proc_gen(rp) : COLLECT_FRAME_KERNEL_GEN |
	    resolve_kernel_gen(r);
}

/* A kernel frame of a tracepoint's machinery or of a BPF program. */
int
collect_frame_is_bpf(const char *name)
{
	size_t	 len = strlen(name);

	return strncmp(name, "bpf_trace_run", 13) == 0 ||
	    strncmp(name, "__bpf_trace_", 12) == 0 ||
	    (len > 6 && strcmp(name + len - 6, " [bpf]") == 0);
}

const uint32_t *
collect_frame_name(struct stacknames *sn, struct resolve *r,
    struct resolve_proc *rp, int user, uint64_t addr, size_t *n,
    uint32_t *flags, uint32_t *scratch)
{
	const char	*names[COLLECT_FRAME_INLINE_MAX];
	const uint32_t	*ids;
	uint64_t	 unstable;
	size_t		 j;

	if ((ids = stacknames_frame_get(sn, collect_frame_gen(r, rp, user),
	    addr, n, flags)) != NULL)
		return ids;
	unstable = resolve_unstable(r);
	if (user)
		*n = resolve_user_frames(r, rp, addr, names,
		    COLLECT_FRAME_INLINE_MAX);
	else {
		names[0] = resolve_kernel(r, addr);
		*n = 1;
	}
	*flags = 0;
	for (j = 0; j < *n; j++) {
		scratch[j] = stacknames_intern(sn, names[j]);
		if (user && symstats_is_unknown(names[j]))
			*flags |= COLLECT_FRAME_UNKNOWN(j);
	}
	if (!user && collect_frame_is_bpf(names[0]))
		*flags |= COLLECT_FRAME_BPF;
	/* The generation after naming: a re-read of the maps made one. */
	if (resolve_unstable(r) == unstable)
		stacknames_frame_put(sn, collect_frame_gen(r, rp, user), addr,
		    scratch, *n, *flags);
	return scratch;
}
