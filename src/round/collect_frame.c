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
#include <stdio.h>
#include <string.h>

#include "collect_frame.h"
#include "profile/frametab.h"
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

/* The build id as hex, interned; 0 for none. */
static uint32_t
collect_frame_build_id(struct stacknames *sn, const uint8_t *id, size_t len)
{
	char	 hex[2 * 64 + 1];
	size_t	 i;

	if (id == NULL || len == 0)
		return 0;
	if (len > 64)
		len = 64;
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return stacknames_intern(sn, hex);
}

/*
 * The locations of names[0 .. n - 1], into ids: a user frame's at w
 * (its mapping, its address in the file, the symbol as the file spells
 * it, Go's source files and lines), or a kernel frame's (w NULL) at
 * addr, in the kernel's mapping.  A location is a name's at an address
 * (frametab.c), so each address sampled has its own line in go tool
 * pprof -list; the names of one address (Go's inlined calls) are one
 * pprof Location, each but the innermost marked as inlining the next.
 */
static void
collect_frame_locs(struct stacknames *sn, const struct resolve_where *w,
    uint64_t addr, const char *const *names, size_t n, uint32_t flags,
    uint32_t *ids)
{
	struct frametab_frame	 f;
	struct frametab_map	 m;
	size_t			 j;
	int			 lines;

	memset(&m, 0, sizeof(m));
	memset(&f, 0, sizeof(f));
	if (w == NULL) {
		m.file = stacknames_intern(sn, "[kernel.kallsyms]");
		m.limit = UINT64_MAX;
		f.addr = addr;
	} else if (w->path != NULL) {
		m.start = w->start;
		m.limit = w->limit;
		m.offset = w->offset;
		m.file = stacknames_intern(sn, w->path);
		m.build_id = collect_frame_build_id(sn, w->build_id,
		    w->build_id_len);
		f.addr = w->addr;
	}
	if (!(flags & COLLECT_FRAME_UNKNOWN(0)))
		m.flags |= FRAMETAB_MAP_FUNCTIONS;
	lines = w != NULL && w->nlines == n;
	if (lines)
		m.flags |= FRAMETAB_MAP_FILENAMES | FRAMETAB_MAP_LINES;
	if (m.file != 0)
		f.map = frametab_map_add(stacknames_frames(sn), &m);
	/* One symbol, not a chain of Go's: its own spelling. */
	if (w != NULL && n == 1 && w->system != NULL &&
	    !(flags & COLLECT_FRAME_UNKNOWN(0)))
		f.system = stacknames_intern(sn, w->system);
	for (j = 0; j < n; j++) {
		/* Go's: each name's own file and line (a call site's). */
		if (lines) {
			f.file = w->files[j] != NULL ?
			    stacknames_intern(sn, w->files[j]) : 0;
			f.line = w->lines[j];
		}
		f.flags = j + 1 < n ? FRAMETAB_FRAME_INLINES : 0;
		ids[j] = stacknames_loc(sn, names[j], &f);
	}
}

const uint32_t *
collect_frame_name(struct stacknames *sn, struct resolve *r,
    struct resolve_proc *rp, int user, uint64_t addr, size_t *n,
    uint32_t *flags, uint32_t *scratch)
{
	const char		*names[COLLECT_FRAME_INLINE_MAX];
	const uint32_t		*ids;
	struct resolve_where	 w;
	uint64_t		 unstable;
	size_t			 j;

	if ((ids = stacknames_frame_get(sn, collect_frame_gen(r, rp, user),
	    addr, n, flags)) != NULL)
		return ids;
	unstable = resolve_unstable(r);
	if (user)
		*n = resolve_user_frames_where(r, rp, addr, names,
		    COLLECT_FRAME_INLINE_MAX, &w);
	else {
		names[0] = resolve_kernel(r, addr);
		*n = 1;
	}
	*flags = 0;
	for (j = 0; j < *n; j++)
		if (user && symstats_is_unknown(names[j]))
			*flags |= COLLECT_FRAME_UNKNOWN(j);
	if (!user && collect_frame_is_bpf(names[0]))
		*flags |= COLLECT_FRAME_BPF;
	/* Not one of the user flags: only the kernel's mapping has it. */
	collect_frame_locs(sn, user ? &w : NULL, addr, names, *n,
	    *flags | (!user && symstats_is_unknown(names[0]) ?
	    COLLECT_FRAME_UNKNOWN(0) : 0), scratch);
	/* The generation after naming: a re-read of the maps made one. */
	if (resolve_unstable(r) == unstable)
		stacknames_frame_put(sn, collect_frame_gen(r, rp, user), addr,
		    scratch, *n, *flags);
	return scratch;
}
